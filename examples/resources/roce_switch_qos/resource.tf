# A leaf whose 32 downlinks carry RoCE: DSCP 26 lossless on priority 3, CNPs on priority 6
# (strict), ECN marking from 100 KiB, PFC pause designed at 2.5x that.
resource "roce_switch_qos" "leaf1" {
  address        = "10.0.0.1:50051"
  ports          = [for i in range(32) : "Ethernet${i * 8}"]
  cable_length_m = 5

  rdma = { dscp = [26], priority = 3 }
  cnp  = { dscp = 48, priority = 6 }
  ecn  = { min_threshold_bytes = 102400, max_threshold_bytes = 153600, mark_probability_percent = 100 }
  pfc  = { pause_threshold_bytes = 256000 }

  rdma_scheduler = { mode = "dwrr", weight = 50 }
  pfc_watchdog   = { action = "drop", detection_time_ms = 200, restoration_time_ms = 200 }
}

# What SONiC will reserve per port, and what the next apply sends.
output "leaf1_headroom" {
  value = roce_switch_qos.leaf1.headroom
}

output "leaf1_planned_operations" {
  value = roce_switch_qos.leaf1.planned_operations
}
