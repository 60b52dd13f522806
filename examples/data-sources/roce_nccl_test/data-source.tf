# An all_reduce_perf run across two nodes of 8 GPUs (mpirun from the first), judged against the
# bus bandwidth their 8 x 400G rails should carry: expected_busbw_gbps is 8 x 400 / 8 x 0.96 =
# 384 GB/s, and the run must reach 85% of it (NCCL_ALGO=Ring is set for the run).
data "roce_nccl_test" "pair" {
  hosts              = ["10.0.1.11", "10.0.1.12"]
  binary             = "/opt/nccl-tests/build/all_reduce_perf"
  gpus_per_host      = 8
  max_bytes          = "8G"
  rails              = 8
  rail_gbps          = 400
  min_busbw_fraction = 0.85
  env                = { NCCL_IB_HCA = "=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7" }
}

check "nccl_bandwidth" {
  assert {
    condition     = data.roce_nccl_test.pair.ok
    error_message = join("\n", data.roce_nccl_test.pair.failures)
  }
}
