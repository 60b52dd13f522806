# DOCA-OFED 25.10 from a versioned mirror, pinned and held, then GPUDirect RDMA
# (DMA-BUF where the host can, else nvidia-peermem).
resource "roce_host_bootstrap" "gpu1" {
  host = "10.0.1.11"

  ofed = {
    flavor   = "doca"
    version  = "25.10-1.7.1"
    repo_url = "https://mirror.dc1.example.net/doca/25.10-1.7.1/ubuntu24.04/x86_64/"
    key      = "/usr/share/keyrings/mellanox.gpg"
  }

  gpudirect = "auto"
}

# Never rebooted by Terraform: act on this in your own workflow.
output "gpu1_needs_reboot" {
  value = roce_host_bootstrap.gpu1.reboot_required
}
