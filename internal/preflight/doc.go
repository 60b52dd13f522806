// Package preflight turns the facts gathered on a GPU host into GPUDirect
// RDMA pre-flight verdicts: is every NIC port up and running RoCE, does each
// NIC have a RoCE v2 IPv4 GID at the same index, is each GPU close enough to
// a NIC for GPU Direct RDMA, can GPU memory be registered with the NICs
// (nvidia-peermem or DMA-BUF), and, given an NCCL debug log, did NCCL really
// use the IB transport with GPU Direct RDMA.
//
// The package does no I/O: [Check] judges a [host.Facts] value that
// [host.Gather] already read (and an optional parsed NCCL log), so the same
// facts always give the same verdicts in the same order. Every verdict says
// what was seen and, when it fails, what to do about it. The checks follow the
// usual GPUDirect pre-flight sequence: port state and GID table (ibv_devinfo,
// sysfs), peer-memory registration (nvidia-peermem or DMA-BUF), GPU-NIC
// affinity (nvidia-smi topo -m), then NCCL's own debug log.
package preflight
