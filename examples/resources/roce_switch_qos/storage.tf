# A SONiC 202511 leaf carrying NCCL traffic (DSCP 26, priority 3) and NVMe-oF storage
# (DSCP 34, priority 4) on separate lossless priorities, SONiC's stock lossless pair. Each
# class has its own ECN marking and PFC pause threshold; CNPs stay strict on priority 6.
resource "roce_switch_qos" "leaf2" {
  address        = "10.0.0.2:50051"
  ports          = [for i in range(32) : "Ethernet${i * 8}"]
  cable_length_m = 5

  rdma = { dscp = [26], priority = 3 }
  ecn  = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }
  pfc  = { pause_threshold_bytes = 256000 }

  lossless_classes = [{
    name      = "storage"
    dscp      = [34]
    priority  = 4
    ecn       = { min_threshold_bytes = 204800, max_threshold_bytes = 409600 }
    pfc       = { pause_threshold_bytes = 512000 }
    scheduler = { mode = "dwrr", weight = 30 }
  }]
}
