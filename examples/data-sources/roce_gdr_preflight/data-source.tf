# GPUDirect RDMA pre-flight of a node, with the NCCL log of a test run
# (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET) judged too.
data "roce_gdr_preflight" "gpu1" {
  host          = "10.0.1.11"
  nccl_log_path = "/var/log/nccl/allreduce-test.log"
}

# Fail the run with the remedies when anything is wrong.
check "gpudirect_ready" {
  assert {
    condition     = data.roce_gdr_preflight.gpu1.ok
    error_message = join("\n", data.roce_gdr_preflight.gpu1.failures)
  }
}
