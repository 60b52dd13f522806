output "pod" {
  description = "What this pod's state holds: its switches and hosts, and the policy they were built from."
  value = {
    switches = [for s in var.switches : s.name]
    hosts    = [for h in var.hosts : h.name]
    ecn      = local.fabric_policy.ecn
  }
}
