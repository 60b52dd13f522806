terraform {
  required_version = ">= 1.8"
  required_providers {
    roce = {
      source = "clusterbid/roce"
    }
  }
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

locals {
  threshold_findings = provider::roce::ecn_pfc_findings(var.ecn_min_bytes, var.ecn_max_bytes, var.pfc_pause_bytes)
}

# Stop the plan before anything reaches a switch when the thresholds break the rules.
resource "terraform_data" "fabric_policy" {
  input = {
    ecn_min_bytes   = var.ecn_min_bytes
    ecn_max_bytes   = var.ecn_max_bytes
    pfc_pause_bytes = var.pfc_pause_bytes
  }

  lifecycle {
    precondition {
      condition     = length([for f in local.threshold_findings : f if startswith(f, "error:")]) == 0
      error_message = join("\n", local.threshold_findings)
    }
  }
}

# Warnings (off the 2.5x target, ECN min outside 80-120 KB) are worth showing, not blocking.
output "threshold_warnings" {
  value = [for f in local.threshold_findings : f if startswith(f, "warning:")]
}
