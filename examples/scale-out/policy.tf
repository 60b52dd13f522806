# The fabric policy: the one place every pod's switches, NICs and NCCL profiles are rendered
# from, so pods cannot drift apart. Change it here, then apply it pod by pod. Only where a
# pod's packages come from (its site's mirror, var.ofed_repo_urls) is set per pod.
locals {
  fabric_policy = {
    rdma = { dscp = 26, priority = 3 }
    cnp  = { dscp = 48, priority = 6 }
    ecn  = { min_threshold_bytes = 102400, max_threshold_bytes = 153600, mark_probability_percent = 100 }
    pfc  = { pause_threshold_bytes = 256000 }

    pfc_watchdog = { action = "drop", detection_time_ms = 200, restoration_time_ms = 200 }
    dcqcn        = { ai_rate_mbps = 10, min_time_between_cnps_us = 4 }

    nccl = { qps_per_connection = 4, cross_nic = 0 }

    # One DOCA-OFED release for the whole fabric; a pod without a mirror leaves its hosts' stack alone.
    ofed = var.ofed_repo_urls == null ? null : {
      flavor    = "doca"
      version   = "25.10-1.7.1"
      repo_urls = var.ofed_repo_urls
    }
    gpudirect = "auto"
  }
}
