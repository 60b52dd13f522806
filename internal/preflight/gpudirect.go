package preflight

import (
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

// peerState is what the facts say about nvidia-peermem.
type peerState int

const (
	peerUnknown peerState = iota
	peerNotLoaded
	peerUnregistered
	peerRegistered
)

// checkGPUDirect returns the gpudirect verdict: GPU memory can be
// registered with the NICs through nvidia-peermem (loaded and registered
// with OFED's peer-memory API) or through DMA-BUF (kernel ≥ 5.12 and the
// open GPU kernel modules, or NCCL's own "DMA-BUF is available" line).
func checkGPUDirect(f host.Facts, o Options) verdict.Verdict {
	state, peer := peerMem(f)
	dmaOK, why := f.DMABUF()
	dma := "DMA-BUF unavailable: " + why
	if dmaOK {
		dma = "DMA-BUF ready: " + why
	}
	if l := o.NCCLLog; l != nil && len(l.DMABufGPUs) > 0 {
		dmaOK = true
		dma += "; NCCL log: DMA-BUF is available on GPU device " + strings.Join(l.DMABufGPUs, ", ")
	}
	detail := peer + "; " + dma
	if dmaOK && state == peerRegistered {
		detail += "; NCCL prefers DMA-BUF when both work"
	}
	remedy := peerRemedy(f, state) + "; or use DMA-BUF, which NVIDIA recommends: kernel ≥ 5.12 and the open GPU kernel modules (now: " + why + ")"
	return o.gdr(CheckGPUDirect, "", dmaOK || state == peerRegistered, detail, remedy)
}

// peerMem reads nvidia-peermem's state from lsmod and memory_peers.
func peerMem(f host.Facts) (peerState, string) {
	if v, missing := unread(f, CheckGPUDirect, host.FactModules, host.FactPeerMem); missing {
		return peerUnknown, "nvidia-peermem " + v.Detail
	}
	loaded := f.ModuleLoaded("nvidia_peermem")
	switch {
	case f.PeerMem.Registered && loaded:
		s := "nvidia_peermem loaded and registered"
		if f.PeerMem.Version != "" {
			s += " (nv_mem version " + f.PeerMem.Version + ")"
		}
		return peerRegistered, s
	case f.PeerMem.Registered:
		return peerRegistered, "nv_mem peer-memory client registered, but nvidia_peermem is not loaded (legacy nv_peer_mem?)"
	case loaded:
		return peerUnregistered, "nvidia_peermem loaded but not registered: " + facts.PeerMemVersionPath + " is missing, so NCCL reports GPU Direct RDMA disabled"
	}
	return peerNotLoaded, "nvidia_peermem not loaded"
}

// peerRemedy says how to get nvidia-peermem working from state.
func peerRemedy(f host.Facts, state peerState) string {
	switch state {
	case peerUnknown:
		return "gather lsmod and memory_peers to check nvidia-peermem"
	case peerUnregistered:
		return "nvidia-peermem was built without OFED's peer-memory API: reinstall the NVIDIA driver (DKMS rebuild for the running kernel) after OFED, then reload nvidia_peermem"
	}
	s := "load nvidia-peermem (modprobe nvidia-peermem) and persist it in /etc/modules-load.d/nvidia-peermem.conf; if modprobe fails with \"Invalid argument\", the NVIDIA driver was built before or without OFED: reinstall it after OFED"
	if f.Has(host.FactOFED) && f.OFED.Flavor == facts.OFEDInbox {
		s += " (this host runs inbox rdma-core, whose kernel usually lacks the peer-memory API nvidia-peermem needs)"
	}
	return s
}

// checkACS returns the acs verdict. ACS (PCIe Access Control Services)
// with SrcValid+ on a bridge between a GPU and its NIC forces their traffic
// through the root complex; the gathered facts do not carry the lspci state,
// so the verdict is a passing note rather than invented data.
func checkACS() verdict.Verdict {
	return pass(CheckACS, "", "not readable: the gathered facts carry no ACS state; check by hand that lspci -vvv shows no ACSCtl SrcValid+ on the PCIe bridges between each GPU and its NIC (ACS sends GPU-NIC traffic through the root complex, which slows or breaks GPU Direct RDMA)")
}
