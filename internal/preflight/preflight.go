package preflight

import (
	"slices"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

// The check ids, stable values of [verdict.Verdict.Check], in the order [Check]
// returns them.
const (
	// CheckPortActive: every port of every RDMA device is PORT_ACTIVE.
	CheckPortActive = "nic_port_active"
	// CheckLinkLayer: every RDMA port runs Ethernet (RoCE), not InfiniBand.
	CheckLinkLayer = "nic_link_layer"
	// CheckRoCEv2GID: every RoCE device has a RoCE v2 GID with an
	// IPv4-mapped address.
	CheckRoCEv2GID = "roce_v2_gid"
	// CheckGIDIndex: that GID sits at the same index on every device (and at
	// Options.ExpectedGIDIndex when set), since NCCL_IB_GID_INDEX applies to
	// all HCAs.
	CheckGIDIndex = "gid_index_consistent"
	// CheckAffinity: every GPU has a NIC behind the same PCIe switch (PIX or
	// PXB in nvidia-smi topo -m), the farthest NCCL uses GDR by default.
	CheckAffinity = "gpu_nic_affinity"
	// CheckBAR1: the BAR1 aperture of every GPU, through which GPU Direct
	// RDMA maps GPU memory; it fails only below Options.MinBAR1MiB.
	CheckBAR1 = "gpu_bar1"
	// CheckGPUDirect: GPU memory can be registered with the NICs, through
	// nvidia-peermem (loaded and registered) or DMA-BUF.
	CheckGPUDirect = "gpudirect"
	// CheckACS: PCIe Access Control Services do not redirect GPU-NIC
	// traffic; the facts carry no ACS state, so this verdict is a note.
	CheckACS = "acs"
	// CheckNCCLNetwork: NCCL chose its IB transport (RoCE), not Socket.
	CheckNCCLNetwork = "nccl_network"
	// CheckNCCLGDRHCA: NCCL enabled GPU Direct RDMA for each HCA.
	CheckNCCLGDRHCA = "nccl_gdr_hca"
	// CheckNCCLGDRPath: NCCL enabled GPU Direct RDMA for each GPU/HCA pair
	// it logged (NCCL up to 2.29).
	CheckNCCLGDRPath = "nccl_gdr_path"
	// CheckNCCLGDRDMA: at least one channel went via NET/IB/<n>/GDRDMA, the
	// reliable signal that GPU Direct RDMA was used.
	CheckNCCLGDRDMA = "nccl_gdrdma_channels"
	// CheckNCCLWarn: the log has no NCCL WARN lines; each warning is a
	// failed verdict of its own, its kind as the subject.
	CheckNCCLWarn = "nccl_warn"
)

// Options tunes [Check]. Start from [DefaultOptions]: the zero value expects
// GID index 0 and does not require GPU Direct RDMA.
type Options struct {
	// MinBAR1MiB is the smallest acceptable BAR1 aperture per GPU in MiB;
	// 0 only reports the size: there is no documented general threshold.
	MinBAR1MiB int64
	// RequireGDR makes the GPU Direct RDMA checks (gpu_nic_affinity,
	// gpudirect, nccl_gdr_hca, nccl_gdr_path, nccl_gdrdma_channels) fail
	// when GDR is unavailable; without it they pass with a note.
	RequireGDR bool
	// ExpectedGIDIndex is the NCCL_IB_GID_INDEX every RoCE device must have
	// its RoCE v2 IPv4 GID at; -1 only asks that the index is the same on
	// all devices (right for NCCL ≥ 2.21, which selects it itself).
	ExpectedGIDIndex int
	// NCCLLog is a parsed NCCL debug log of a test run on the host
	// (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET); nil skips the nccl_*
	// checks.
	NCCLLog *facts.NCCLLog
}

// DefaultOptions returns the options a pre-flight normally wants: GPU Direct
// RDMA required, any GID index as long as it is the same on every device,
// BAR1 only reported, no NCCL log.
func DefaultOptions() Options {
	return Options{RequireGDR: true, ExpectedGIDIndex: -1}
}

// Check judges the facts of one host and returns its verdicts in a fixed
// order: by check as the Check* constants are listed, then by subject in the
// order the facts list them (ibv_devinfo's devices, nvidia-smi's GPUs, NCCL's
// HCAs by name, the log's warnings as they came). A check whose facts were
// not gathered or could not be read gives one failed verdict saying so.
func Check(f host.Facts, o Options) []verdict.Verdict {
	var vs []verdict.Verdict
	vs = append(vs, checkPorts(f)...)
	vs = append(vs, checkGIDs(f, o)...)
	vs = append(vs, checkAffinity(f, o)...)
	vs = append(vs, checkBAR1(f, o)...)
	vs = append(vs, checkGPUDirect(f, o), checkACS())
	if o.NCCLLog != nil {
		vs = append(vs, checkNCCL(*o.NCCLLog, o)...)
	}
	return vs
}

// pass returns a passing verdict.
func pass(check, subject, detail string) verdict.Verdict {
	return verdict.Verdict{Check: check, Subject: subject, Pass: true, Detail: detail}
}

// fail returns a failed verdict.
func fail(check, subject, detail, remedy string) verdict.Verdict {
	return verdict.Verdict{Check: check, Subject: subject, Detail: detail, Remedy: remedy}
}

// gdr returns the verdict of a GPU Direct RDMA check: a failure only when
// GDR is required, otherwise a pass that still says what was seen.
func (o Options) gdr(check, subject string, ok bool, detail, remedy string) verdict.Verdict {
	switch {
	case ok:
		return pass(check, subject, detail)
	case !o.RequireGDR:
		return pass(check, subject, detail+" (GPU Direct RDMA not required)")
	}
	return fail(check, subject, detail, remedy)
}

// factHints says what each fact needs on the host, for the remedy of a
// check that could not run.
var factHints = map[host.FactID]string{
	host.FactIBDevices: "ibv_devinfo (ibverbs-utils or OFED) with mlx5_ib loaded",
	host.FactGIDs:      "mlx5_ib loaded (the GID table is read from /sys/class/infiniband)",
	host.FactTopology:  "nvidia-smi with the NVIDIA driver loaded",
	host.FactGPUMemory: "nvidia-smi with the NVIDIA driver loaded",
	host.FactModules:   "lsmod",
	host.FactPeerMem:   "read access to /sys/kernel/mm/memory_peers",
}

// unread returns the failed verdict of a check whose facts are missing, and
// false when all of need were gathered and read.
func unread(f host.Facts, check string, need ...host.FactID) (verdict.Verdict, bool) {
	var missing, names, hints []string
	for _, n := range need {
		if f.Has(n) {
			continue
		}
		if !f.Gathered.Has(n) {
			missing = append(missing, n.String()+" not gathered")
		} else {
			missing = append(missing, n.String()+" could not be read: "+f.Absent[n.String()])
		}
		names = append(names, n.String())
		if h, ok := factHints[n]; ok && !slices.Contains(hints, h) {
			hints = append(hints, h)
		}
	}
	if len(missing) == 0 {
		return verdict.Verdict{}, false
	}
	remedy := "gather " + strings.Join(names, ", ")
	if len(hints) > 0 {
		remedy += "; it needs " + strings.Join(hints, ", ")
	}
	return fail(check, "", "not checked: "+strings.Join(missing, "; "), remedy), true
}
