# A first look at the roce provider with nothing but the Terraform CLI: the plan-time rules of
# the fabric, evaluated by the provider. `make demo` runs it against a local build.
terraform {
  required_version = ">= 1.8"
  required_providers {
    roce = {
      source = "clusterbid/roce"
    }
  }
}

variable "rdma_dscp" {
  description = "DSCP of RoCE data traffic."
  type        = number
  default     = 26
}

variable "ecn_min_bytes" {
  type    = number
  default = 102400
}

variable "ecn_max_bytes" {
  type    = number
  default = 153600
}

variable "pfc_pause_bytes" {
  type    = number
  default = 256000
}

variable "ports" {
  description = "Lossless ports per leaf and their speed and cable length."
  type = object({
    count          = number
    speed_gbps     = number
    cable_length_m = number
    mtu            = number
  })
  default = {
    count          = 64
    speed_gbps     = 400
    cable_length_m = 5
    mtu            = 9100
  }
}

locals {
  findings = provider::roce::ecn_pfc_findings(var.ecn_min_bytes, var.ecn_max_bytes, var.pfc_pause_bytes)
  headroom = provider::roce::pfc_headroom(var.ports.speed_gbps, var.ports.cable_length_m, var.ports.mtu)
}

resource "terraform_data" "fabric_policy" {
  input = {
    nccl_ib_tc      = provider::roce::tos(var.rdma_dscp, 2)
    ecn_min_bytes   = var.ecn_min_bytes
    ecn_max_bytes   = var.ecn_max_bytes
    pfc_pause_bytes = var.pfc_pause_bytes
  }

  lifecycle {
    precondition {
      condition     = length([for f in local.findings : f if startswith(f, "error:")]) == 0
      error_message = join("\n", local.findings)
    }
  }
}

output "nccl_ib_tc" {
  description = "NCCL_IB_TC and OFED traffic_class for the RDMA DSCP (ECT(0) set)."
  value       = terraform_data.fabric_policy.output.nccl_ib_tc
}

output "headroom_per_port" {
  description = "Lossless headroom one port and priority needs."
  value       = local.headroom
}

output "lossless_reservation_bytes" {
  description = "Headroom reserved by all lossless ports of one leaf."
  value       = var.ports.count * local.headroom.size_bytes
}

output "threshold_warnings" {
  value = [for f in local.findings : f if startswith(f, "warning:")]
}
