package preflight

import (
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

// linkMeaning is nvidia-smi's legend for the PCIe link types.
var linkMeaning = map[string]string{
	"PIX":  "at most one PCIe bridge",
	"PXB":  "several PCIe bridges, no host bridge",
	"PHB":  "through a PCIe host bridge, typically the CPU",
	"NODE": "across PCIe host bridges within the NUMA node",
	"SYS":  "across the link between CPU sockets, QPI/UPI",
}

// checkAffinity returns a gpu_nic_affinity verdict per GPU of the topology:
// its closest NIC must be PIX or PXB, the farthest NCCL uses GPU Direct RDMA
// by default (NCCL_NET_GDR_LEVEL=PXB).
func checkAffinity(f host.Facts, o Options) []verdict.Verdict {
	if v, missing := unread(f, CheckAffinity, host.FactTopology); missing {
		return []verdict.Verdict{v}
	}
	t := f.Topology
	if len(t.GPUs) == 0 {
		return []verdict.Verdict{fail(CheckAffinity, "", "nvidia-smi topo -m lists no GPUs",
			"check that the NVIDIA driver is loaded and nvidia-smi sees the GPUs")}
	}
	vs := make([]verdict.Verdict, 0, len(t.GPUs))
	for _, gpu := range t.GPUs {
		vs = append(vs, gpuAffinity(f, o, gpu))
	}
	return vs
}

// gpuAffinity judges the path from one GPU to its closest NIC.
func gpuAffinity(f host.Facts, o Options, gpu string) verdict.Verdict {
	nic, link, ok := f.Topology.BestNIC(gpu)
	if !ok {
		return fail(CheckAffinity, gpu, "nvidia-smi topo -m lists no NIC",
			"load mlx5_core and mlx5_ib so that nvidia-smi shows the NICs, and check that they are in the PCIe tree (lspci)")
	}
	seen := fmt.Sprintf("closest NIC %s via %s", nic, link)
	if m, known := linkMeaning[link]; known {
		seen += " (" + m + ")"
	}
	switch link {
	case "PIX", "PXB":
		return pass(CheckAffinity, gpu, seen)
	case "SYS":
		return o.gdr(CheckAffinity, gpu, false, seen,
			fmt.Sprintf("GDR will be off for %s: its closest NIC is on the other CPU socket. Move a NIC under %s's PCIe switch (PIX/PXB); NCCL_NET_GDR_LEVEL=SYS would force GDR across the socket link, which is usually slow", gpu, gpu))
	}
	return o.gdr(CheckAffinity, gpu, false, seen,
		fmt.Sprintf("GDR will be off or slow for %s: NCCL uses GPU Direct RDMA only up to PXB by default. Move a NIC under %s's PCIe switch (PIX/PXB), or pin NCCL to %s (do not exclude it in NCCL_IB_HCA) and accept GDR through the host bridge with NCCL_NET_GDR_LEVEL=PHB", gpu, gpu, nic))
}
