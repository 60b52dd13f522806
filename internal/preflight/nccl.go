package preflight

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

// logHint is the remedy of an NCCL log that lacks the lines a check reads.
const logHint = "run the test across at least two hosts with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET and pass the whole log"

// socketCauses is the remedy of a fallback to the Socket transport whose
// cause the log does not show.
const socketCauses = "NCCL could not use RDMA and the log does not say why; the usual causes: no RoCE v2 GID on the HCAs (see roce_v2_gid), NCCL_IB_DISABLE=1 in the environment or /etc/nccl.conf, NCCL_IB_HCA names that match no device (use = for exact names; ^ goes before =), a missing or failing net plugin (see the NET/Plugin lines), libibverbs or the mlx5 provider missing where the job runs (in the container)"

// checkNCCL returns the verdicts of an NCCL debug log.
func checkNCCL(l facts.NCCLLog, o Options) []verdict.Verdict {
	vs := []verdict.Verdict{ncclNetwork(l)}
	vs = append(vs, ncclGDRHCA(l, o)...)
	vs = append(vs, ncclGDRPaths(l, o)...)
	vs = append(vs, ncclChannels(l, o))
	return append(vs, ncclWarnings(l)...)
}

// ncclNetwork judges the "Using network X" lines: NCCL's IB transport
// (RoCE included) or an external net plugin (HPC-X IBext_v*, aws-ofi-nccl's
// Libfabric, ...) passes; Socket is the fallback when RDMA is unusable, and
// the verdict names its cause when the log shows it.
func ncclNetwork(l facts.NCCLLog) verdict.Verdict {
	if len(l.Networks) == 0 {
		return fail(CheckNCCLNetwork, "", "the log has no \"Using network\" line", logHint)
	}
	seen := "using network " + strings.Join(l.Networks, ", ")
	if l.Version != "" {
		seen = "NCCL " + l.Version + " " + seen
	}
	socket := slices.Contains(l.Networks, "Socket")
	switch {
	case !socket:
		if l.Network != "IB" {
			seen += " (external net plugin)"
		}
		return pass(CheckNCCLNetwork, "", seen+hcaList(l))
	case len(l.Networks) > 1:
		return fail(CheckNCCLNetwork, "", seen+": ranks disagreed, some fell back to Socket", socketRemedy(l)+"; compare the hosts whose ranks fell back")
	}
	if len(l.SocketIfaces) > 0 {
		seen += " over " + strings.Join(l.SocketIfaces, ", ")
	}
	return fail(CheckNCCLNetwork, "", seen, socketRemedy(l))
}

// socketRemedy names the causes of a Socket fallback the log shows, else
// the usual ones.
func socketRemedy(l facts.NCCLLog) string {
	var causes []string
	if l.IBDisabled {
		causes = append(causes, "NCCL_IB_DISABLE=1 is set (the log: \"NCCL_IB_DISABLE set by environment to 1.\"): remove it from the job's environment and from /etc/nccl.conf or NCCL_CONF_FILE")
	}
	if l.IBVerbsMissing {
		causes = append(causes, "libibverbs could not be loaded where the job runs (the log: \"Failed to open libibverbs.so\"): install libibverbs1 / rdma-core with the mlx5 provider in the host or container image")
	}
	if l.NoIBDevice {
		causes = append(causes, "NCCL's IB transport found no usable device (the log: \"NET/IB : No device found.\"): the job cannot see /dev/infiniband (mount it into the container), NCCL_IB_HCA matches no device (use = for exact names), or no port is active")
	}
	for _, p := range l.FailedPlugins {
		if p != "IB" {
			causes = append(causes, "the net "+p+" failed to initialise or does not exist (NCCL_NET or NCCL_NET_PLUGIN): check the plugin's own lines in the log")
		}
	}
	if onlyLoopback(l) {
		causes = append(causes, "NCCL found only the loopback interface lo: the job ran on one host without RDMA devices or NCCL_SOCKET_IFNAME selects lo; run across hosts that see their RDMA devices")
	}
	if len(causes) == 0 {
		return socketCauses
	}
	return strings.Join(causes, "; ")
}

// onlyLoopback reports a Socket run over lo alone.
func onlyLoopback(l facts.NCCLLog) bool {
	return len(l.SocketIfaces) > 0 && !slices.ContainsFunc(l.SocketIfaces, func(i string) bool { return i != "lo" })
}

// hcaList renders the HCAs of the "NET/IB : Using" line.
func hcaList(l facts.NCCLLog) string {
	if len(l.HCAs) == 0 {
		return ""
	}
	names := make([]string, 0, len(l.HCAs))
	for _, h := range l.HCAs {
		names = append(names, fmt.Sprintf("%s:%d/%s", h.Device, h.Port, h.LinkLayer))
	}
	return "; HCAs " + strings.Join(names, " ")
}

// ncclGDRHCA returns an nccl_gdr_hca verdict per HCA of the "GPU Direct RDMA
// Enabled|Disabled for HCA" lines, by name. Every release 2.18 to 2.30
// logs them at INFO, but only with NET in NCCL_DEBUG_SUBSYS (src/graph/
// topo.cc); without them the verdict is a passing note.
func ncclGDRHCA(l facts.NCCLLog, o Options) []verdict.Verdict {
	if len(l.GDRByHCA) == 0 {
		return []verdict.Verdict{pass(CheckNCCLGDRHCA, "", "no per-HCA GPU Direct RDMA lines (NET is missing from NCCL_DEBUG_SUBSYS, or no RDMA net was used); nccl_gdrdma_channels is the reliable signal")}
	}
	var vs []verdict.Verdict
	for _, hca := range slices.Sorted(maps.Keys(l.GDRByHCA)) {
		if l.GDRByHCA[hca] {
			vs = append(vs, pass(CheckNCCLGDRHCA, hca, "GPU Direct RDMA enabled"))
			continue
		}
		vs = append(vs, o.gdr(CheckNCCLGDRHCA, hca, false,
			"GPU Direct RDMA disabled: NCCL found neither a registered peer-memory client nor DMA-BUF support",
			"make GPU memory registrable: load nvidia-peermem built against OFED, or enable DMA-BUF (kernel ≥ 5.12, open GPU kernel modules); see gpudirect"))
	}
	return vs
}

// ncclGDRPaths returns an nccl_gdr_path verdict per distinct GPU/HCA pair of
// the "GPU Direct RDMA Enabled|Disabled for GPU ..." lines (INFO up to 2.29;
// 2.30 logs them at TRACE, which release builds leave out); a disabled pair
// is usually too far apart in the PCIe tree.
func ncclGDRPaths(l facts.NCCLLog, o Options) []verdict.Verdict {
	var vs []verdict.Verdict
	index := map[string]int{}
	for _, p := range l.GDRPaths {
		subject := "GPU " + p.GPU + " / HCA " + p.HCA
		seen := "GPU Direct RDMA disabled"
		if p.Enabled {
			seen = "GPU Direct RDMA enabled"
		}
		if p.Detail != "" {
			seen += " (" + p.Detail + ")"
		}
		v := o.gdr(CheckNCCLGDRPath, subject, p.Enabled, seen,
			"the GPU and the HCA are farther apart than NCCL_NET_GDR_LEVEL allows (default PXB): see gpu_nic_affinity; put them under one PCIe switch or raise NCCL_NET_GDR_LEVEL knowingly")
		if i, dup := index[subject]; dup {
			vs[i] = v // the last line for a pair wins
			continue
		}
		index[subject] = len(vs)
		vs = append(vs, v)
	}
	return vs
}

// ncclChannels judges the channel lines: at least one must go via
// NET/<net>/<n>/GDRDMA. Channels over Socket are a network failure, not a
// GPU Direct RDMA one.
func ncclChannels(l facts.NCCLLog, o Options) verdict.Verdict {
	if l.NetChannels == 0 {
		if onlyLoopback(l) {
			return fail(CheckNCCLGDRDMA, "", "no channel goes via NET: NCCL saw only the loopback interface lo, so the run stayed on one host", logHint)
		}
		return fail(CheckNCCLGDRDMA, "", "no channel goes via NET: the run stayed on one host or the log lacks the INIT channel lines", logHint)
	}
	seen := fmt.Sprintf("%d of %d network channels via GDRDMA", l.GDRDMAChannels, l.NetChannels)
	if l.GDRDMAChannels > 0 && l.GDRDMAChannels < l.NetChannels {
		seen += fmt.Sprintf(", %d without", l.NetChannels-l.GDRDMAChannels)
	}
	if len(l.ChannelNets) > 0 {
		seen += " (NET/" + strings.Join(l.ChannelNets, ", NET/") + ")"
	}
	if len(l.ChannelNets) == 1 && l.ChannelNets[0] == "Socket" {
		return fail(CheckNCCLGDRDMA, "", seen+": the channels use sockets, where GPU Direct RDMA does not apply", "fix nccl_network first: NCCL fell back to Socket")
	}
	return o.gdr(CheckNCCLGDRDMA, "", l.GDRDMAChannels > 0, seen,
		"no channel used GPU Direct RDMA, so data is staged through host memory: fix nccl_network, gpudirect and gpu_nic_affinity first")
}

// ncclWarnings returns a failed nccl_warn verdict per WARN line, with its
// known cause and remedy, or one passing verdict when there is none.
func ncclWarnings(l facts.NCCLLog) []verdict.Verdict {
	if len(l.Warnings) == 0 {
		return []verdict.Verdict{pass(CheckNCCLWarn, "", "no NCCL WARN lines")}
	}
	vs := make([]verdict.Verdict, 0, len(l.Warnings))
	for _, w := range l.Warnings {
		seen, remedy := w.Line, w.Remedy
		if w.Cause != "" {
			seen += "; usual cause: " + w.Cause
		}
		if remedy == "" {
			remedy = "no known cause for this warning: look it up in NCCL's troubleshooting guide; the first WARN of a run is usually the root cause"
		}
		vs = append(vs, fail(CheckNCCLWarn, string(w.Kind), seen, remedy))
	}
	return vs
}

// CheckNCCLLog judges an NCCL debug log on its own: the network NCCL chose, GPU Direct RDMA per
// HCA and per path, GDRDMA channels and each warning, as [Check] does with Options.NCCLLog.
func CheckNCCLLog(l facts.NCCLLog, o Options) []verdict.Verdict { return checkNCCL(l, o) }
