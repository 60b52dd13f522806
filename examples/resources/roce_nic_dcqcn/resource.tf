# DCQCN and host QoS on every ConnectX port of a node: NP/RP on priority 3, CNPs at DSCP 48 /
# priority 6 (the switch's CNP class), trust dscp, PFC on priority 3, traffic class 106, and a
# boot-time unit that re-applies it all.
resource "roce_nic_dcqcn" "gpu1" {
  host      = "10.0.1.11"
  priority  = 3
  rdma_dscp = 26
  cnp       = { dscp = 48, priority = 6 }

  # Firmware defaults unless set; human units.
  dcqcn = {
    ai_rate_mbps  = 5
    hai_rate_mbps = 50
  }
}

output "gpu1_dcqcn_reboot_required" {
  value = roce_nic_dcqcn.gpu1.reboot_required
}
