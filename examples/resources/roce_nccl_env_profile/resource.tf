variable "gpu_hosts" {
  description = "SSH addresses of the GPU nodes."
  type        = set(string)
  default     = ["10.0.1.11", "10.0.1.12"]
}

# One profile per node: for_each keeps each host's state on its own.
resource "roce_nccl_env_profile" "node" {
  for_each = var.gpu_hosts

  host               = each.value
  hcas               = [for i in range(8) : "mlx5_${i}"] # rail-optimised: 8 NICs per node
  socket_ifname      = "=eth0"
  rdma_dscp          = 26 # NCCL_IB_TC = 106, the same class the switches make lossless
  gid_index          = "auto"
  qps_per_connection = 4
  cross_nic          = 0
}
