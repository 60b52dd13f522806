# One root module for every pod of a fabric, one state per pod: each pod is a Terraform
# workspace (or a backend key of its own) with its own variable file under pods/, and every pod
# reads the one fabric policy in policy.tf. Pods are applied in parallel, each by its own CI job:
#
#   terraform workspace select -or-create pod-a
#   terraform apply -var-file=pods/pod-a.tfvars.json
#
# A change of policy.tf is then planned and applied pod by pod, as a staged rollout across pods
# (docs/guides/scale-out.md).
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

  switches      = var.switches
  hosts         = var.hosts
  nics_per_host = var.nics_per_host
  policy        = local.fabric_policy
}
