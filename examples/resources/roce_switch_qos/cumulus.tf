# The same traffic contract on an NVIDIA Cumulus Linux switch (5.9 to 5.14), over the NVUE
# REST API: the provider's nvue block carries the login, os selects the backend.
provider "roce" {
  nvue = {
    username = "nvapi"
    password = var.nvue_password
    ca_file  = "/etc/roce/cumulus-ca.pem"
  }
}

variable "nvue_password" {
  type      = string
  sensitive = true
}

resource "roce_switch_qos" "leaf2" {
  address        = "10.0.0.12:8765"
  os             = "cumulus"
  ports          = ["swp1", "swp2"]
  cable_length_m = 5

  ecn = { min_threshold_bytes = 102400, max_threshold_bytes = 153600, mark_probability_percent = 100 }
  pfc = { pause_threshold_bytes = 256000 }
}
