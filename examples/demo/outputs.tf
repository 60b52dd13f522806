output "traffic_class" {
  description = "NCCL_IB_TC and the NICs' traffic class of RoCE data."
  value       = module.pod.traffic_class
}

output "traffic_classes" {
  description = "Each lossless class (compute for NCCL, storage): its DSCPs, priority and ToS byte."
  value       = module.pod.traffic_classes
}

output "switches" {
  description = "Per switch: ports, cable length, lossless headroom per port, in sync."
  value       = module.pod.switches
}

output "hosts" {
  description = "Per host: OFED, GPUDirect, DCQCN, NCCL file and pre-flight."
  value       = module.pod.hosts
}

output "preflight" {
  description = "GPUDirect RDMA pre-flight verdicts per host."
  value       = module.pod.preflight
}

output "preflight_ok" {
  description = "Whether every host passed every pre-flight check."
  value       = module.pod.preflight_ok
}

# What was configured where, for people: `terraform output -raw summary`.
output "summary" {
  description = "A readable account of what the apply configured on each switch and host."
  value = join("\n", concat(
    ["Lossless classes (PFC and ECN on every switch port, PFC and DCQCN on every NIC):"],
    [for name, c in module.pod.traffic_classes : "  ${name}: DSCP ${join(",", c.dscp)} -> priority ${c.priority}, ToS ${c.tos}"],
    ["Switches (SONiC: CONFIG_DB over gNMI; Cumulus: NVUE revisions); NCCL's RoCE data travels with ToS ${module.pod.traffic_class}:"],
    flatten([for name, s in module.pod.switches : [
      "  ${name} ${s.address} (${s.os == "cumulus" ? "Cumulus" : "SONiC"}): ${s.port_count} lossless ports ${s.ports[0]}..${s.ports[length(s.ports) - 1]}, cable ${s.cable_length_m} m, in sync: ${s.in_sync}",
      "      DSCP ${join(",", s.rdma.dscp)} -> TC ${s.rdma.priority} (PFC, ECN), CNP DSCP ${s.cnp.dscp} -> TC ${s.cnp.priority}",
      "      headroom ${s.headroom.size_bytes} B per port (xoff ${s.headroom.xoff_bytes} B, xon ${s.headroom.xon_bytes} B), ${s.port_count * s.headroom.size_bytes} B per switch${s.os == "cumulus" ? " (estimate: Cumulus sizes it from the PFC cable length)" : ""}",
    ]]),
    ["Hosts (SSH):"],
    flatten([for name, h in module.pod.hosts : [
      "  ${name} ${h.address}: OFED ${h.ofed_version}, GPUDirect ${h.gpudirect_mode}, reboot required: ${h.reboot_required}",
      "      DCQCN through ${h.dcqcn.mechanism}, in sync: ${h.dcqcn.in_sync}",
      "      ${h.nccl.path}: ${join(" ", compact(split("\n", h.nccl.rendered)))}",
      "      preflight: ${h.preflight.ok ? "ok" : "FAILED"} (${h.preflight.passed} checks passed, ${h.preflight.failed} failed)",
    ]]),
    ["Preflight: ${length([for p in module.pod.preflight : p if p.ok])} of ${length(module.pod.preflight)} hosts ok"],
    flatten([for name, p in module.pod.preflight : [for f in p.failures : "  ${name}: ${f}"]]),
  ))
}

output "fabric_health" {
  description = "The fabric health verdict, when var.checks.fabric_health is on."
  value       = module.pod.fabric_health
}

output "rollout" {
  description = "The canary and its health gate's verdict."
  value       = module.pod.rollout
}

output "nccl_test" {
  description = "The NCCL test verdict, when var.checks.nccl_test is on."
  value       = module.pod.nccl_test
}
