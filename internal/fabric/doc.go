// Package fabric holds the pure domain rules of a lossless RoCEv2 GPU fabric:
// the RDMA traffic contract shared by switch, NIC and NCCL, the ECN/PFC
// threshold rule, Spectrum-4 lossless headroom and buffer capacity, DCQCN
// unit conversion for mlx5 firmware knobs, and NCCL variable semantics and
// rendering.
//
// The package does no I/O and knows nothing of Terraform. Rule checks return
// violations on the Go fields they concern (FieldECNMin, FieldRDMADSCP, ...),
// and each caller words them in its own attribute names, so the same rules
// serve resources, provider functions and module examples.
package fabric
