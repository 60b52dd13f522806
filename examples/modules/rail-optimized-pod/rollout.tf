# Staged rollout (var.rollout; docs/guides/staged-rollout.md): the canary's switches and hosts
# take the policy first, a health read that depends on them samples the canary under traffic,
# and every other resource of the pod is gated on its verdict. The gate is a postcondition on
# that read (one error naming each failed verdict) and a precondition on every gated resource
# (main.tf), whose reference to the verdict is also what orders the rest after the read.
#
# Terraform reads a data source at plan time unless a managed resource it depends on has a
# change pending; then it defers the read to the apply, right after that change (terraform
# v1.8.5, internal/terraform/node_resource_abstract_instance.go, planDataSource and
# dependenciesHavePendingChanges). So a plan that changes the canary shows the gate "will be
# read during apply" and the rest's changes waiting on it, and one that leaves the canary as it
# is samples it at plan time: an unhealthy canary then fails the plan itself.
#
# The canary's resources take the same arguments as the rest's in main.tf; keep them in step.

locals {
  staged = var.rollout.gate && (length(var.rollout.canary_switches) + length(var.rollout.canary_hosts)) > 0

  unknown_canaries = concat(
    [for n in var.rollout.canary_switches : "switch ${n}" if !contains(keys(local.switches), n)],
    [for n in var.rollout.canary_hosts : "host ${n}" if !contains(keys(local.hosts), n)],
  )

  gate_failures = concat(
    flatten([for d in data.roce_fabric_health.canary : d.failures]),
    flatten([for d in data.roce_nccl_test.canary : d.failures]),
  )
  gate_open = alltrue(concat(
    [for d in data.roce_fabric_health.canary : d.ok],
    [for d in data.roce_nccl_test.canary : d.ok],
  ))
  canary_names = join(", ", concat(var.rollout.canary_switches, var.rollout.canary_hosts))
  gate_format  = "Staged rollout held at the health gate: the canary (%s) failed its %s gate: %d verdict(s) failed, so the rest of the pod was left as it is. Fix the canary or re-apply the previous policy to it, then apply again.\n%s"
  gate_message = format(local.gate_format, local.canary_names, "health", length(local.gate_failures), join("\n", local.gate_failures))
}

resource "roce_switch_qos" "canary" {
  for_each = local.canary_switches

  address         = each.value.address
  os              = each.value.os
  ports           = each.value.ports
  cable_length_m  = each.value.cable_length_m
  port_speed_gbps = each.value.port_speed_gbps
  sonic_release   = each.value.sonic_release
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
  }
}

resource "roce_host_bootstrap" "canary" {
  for_each = local.canary_hosts

  host      = each.value.address
  family    = var.policy.family
  ofed      = local.ofed[each.key]
  gpudirect = var.policy.gpudirect
}

resource "roce_nic_dcqcn" "canary" {
  for_each = local.canary_hosts

  host              = each.value.address
  devices           = each.value.devices
  priority          = local.rdma.priority
  rdma_dscp         = local.rdma.dscp
  cnp               = local.switch_policy.cnp
  dcqcn             = local.dcqcn
  pfc_priorities    = local.pfc_priorities
  set_traffic_class = var.policy.set_traffic_class
  persist           = var.policy.persist

  depends_on = [roce_host_bootstrap.canary]
}

resource "roce_nccl_env_profile" "canary" {
  for_each = local.canary_hosts

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
}

# The gate: the canary's counters sampled under traffic once its resources are applied.
data "roce_fabric_health" "canary" {
  count = local.staged ? 1 : 0

  switches         = [for s in local.canary_switches : { address = s.address, os = s.os }]
  hosts            = [for h in local.canary_hosts : h.address]
  priority         = local.rdma.priority
  classes          = local.health_classes
  interval_seconds = var.rollout.interval_seconds

  depends_on = [roce_switch_qos.canary, roce_host_bootstrap.canary, roce_nic_dcqcn.canary, roce_nccl_env_profile.canary]

  lifecycle {
    precondition {
      condition     = length(local.unknown_canaries) == 0
      error_message = "rollout names canaries the pod does not have: ${join(", ", local.unknown_canaries)}."
    }
    # The message is built from self: a reference to this read through local.gate_message
    # would be a cycle.
    postcondition {
      condition     = self.ok
      error_message = format(local.gate_format, local.canary_names, "fabric health", self.failed, join("\n", self.failures))
    }
  }
}

# Optionally, all_reduce_perf across the canary's hosts, judged against min_busbw_gbps.
data "roce_nccl_test" "canary" {
  count = local.staged && var.rollout.nccl_test ? 1 : 0

  hosts          = [for h in local.canary_hosts : h.address]
  mpi_hosts      = [for h in local.canary_hosts : h.name]
  binary         = var.checks.nccl_binary
  mpi_args       = var.checks.mpi_args
  gpus_per_host  = var.checks.gpus_per_host
  max_bytes      = var.checks.max_bytes
  min_busbw_gbps = var.rollout.min_busbw_gbps
  rails          = var.nics_per_host

  depends_on = [roce_switch_qos.canary, roce_host_bootstrap.canary, roce_nic_dcqcn.canary, roce_nccl_env_profile.canary]

  lifecycle {
    # On one host the run never crosses the network, and its nccl_gdrdma_channels verdict fails.
    precondition {
      condition     = length(local.canary_hosts) >= 2
      error_message = "rollout.nccl_test runs all_reduce_perf across the canary's hosts: name at least two in rollout.canary_hosts, or the run stays on one host and proves nothing about the network."
    }
    postcondition {
      condition     = self.ok
      error_message = format(local.gate_format, local.canary_names, "NCCL test", length(self.failures), join("\n", self.failures))
    }
  }
}
