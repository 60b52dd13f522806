terraform {
  required_version = ">= 1.8"
  required_providers {
    roce = {
      source = "clusterbid/roce"
    }
  }
}

# The ToS byte NCCL must use for RoCE data in DSCP 26 with ECT(0): 106.
locals {
  nccl_ib_tc = provider::roce::tos(26, 2)
}

output "nccl_ib_tc" {
  value = local.nccl_ib_tc
}
