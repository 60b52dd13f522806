# A rail-optimised pod on twins of the hardware: `make demo` starts a SONiC leaf twin (gNMI), a
# Cumulus leaf twin (NVUE) and 4 ConnectX-7 host twins (Debian 12 and Rocky Linux 9.6 in turn, each pinned from its family's
# repository) with `roce-twin up --tfvars`, which writes the variables below, and
# applies this configuration through a local build of the provider. Point the same variables at
# your own inventory to use it on real switches and hosts.
terraform {
  required_version = ">= 1.8"
  required_providers {
    roce = {
      source = "clusterbid/roce"
    }
  }
}

provider "roce" {
  ssh  = var.ssh
  gnmi = var.gnmi
  nvue = var.nvue
}

module "pod" {
  source = "../modules/rail-optimized-pod"

  switches = var.switches
  hosts    = var.hosts

  policy = {
    rdma = { dscp = 26, priority = 3 }
    cnp  = { dscp = 48, priority = 6 }
    ecn  = { min_threshold_bytes = var.ecn_min_threshold_bytes, max_threshold_bytes = 153600, mark_probability_percent = 100 }
    pfc  = { pause_threshold_bytes = var.pfc_pause_threshold_bytes }

    # Storage (NVMe-oF, GPUDirect Storage) on SONiC's second stock lossless priority, with the
    # same marking: before SONiC 202511 every class shares the stock WRED profile.
    lossless_classes = [{
      name     = "storage"
      dscp     = [34]
      priority = 4
      ecn      = { min_threshold_bytes = var.ecn_min_threshold_bytes, max_threshold_bytes = 153600 }
      pfc      = { pause_threshold_bytes = var.pfc_pause_threshold_bytes }
    }]

    pfc_watchdog = { action = "drop", detection_time_ms = 200, restoration_time_ms = 200 }
    dcqcn        = { ai_rate_mbps = 10, min_time_between_cnps_us = 4 } # firmware: 5 and 4

    nccl = { qps_per_connection = 4, cross_nic = 0 }

    ofed      = var.ofed
    gpudirect = "auto"
  }

  checks  = var.checks
  rollout = var.rollout
}
