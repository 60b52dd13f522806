locals {
  # Both stages' resources (rollout.tf), by name.
  all_switches  = merge(roce_switch_qos.leaf, roce_switch_qos.canary)
  all_bootstrap = merge(roce_host_bootstrap.node, roce_host_bootstrap.canary)
  all_dcqcn     = merge(roce_nic_dcqcn.node, roce_nic_dcqcn.canary)
  all_nccl      = merge(roce_nccl_env_profile.node, roce_nccl_env_profile.canary)

  # How each host took DCQCN (OFED sysfs, debugfs cc_params or NV config (mlxconfig)), as the
  # last change reported it: "dcqcn: set DCQCN of <netdevs> through OFED sysfs: ...", "... through
  # debugfs <pci>: ..." or "dcqcn: store DCQCN of <netdev> in NV config (mlxconfig <pci>): ...".
  dcqcn_mechanisms = { for name, r in local.all_dcqcn : name => distinct(flatten([
    for line in r.planned_changes : regexall("^dcqcn: (?:set|store) DCQCN of .+? (?:through|in) (OFED sysfs|debugfs|NV config)", line)
  ])) }

  # Each host's pre-flight verdict, read from the data source once: every expression that
  # names data.roce_gdr_preflight.node makes Terraform decode all of its instances, even as
  # node[each.key] (terraform v1.8.5, internal/terraform/evaluate.go, GetResource), so the
  # outputs below read this map instead.
  preflight = { for name, p in data.roce_gdr_preflight.node : name => {
    ok       = p.ok
    passed   = p.passed
    failed   = p.failed
    failures = p.failures
  } }
}

output "traffic_class" {
  description = "The ToS byte of RoCE data (NCCL_IB_TC and the NICs' traffic class): the RDMA DSCP << 2 | ECT(0)."
  value       = local.traffic_class
}

output "traffic_classes" {
  description = "Each lossless class by name, the default one as compute: its DSCPs, its priority and its ToS byte (the first DSCP << 2 | ECT(0)), for a storage configuration to set its class's ToS. NCCL uses compute's."
  value       = local.traffic_classes
}

output "threshold_warnings" {
  description = "Findings of provider::roce::ecn_pfc_findings that do not block the plan."
  value       = [for f in local.threshold_findings : f if startswith(f, "warning:")]
}

output "switches" {
  description = "Per switch: its address and operating system, the RoCE ports, the cable length, the lossless headroom per port (what SONiC reserves; on Cumulus the Spectrum-4 estimate, as Cumulus sizes it itself), and whether it held this configuration at the last refresh."
  value = { for name, s in local.all_switches : name => {
    address        = s.address
    os             = s.os
    ports          = s.ports
    port_count     = length(s.ports)
    cable_length_m = s.cable_length_m
    headroom       = s.headroom
    rdma           = s.rdma
    cnp            = s.cnp
    in_sync        = s.in_sync
  } }
}

output "preflight" {
  description = "GPUDirect RDMA pre-flight verdicts per host: ok, the counts, and one line with a remedy per failed check."
  value       = local.preflight
}

output "preflight_ok" {
  description = "Whether every host passed every pre-flight check."
  value       = alltrue([for p in local.preflight : p.ok])
}

output "hosts" {
  description = "Per host: the OFED stack running, the GPUDirect mode, how DCQCN and host QoS were set (OFED sysfs, debugfs cc_params or NV config through mlxconfig) and whether they hold, the NCCL file and the pre-flight verdict. The priorities and DSCPs, the same on every host, are in traffic_classes."
  value = { for name, h in local.hosts : name => {
    address         = h.address
    ofed_version    = local.all_bootstrap[name].ofed_running_version
    gpudirect_mode  = local.all_bootstrap[name].gpudirect_mode
    reboot_required = local.all_bootstrap[name].reboot_required || local.all_dcqcn[name].reboot_required
    # The priorities, DSCPs and ToS are the pod's, in traffic_classes: kept once, not per host.
    dcqcn = {
      mechanism       = length(local.dcqcn_mechanisms[name]) > 0 ? join(", ", local.dcqcn_mechanisms[name]) : "unchanged by the last apply"
      reboot_required = local.all_dcqcn[name].reboot_required
      in_sync         = local.all_dcqcn[name].in_sync
    }
    nccl = {
      path     = local.all_nccl[name].path
      rendered = local.all_nccl[name].rendered
    }
    preflight = {
      ok     = local.preflight[name].ok
      passed = local.preflight[name].passed
      failed = local.preflight[name].failed
    }
  } }
}

output "fabric_health" {
  description = "The fabric health verdict (var.checks.fabric_health): ok, the failures with their remedies, and the seconds sampled; null when off."
  value = one([for d in data.roce_fabric_health.pod : {
    ok       = d.ok
    failures = d.failures
    seconds  = d.seconds
  }])
}

output "nccl_test" {
  description = "The NCCL test verdict (var.checks.nccl_test): ok, bus bandwidth at the largest size, the network NCCL used and the failures; null when off."
  value = one([for d in data.roce_nccl_test.pod : {
    ok         = d.ok
    busbw_gbps = d.busbw_gbps
    network    = d.network
    failures   = d.failures
  }])
}

output "rollout" {
  description = "The staged rollout (var.rollout): the canary's switches and hosts, and the health gate's verdict (ok, the failures with their remedies, and the NCCL test's ok and bus bandwidth when it ran; no sample times, so a plan that reads a healthy canary again stays empty); gate null without a rollout."
  value = {
    canary_switches = keys(local.canary_switches)
    canary_hosts    = keys(local.canary_hosts)
    gate = local.staged ? {
      ok         = local.gate_open
      failures   = local.gate_failures
      nccl_ok    = one(data.roce_nccl_test.canary[*].ok)
      busbw_gbps = one(data.roce_nccl_test.canary[*].busbw_gbps)
    } : null
  }
}
