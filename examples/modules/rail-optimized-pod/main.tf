# A rail-optimised RoCE pod from one fabric policy: lossless QoS on every leaf, and on every
# GPU host the pinned OFED stack with GPUDirect RDMA, DCQCN and host QoS on each ConnectX port,
# and the NCCL environment. The switch, the NIC and NCCL take the RDMA DSCP, the priority and the
# CNP class from the same object, so they cannot disagree. The caller configures the provider.

locals {
  switches = { for s in var.switches : s.name => s }
  hosts    = { for h in var.hosts : h.name => h }

  rdma = var.policy.rdma
  cnp  = var.policy.cnp
  nccl = var.policy.nccl

  # NCCL_IB_TC and the NICs' traffic class: DSCP << 2 | ECT(0).
  traffic_class = provider::roce::tos(local.rdma.dscp, 2)

  # The lossless classes beside the default one. Left out (the default), every argument
  # below is null, so a pod built before the list plans no change.
  classes = var.policy.lossless_classes
  lossless_classes = length(local.classes) == 0 ? null : [for c in local.classes : {
    name     = c.name
    dscp     = c.dscp
    priority = c.priority
    ecn = {
      min_threshold_bytes      = c.ecn.min_threshold_bytes
      max_threshold_bytes      = c.ecn.max_threshold_bytes
      mark_probability_percent = c.ecn.mark_probability_percent
    }
    pfc       = { pause_threshold_bytes = c.pfc.pause_threshold_bytes }
    scheduler = c.scheduler == null ? null : { mode = c.scheduler.mode, weight = c.scheduler.weight }
  }]
  # The NICs' lossless priorities: PFC and DCQCN on the default priority and every class's.
  pfc_priorities = length(local.classes) == 0 ? null : concat([local.rdma.priority], [for c in local.classes : c.priority])
  # Fabric health names each class in its verdicts ("priority 4 (storage)").
  health_classes = length(local.classes) == 0 ? null : merge({ compute = local.rdma.priority }, { for c in local.classes : c.name => c.priority })

  # Each class's DSCPs, priority and ToS (its first DSCP << 2 | ECT(0)), the default one as
  # compute: what a storage configuration sets as its ToS. NCCL keeps compute's.
  traffic_classes = merge(
    { compute = { dscp = [local.rdma.dscp], priority = local.rdma.priority, tos = local.traffic_class } },
    { for c in local.classes : c.name => { dscp = c.dscp, priority = c.priority, tos = provider::roce::tos(c.dscp[0], 2) } },
  )

  threshold_findings = provider::roce::ecn_pfc_findings(
    var.policy.ecn.min_threshold_bytes, var.policy.ecn.max_threshold_bytes, var.policy.pfc.pause_threshold_bytes,
  )

  default_hcas = [for i in range(var.nics_per_host) : "mlx5_${i}"]

  # The rollout's stages (rollout.tf): the canary's switches and hosts, and the rest, which
  # without a rollout is the whole pod (the addresses of today's resources are the rest's).
  canary_switches = { for n, s in local.switches : n => s if contains(var.rollout.canary_switches, n) }
  canary_hosts    = { for n, h in local.hosts : n => h if contains(var.rollout.canary_hosts, n) }
  rest_switches   = { for n, s in local.switches : n => s if !contains(var.rollout.canary_switches, n) }
  rest_hosts      = { for n, h in local.hosts : n => h if !contains(var.rollout.canary_hosts, n) }
}

# The policy's nested arguments, shared by both stages' resources (rollout.tf). Each is spelled
# out attribute by attribute, so it is a known object even while Terraform validates the module
# with its inputs still unknown.
locals {
  switch_policy = {
    rdma = { dscp = [local.rdma.dscp], priority = local.rdma.priority }
    cnp  = { dscp = local.cnp.dscp, priority = local.cnp.priority }
    ecn = {
      min_threshold_bytes      = var.policy.ecn.min_threshold_bytes
      max_threshold_bytes      = var.policy.ecn.max_threshold_bytes
      mark_probability_percent = var.policy.ecn.mark_probability_percent
    }
    pfc            = { pause_threshold_bytes = var.policy.pfc.pause_threshold_bytes }
    rdma_scheduler = { mode = var.policy.rdma_scheduler.mode, weight = var.policy.rdma_scheduler.weight }
    cnp_scheduler  = { mode = var.policy.cnp_scheduler.mode, weight = var.policy.cnp_scheduler.weight }
    pfc_watchdog = {
      action              = var.policy.pfc_watchdog.action
      detection_time_ms   = var.policy.pfc_watchdog.detection_time_ms
      restoration_time_ms = var.policy.pfc_watchdog.restoration_time_ms
    }
  }
  threshold_errors = [for f in local.threshold_findings : f if startswith(f, "error:")]

  dcqcn = {
    gain                     = var.policy.dcqcn.gain
    alpha_update_period_us   = var.policy.dcqcn.alpha_update_period_us
    initial_alpha            = var.policy.dcqcn.initial_alpha
    ai_rate_mbps             = var.policy.dcqcn.ai_rate_mbps
    hai_rate_mbps            = var.policy.dcqcn.hai_rate_mbps
    time_reset_us            = var.policy.dcqcn.time_reset_us
    byte_reset               = var.policy.dcqcn.byte_reset
    min_rate_mbps            = var.policy.dcqcn.min_rate_mbps
    cut_floor_percent        = var.policy.dcqcn.cut_floor_percent
    min_time_between_cnps_us = var.policy.dcqcn.min_time_between_cnps_us
  }
}

# Every switch outside the rollout's canary (without a rollout, every switch).
resource "roce_switch_qos" "leaf" {
  for_each = local.rest_switches

  address         = each.value.address
  os              = each.value.os
  ports           = each.value.ports
  cable_length_m  = each.value.cable_length_m
  port_speed_gbps = each.value.port_speed_gbps
  sonic_release   = each.value.sonic_release
  # Per-switch credentials; attributes left null fall back to the provider's gnmi settings
  # (Cumulus switches use the provider's nvue block).
  gnmi = each.value.os == "cumulus" ? null : {
    username    = try(each.value.gnmi.username, null)
    password    = try(each.value.gnmi.password, null)
    ca_file     = try(each.value.gnmi.ca_file, null)
    cert_file   = try(each.value.gnmi.cert_file, null)
    key_file    = try(each.value.gnmi.key_file, null)
    server_name = try(each.value.gnmi.server_name, null)
    insecure    = try(each.value.gnmi.insecure, null)
  }

  rdma           = local.switch_policy.rdma
  cnp            = local.switch_policy.cnp
  ecn            = local.switch_policy.ecn
  pfc            = local.switch_policy.pfc
  rdma_scheduler = local.switch_policy.rdma_scheduler
  cnp_scheduler  = local.switch_policy.cnp_scheduler
  pfc_watchdog   = local.switch_policy.pfc_watchdog

  lossless_classes = local.lossless_classes

  lifecycle {
    precondition {
      condition     = length(local.threshold_errors) == 0
      error_message = join("\n", local.threshold_findings)
    }
    # The rollout's health gate (rollout.tf): open without a rollout.
    precondition {
      condition     = local.gate_open
      error_message = local.gate_message
    }
  }
}

# Each host's OFED settings. A fleet of Debian and RHEL hosts takes its packages from one
# repository per family (policy.ofed.repo_urls): roce_host_bootstrap picks each host's entry
# by the family it reads at plan, with repo_url standing in for a family the map leaves out.
locals {
  ofed_repo_urls = var.policy.ofed == null ? {} : merge(
    var.policy.ofed.repo_url == null || length(var.policy.ofed.repo_urls) == 0 ? tomap({}) : tomap({ debian = var.policy.ofed.repo_url, rhel = var.policy.ofed.repo_url }),
    var.policy.ofed.repo_urls,
  )
  ofed = { for name in keys(local.hosts) : name => var.policy.ofed == null ? null : {
    flavor                = var.policy.ofed.flavor
    version               = var.policy.ofed.version
    constraint            = var.policy.ofed.constraint
    package_version       = var.policy.ofed.package_version
    repo_url              = length(local.ofed_repo_urls) > 0 ? null : var.policy.ofed.repo_url
    repo_urls             = length(local.ofed_repo_urls) > 0 ? local.ofed_repo_urls : null
    key                   = var.policy.ofed.key
    trusted               = var.policy.ofed.trusted
    allow_unsigned_remote = var.policy.ofed.allow_unsigned_remote
    packages              = var.policy.ofed.packages
    lock_timeout          = var.policy.ofed.lock_timeout
  } }
}

# The RDMA stack first: OFED pinned and held, then GPUDirect (peermem or DMA-BUF). Every host
# outside the rollout's canary (without a rollout, every host).
resource "roce_host_bootstrap" "node" {
  for_each = local.rest_hosts

  host      = each.value.address
  family    = var.policy.family
  ofed      = local.ofed[each.key]
  gpudirect = var.policy.gpudirect

  lifecycle {
    precondition {
      condition     = local.gate_open
      error_message = local.gate_message
    }
  }
}

# DCQCN and host QoS on the ConnectX ports, once the stack they go through is in place.
resource "roce_nic_dcqcn" "node" {
  for_each = local.rest_hosts

  host              = each.value.address
  devices           = each.value.devices
  priority          = local.rdma.priority
  rdma_dscp         = local.rdma.dscp
  cnp               = local.switch_policy.cnp
  dcqcn             = local.dcqcn
  pfc_priorities    = local.pfc_priorities
  set_traffic_class = var.policy.set_traffic_class
  persist           = var.policy.persist

  depends_on = [roce_host_bootstrap.node]

  lifecycle {
    precondition {
      condition     = local.gate_open
      error_message = local.gate_message
    }
  }
}

resource "roce_nccl_env_profile" "node" {
  for_each = local.rest_hosts

  host                = each.value.address
  path                = local.nccl.path
  profile_script_path = local.nccl.profile_script_path
  hcas                = coalesce(each.value.hcas, local.default_hcas)
  socket_ifname       = local.nccl.socket_ifname
  rdma_dscp           = local.rdma.dscp
  gid_index           = local.nccl.gid_index
  qps_per_connection  = local.nccl.qps_per_connection
  cross_nic           = local.nccl.cross_nic
  gdr_level           = local.nccl.gdr_level
  debug               = local.nccl.debug
  debug_subsys        = local.nccl.debug_subsys
  nccl_version        = local.nccl.nccl_version
  extra               = length(local.nccl.extra) > 0 ? local.nccl.extra : null

  lifecycle {
    precondition {
      condition     = local.gate_open
      error_message = local.gate_message
    }
  }
}

# Judged once the host resources are applied: on a ConnectX-7 node with the proprietary driver,
# nvidia-peermem is only loaded by roce_host_bootstrap.
data "roce_gdr_preflight" "node" {
  for_each = local.hosts

  host               = each.value.address
  require_gdr        = coalesce(var.policy.preflight.require_gdr, var.policy.gpudirect != "none")
  min_bar1_mib       = var.policy.preflight.min_bar1_mib
  expected_gid_index = var.policy.preflight.expected_gid_index

  depends_on = [
    roce_host_bootstrap.node, roce_nic_dcqcn.node, roce_nccl_env_profile.node,
    roce_host_bootstrap.canary, roce_nic_dcqcn.canary, roce_nccl_env_profile.canary,
  ]
}

# Proof that the pod is lossless and fast, once everything above is applied (var.checks):
# every leaf, whatever its operating system, and every host.
data "roce_fabric_health" "pod" {
  count = var.checks.fabric_health ? 1 : 0

  switches         = [for s in var.switches : { address = s.address, os = s.os }]
  hosts            = [for h in var.hosts : h.address]
  priority         = local.rdma.priority
  classes          = local.health_classes
  interval_seconds = var.checks.interval_seconds

  depends_on = [roce_switch_qos.leaf, roce_nic_dcqcn.node, roce_switch_qos.canary, roce_nic_dcqcn.canary]
}

data "roce_nccl_test" "pod" {
  count = var.checks.nccl_test ? 1 : 0

  hosts              = [for h in var.hosts : h.address]
  mpi_hosts          = [for h in var.hosts : h.name]
  binary             = var.checks.nccl_binary
  mpi_args           = var.checks.mpi_args
  gpus_per_host      = var.checks.gpus_per_host
  max_bytes          = var.checks.max_bytes
  min_busbw_gbps     = var.checks.min_busbw_gbps
  min_busbw_fraction = var.checks.min_busbw_fraction
  rail_gbps          = var.checks.rail_gbps
  rails              = var.nics_per_host

  depends_on = [
    roce_host_bootstrap.node, roce_nic_dcqcn.node, roce_nccl_env_profile.node, roce_switch_qos.leaf,
    roce_host_bootstrap.canary, roce_nic_dcqcn.canary, roce_nccl_env_profile.canary, roce_switch_qos.canary,
  ]
}

check "fabric_lossless" {
  assert {
    condition     = alltrue([for d in data.roce_fabric_health.pod : d.ok])
    error_message = join("\n", flatten([for d in data.roce_fabric_health.pod : d.failures]))
  }
}

check "nccl_bandwidth" {
  assert {
    condition     = alltrue([for d in data.roce_nccl_test.pod : d.ok])
    error_message = join("\n", flatten([for d in data.roce_nccl_test.pod : d.failures]))
  }
}
