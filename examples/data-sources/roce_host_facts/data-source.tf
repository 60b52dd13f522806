# What a GPU node is, read in one SSH round trip: stack, NICs, GPU-NIC paths (and with
# detail = true every NIC's GID table, which the state otherwise leaves out).
data "roce_host_facts" "gpu1" {
  host = "10.0.1.11"
}

# The RoCE v2 IPv4 GID index of every NIC: NCCL_IB_GID_INDEX applies to all HCAs, so they
# must agree when it is set.
output "gid_indexes" {
  value = distinct([for nic in data.roce_host_facts.gpu1.nics : nic.roce_v2_ipv4_gid_index])
}

output "gpus_far_from_their_nic" {
  value = [for g in data.roce_host_facts.gpu1.gpus : g.name if !contains(["PIX", "PXB"], g.path_type)]
}
