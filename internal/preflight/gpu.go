package preflight

import (
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

// checkBAR1 returns a gpu_bar1 verdict per GPU of nvidia-smi -q -d MEMORY.
// nvidia-smi lists the GPUs in its index order, so the n-th is GPUn as in
// nvidia-smi topo -m.
func checkBAR1(f host.Facts, o Options) []verdict.Verdict {
	if v, missing := unread(f, CheckBAR1, host.FactGPUMemory); missing {
		return []verdict.Verdict{v}
	}
	if len(f.GPUMemory) == 0 {
		return []verdict.Verdict{fail(CheckBAR1, "", "nvidia-smi -q -d MEMORY lists no GPUs",
			"check that the NVIDIA driver is loaded and nvidia-smi sees the GPUs")}
	}
	vs := make([]verdict.Verdict, 0, len(f.GPUMemory))
	for i, m := range f.GPUMemory {
		vs = append(vs, bar1(fmt.Sprintf("GPU%d", i), m, o.MinBAR1MiB))
	}
	return vs
}

// bar1 judges one GPU's BAR1 aperture against minMiB (0: report only).
func bar1(gpu string, m facts.GPUMemory, minMiB int64) verdict.Verdict {
	if m.BAR1Total == facts.Unknown {
		seen := "BAR1 size not reported (N/A), bus " + m.BusID
		if minMiB <= 0 {
			return pass(CheckBAR1, gpu, seen)
		}
		return fail(CheckBAR1, gpu, fmt.Sprintf("%s: cannot compare with the minimum of %d MiB", seen, minMiB),
			"read nvidia-smi -q -d MEMORY on the host: a vGPU or MIG setup can hide BAR1")
	}
	seen := fmt.Sprintf("BAR1 %d MiB (%d MiB used), bus %s", m.BAR1Total, m.BAR1Used, m.BusID)
	if m.FBTotal > 0 && m.BAR1Total < m.FBTotal {
		seen += fmt.Sprintf("; smaller than the %d MiB framebuffer, so GPU Direct RDMA can map at most %d MiB of GPU memory at once", m.FBTotal, m.BAR1Total)
	}
	if minMiB <= 0 || m.BAR1Total >= minMiB {
		return pass(CheckBAR1, gpu, seen)
	}
	return fail(CheckBAR1, gpu, fmt.Sprintf("%s; below the minimum of %d MiB", seen, minMiB),
		"GPU Direct RDMA maps GPU memory through BAR1: enable Above 4G Decoding (and Resizable BAR where the GPU supports it) in the system BIOS, use a GPU with a large BAR1, or lower the minimum")
}
