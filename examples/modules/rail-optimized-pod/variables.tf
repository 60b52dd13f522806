variable "switches" {
  description = "Leaf switches of the pod: a name, the address (`host:port`: gNMI on SONiC, NVUE on Cumulus), the operating system (`sonic`, the default, or `cumulus`), the ports that carry RoCE (the GPU downlinks), their cable length and, optionally, the port speed, the SONiC release and per-switch gNMI credentials that override the provider's."
  type = list(object({
    name            = string
    address         = string
    os              = optional(string, "sonic")
    ports           = list(string)
    cable_length_m  = optional(number, 5)
    port_speed_gbps = optional(number)
    sonic_release   = optional(string)
    gnmi = optional(object({
      username    = optional(string)
      password    = optional(string)
      ca_file     = optional(string)
      cert_file   = optional(string)
      key_file    = optional(string)
      server_name = optional(string)
      insecure    = optional(bool)
    }))
  }))

  validation {
    condition     = length(distinct([for s in var.switches : s.name])) == length(var.switches)
    error_message = "Switch names must be unique: they key the roce_switch_qos instances."
  }
  validation {
    condition     = alltrue([for s in var.switches : length(s.ports) > 0 && length(distinct(s.ports)) == length(s.ports)])
    error_message = "Every switch needs at least one RoCE port, each listed once."
  }
  validation {
    condition     = alltrue([for s in var.switches : s.cable_length_m >= 1 && floor(s.cable_length_m) == s.cable_length_m])
    error_message = "cable_length_m is a whole number of metres, at least 1."
  }
}

variable "hosts" {
  description = "GPU hosts of the pod: a name (the for_each key) and the SSH address (`host` or `host:port`). `hcas` and `devices` narrow what NCCL and DCQCN use on one host; by default NCCL gets mlx5_0 … mlx5_<nics_per_host - 1> and DCQCN every ConnectX port."
  type = list(object({
    name    = string
    address = string
    hcas    = optional(list(string))
    devices = optional(list(string))
  }))

  validation {
    condition     = length(distinct([for h in var.hosts : h.name])) == length(var.hosts)
    error_message = "Host names must be unique: they key the per-host resources."
  }
  validation {
    condition     = length(distinct([for h in var.hosts : h.address])) == length(var.hosts)
    error_message = "Two hosts share an address."
  }
}

variable "nics_per_host" {
  description = "RoCE NICs (rails) per host. A rail-optimised node has one per GPU: 8."
  type        = number
  default     = 8

  validation {
    condition     = var.nics_per_host >= 1 && var.nics_per_host <= 32 && floor(var.nics_per_host) == var.nics_per_host
    error_message = "nics_per_host is a whole number from 1 to 32."
  }
}

variable "policy" {
  description = <<-EOT
    The one fabric policy every switch, NIC and NCCL profile of the pod is built from, so they
    cannot disagree: the RDMA and CNP classes, ECN and PFC thresholds, schedulers, DCQCN
    overrides, NCCL settings, the OFED stack to pin and the GPUDirect mode. Only `ecn` and
    `pfc` are required; everything else defaults to NVIDIA's RoCE reference values.
  EOT
  type = object({
    rdma = optional(object({
      dscp     = optional(number, 26)
      priority = optional(number, 3)
    }), {})
    cnp = optional(object({
      dscp     = optional(number, 48)
      priority = optional(number, 6)
    }), {})
    ecn = object({
      min_threshold_bytes      = number
      max_threshold_bytes      = number
      mark_probability_percent = optional(number, 100)
    })
    pfc = object({
      pause_threshold_bytes = number
    })
    rdma_scheduler = optional(object({
      mode   = string
      weight = optional(number)
    }), { mode = "dwrr", weight = 50 })
    cnp_scheduler = optional(object({
      mode   = string
      weight = optional(number)
    }), { mode = "strict" })
    # Lossless classes beside the default (compute) one, such as storage on priority 4: each
    # switch's lossless_classes, the NICs' PFC and DCQCN, and fabric health's classes.
    lossless_classes = optional(list(object({
      name     = string
      dscp     = list(number)
      priority = number
      ecn = object({
        min_threshold_bytes      = number
        max_threshold_bytes      = number
        mark_probability_percent = optional(number, 100)
      })
      pfc = object({
        pause_threshold_bytes = number
      })
      scheduler = optional(object({
        mode   = string
        weight = optional(number)
      }))
    })), [])
    # SONiC's PFC watchdog on the RDMA priority of every RoCE port.
    pfc_watchdog = optional(object({
      action              = optional(string, "drop")
      detection_time_ms   = optional(number, 200)
      restoration_time_ms = optional(number, 200)
    }), {})

    # DCQCN parameters in human units; unset ones stay at the ConnectX firmware default.
    dcqcn = optional(object({
      gain                     = optional(number)
      alpha_update_period_us   = optional(number)
      initial_alpha            = optional(number)
      ai_rate_mbps             = optional(number)
      hai_rate_mbps            = optional(number)
      time_reset_us            = optional(number)
      byte_reset               = optional(number)
      min_rate_mbps            = optional(number)
      cut_floor_percent        = optional(number)
      min_time_between_cnps_us = optional(number)
    }), {})
    set_traffic_class = optional(bool, true)
    persist           = optional(bool, true)

    nccl = optional(object({
      path                = optional(string, "/etc/nccl.conf")
      profile_script_path = optional(string)
      socket_ifname       = optional(string)
      gid_index           = optional(string, "auto")
      qps_per_connection  = optional(number)
      cross_nic           = optional(number, 0)
      gdr_level           = optional(string)
      debug               = optional(string)
      debug_subsys        = optional(string)
      nccl_version        = optional(string)
      extra               = optional(map(string), {})
    }), {})

    # null leaves the hosts' RDMA stack as it is.
    ofed = optional(object({
      flavor          = string
      version         = optional(string)
      constraint      = optional(string)
      package_version = optional(string)
      repo_url        = optional(string)
      repo_urls       = optional(map(string), {})
      key             = optional(string)
      trusted         = optional(bool, false)
      # trusted for an http/https repository: its mirror could then feed root kernel modules.
      allow_unsigned_remote = optional(bool, false)
      packages              = optional(list(string))
      lock_timeout          = optional(string)
    }))
    family    = optional(string, "auto")
    gpudirect = optional(string, "auto")

    # Pre-flight checks read after the host resources; require_gdr defaults to gpudirect != "none".
    preflight = optional(object({
      require_gdr        = optional(bool)
      min_bar1_mib       = optional(number)
      expected_gid_index = optional(number)
    }), {})
  })

  validation {
    condition = alltrue([for d in [var.policy.rdma.dscp, var.policy.cnp.dscp] :
    d >= 0 && d <= 63 && floor(d) == d])
    error_message = "DSCP values are whole numbers from 0 to 63 (policy.rdma.dscp, policy.cnp.dscp)."
  }
  validation {
    condition     = var.policy.rdma.dscp != var.policy.cnp.dscp
    error_message = "policy.cnp.dscp must differ from policy.rdma.dscp: CNPs need their own class."
  }
  validation {
    condition = alltrue([for p in [var.policy.rdma.priority, var.policy.cnp.priority] :
    p >= 0 && p <= 7 && floor(p) == p])
    error_message = "Priorities are whole numbers from 0 to 7 (policy.rdma.priority, policy.cnp.priority)."
  }
  validation {
    condition     = var.policy.cnp.priority != var.policy.rdma.priority
    error_message = "policy.cnp.priority must differ from policy.rdma.priority: CNPs must not queue behind the data they throttle."
  }
  validation {
    condition = (var.policy.ecn.min_threshold_bytes < var.policy.ecn.max_threshold_bytes &&
    var.policy.ecn.max_threshold_bytes <= var.policy.pfc.pause_threshold_bytes)
    error_message = "Thresholds must satisfy ECN min < ECN max <= PFC pause (policy.ecn, policy.pfc): ECN has to slow senders before PFC pauses the link."
  }
  validation {
    condition = alltrue([for c in var.policy.lossless_classes :
      c.priority >= 0 && c.priority <= 7 && floor(c.priority) == c.priority && length(c.dscp) > 0 &&
    alltrue([for d in c.dscp : d >= 0 && d <= 63 && floor(d) == d])])
    error_message = "policy.lossless_classes: each class needs DSCP values (whole numbers 0-63) and a priority (a whole number 0-7)."
  }
  validation {
    condition = (length(distinct([for c in var.policy.lossless_classes : c.name])) == length(var.policy.lossless_classes) &&
    !contains([for c in var.policy.lossless_classes : c.name], "compute"))
    error_message = "policy.lossless_classes: class names must be unique and not \"compute\", the name of the default class (policy.rdma)."
  }
  validation {
    condition = (length(distinct([for c in var.policy.lossless_classes : c.priority])) == length(var.policy.lossless_classes) &&
      alltrue([for c in var.policy.lossless_classes : !contains([var.policy.rdma.priority, var.policy.cnp.priority], c.priority)]) &&
      length(distinct(flatten([for c in var.policy.lossless_classes : c.dscp]))) == length(flatten([for c in var.policy.lossless_classes : c.dscp])) &&
    alltrue([for c in var.policy.lossless_classes : !contains(c.dscp, var.policy.rdma.dscp) && !contains(c.dscp, var.policy.cnp.dscp)]))
    error_message = "policy.lossless_classes: every class needs a priority and DSCPs of its own, none shared with another class, policy.rdma or policy.cnp."
  }
  validation {
    condition = alltrue([for c in var.policy.lossless_classes :
    c.ecn.min_threshold_bytes < c.ecn.max_threshold_bytes && c.ecn.max_threshold_bytes <= c.pfc.pause_threshold_bytes])
    error_message = "policy.lossless_classes: each class's thresholds must satisfy ECN min < ECN max <= PFC pause (ecn, pfc)."
  }
  validation {
    condition     = var.policy.ecn.mark_probability_percent >= 1 && var.policy.ecn.mark_probability_percent <= 100
    error_message = "policy.ecn.mark_probability_percent is 1-100."
  }
  validation {
    condition     = contains(["auto", "peermem", "dmabuf", "none"], var.policy.gpudirect)
    error_message = "policy.gpudirect is auto, peermem, dmabuf or none."
  }
  validation {
    condition     = var.policy.ofed == null || contains(["doca", "mlnx"], try(var.policy.ofed.flavor, ""))
    error_message = "policy.ofed.flavor is doca (DOCA-OFED) or mlnx (MLNX_OFED)."
  }
  validation {
    condition     = var.policy.nccl.cross_nic == null || contains([0, 1, 2], var.policy.nccl.cross_nic)
    error_message = "policy.nccl.cross_nic is 0 (rail-optimised), 1 or 2."
  }
}

variable "checks" {
  description = <<-EOT
    Proof that the pod works, as `check` blocks (warnings on plan and apply, never a failed
    run): `fabric_health` samples every SONiC leaf's and every host's counters
    `interval_seconds` apart (run it while traffic flows) and names each port or NIC at fault;
    `nccl_test` runs nccl-tests' all_reduce_perf across every host (mpirun from the first) and
    judges its bus bandwidth against `min_busbw_gbps` and `min_busbw_fraction` of what
    `nics_per_host` rails should carry (`rail_gbps` each, else read from the hosts; the run then
    uses NCCL_ALGO=Ring). Both are off by default: they take time
    on every plan.
  EOT
  type = object({
    fabric_health      = optional(bool, false)
    interval_seconds   = optional(number, 5)
    nccl_test          = optional(bool, false)
    nccl_binary        = optional(string, "all_reduce_perf")
    mpi_args           = optional(list(string), [])
    gpus_per_host      = optional(number, 8)
    max_bytes          = optional(string, "1G")
    min_busbw_gbps     = optional(number)
    min_busbw_fraction = optional(number)
    rail_gbps          = optional(number)
  })
  default = {}
}

variable "rollout" {
  description = <<-EOT
    Staged rollout with a health gate (guide: staged-rollout). `canary_switches` and
    `canary_hosts` name the canary (by `switches[*].name` and `hosts[*].name`): its resources
    are applied first, then `roce_fabric_health` samples the canary's switches and hosts
    `interval_seconds` apart (and, with `nccl_test`, all_reduce_perf runs across its hosts
    against `min_busbw_gbps`), and every other switch and host is changed only when every
    verdict passed; otherwise the run stops with the failed verdicts. Empty (the default) is
    no rollout: every resource is applied at once, as before. `gate = false` keeps the
    canary's resources apart (their addresses) but stops gating on them.
  EOT
  type = object({
    canary_switches  = optional(list(string), [])
    canary_hosts     = optional(list(string), [])
    gate             = optional(bool, true)
    interval_seconds = optional(number, 10)
    nccl_test        = optional(bool, false)
    min_busbw_gbps   = optional(number)
  })
  default  = {}
  nullable = false

  validation {
    condition     = length(distinct(var.rollout.canary_switches)) == length(var.rollout.canary_switches) && length(distinct(var.rollout.canary_hosts)) == length(var.rollout.canary_hosts)
    error_message = "rollout.canary_switches and rollout.canary_hosts name each canary once."
  }
  validation {
    condition     = var.rollout.interval_seconds >= 1 && floor(var.rollout.interval_seconds) == var.rollout.interval_seconds
    error_message = "rollout.interval_seconds is a whole number of seconds, at least 1."
  }
  validation {
    condition     = !var.rollout.nccl_test || var.rollout.min_busbw_gbps != null
    error_message = "rollout.nccl_test gates on a bus bandwidth: set rollout.min_busbw_gbps."
  }
}
