# Is the fabric lossless? Two samples of every switch port's and NIC's counters, ten seconds
# apart, taken while a training job or an NCCL test runs, judged into verdicts with remedies.
data "roce_fabric_health" "pod" {
  switches = [
    { address = "10.0.0.1:8080", os = "sonic" },
    { address = "leaf2.example.net", os = "cumulus" },
  ]
  hosts            = ["10.0.1.11", "10.0.1.12"]
  priority         = 3
  interval_seconds = 10
}

# A pipeline gates on the verdict; each failure names the switch port or NIC and the fix.
check "fabric_lossless" {
  assert {
    condition     = data.roce_fabric_health.pod.ok
    error_message = join("\n", data.roce_fabric_health.pod.failures)
  }
}
