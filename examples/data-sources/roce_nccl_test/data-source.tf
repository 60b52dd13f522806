# An all_reduce_perf run across two nodes of 8 GPUs (mpirun from the first), judged against the
# bus bandwidth 8 x 400G rails should give.
data "roce_nccl_test" "pair" {
  hosts          = ["10.0.1.11", "10.0.1.12"]
  binary         = "/opt/nccl-tests/build/all_reduce_perf"
  gpus_per_host  = 8
  max_bytes      = "8G"
  min_busbw_gbps = 360
  rails          = 8
  env            = { NCCL_IB_HCA = "=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7" }
}

check "nccl_bandwidth" {
  assert {
    condition     = data.roce_nccl_test.pair.ok
    error_message = join("\n", data.roce_nccl_test.pair.failures)
  }
}
