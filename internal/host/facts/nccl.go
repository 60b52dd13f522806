package facts

import (
	"regexp"
	"slices"
	"strings"
)

// NCCLLog is what an NCCL debug log (NCCL_DEBUG=INFO
// NCCL_DEBUG_SUBSYS=INIT,NET) says about the network path. The log comes from
// a test run such as nccl-tests' all_reduce_perf rather than a fixed command,
// run with those two variables set. The formats are those of NCCL
// v2.18.6 to v2.30.7 (NVIDIA/nccl src/init.cc, src/transport/net_ib*,
// src/graph/topo.cc and paths.cc, src/transport/net.cc, src/misc/ibvsymbols.cc
// at each tag) and of the external net plugins (HPC-X nccl-rdma-sharp-plugins,
// aws-ofi-nccl).
type NCCLLog struct {
	// Version is the NCCL version, e.g. "2.21.5+cuda12.4".
	Version string
	// Network is the first "Using network X" value: "IB" for NCCL's own
	// verbs transport (RoCE included), "Socket" when RDMA was unusable, or
	// an external plugin's name, which may hold spaces ("IBext_v8",
	// "AWS Libfabric", "Libfabric", "gIB").
	Network string
	// Networks are all distinct networks reported, in order; more than one
	// means ranks disagreed.
	Networks []string
	// HCAs are the devices from "NET/IB : Using [0]mlx5_0:1/RoCE ...", each
	// once; members of a merged NIC ("[0]={[0] mlx5_0:1/RoCE, [1]
	// mlx5_1:1/RoCE}", NCCL 2.20 to 2.23 and HPC-X plugins of that time)
	// are listed one by one.
	HCAs []NCCLHCA
	// OOBIface is the out-of-band interface from the same line.
	OOBIface string
	// SocketIfaces are the interfaces of "NET/Socket : Using [0]eth0:...",
	// each once.
	SocketIfaces []string
	// NoIBDevice reports "NET/IB : No device found."
	NoIBDevice bool
	// IBVerbsMissing reports that libibverbs could not be loaded: "Failed
	// to open libibverbs.so[.1]" (2.18 to 2.29), "Count not open
	// libibverbs..." (sic, 2.30).
	IBVerbsMissing bool
	// IBDisabled reports "NCCL_IB_DISABLE set by environment to 1." (the
	// environment or an nccl.conf file set it).
	IBDisabled bool
	// FailedPlugins are the nets of "Failed to initialize NET plugin X"
	// (2.28+) and "Error: network X not found." (NCCL_NET naming a missing
	// net), each once.
	FailedPlugins []string
	// GDRByHCA maps an HCA name to the last "NET/<net> : GPU Direct RDMA
	// Enabled|Disabled for HCA n 'name'" verdict (INFO with NET in every
	// release); merged NICs are named "mlx5_0+mlx5_1".
	GDRByHCA map[string]bool
	// GDRPaths are the per GPU/NIC "GPU Direct RDMA ... for GPU" lines
	// (INFO up to 2.29; TRACE builds only from 2.30).
	GDRPaths []NCCLGDRPath
	// DMABufGPUs are the GPUs with "DMA-BUF is available on GPU device N".
	DMABufGPUs []string
	// NetChannels counts channel lines that go "via NET/<net>/...";
	// GDRDMAChannels counts those among them that use GPU Direct RDMA
	// ("/GDRDMA"), the reliable success signal.
	NetChannels, GDRDMAChannels int
	// ChannelNets are the nets the channel lines name, each once.
	ChannelNets []string
	// Warnings are the "NCCL WARN" lines with their likely cause.
	Warnings []NCCLWarning
}

// NCCLHCA is one entry of the "NET/IB : Using" line.
type NCCLHCA struct {
	// Index is NCCL's device index.
	Index int
	// Device is the RDMA device, e.g. "mlx5_0".
	Device string
	// Port is the RDMA port.
	Port int
	// LinkLayer is "RoCE" or "IB" ("UNSPECIFIED" on 2.28+ when unknown).
	LinkLayer string
}

// NCCLGDRPath is a "GPU Direct RDMA Enabled|Disabled for GPU ..." line.
type NCCLGDRPath struct {
	// GPU and HCA are as printed: a bus id or a rank and a NIC index up to
	// 2.28 ("18000", "0"), "<system>-<bus id in decimal>" and
	// "<system>-<NIC>" from 2.29 ("0-98304", "0-0").
	GPU, HCA string
	// Enabled is the verdict.
	Enabled bool
	// Detail is the parenthesised reason, e.g. "distance 6 > 4".
	Detail string
}

// NCCLWarnKind classifies an NCCL warning.
type NCCLWarnKind string

// The warning kinds with a known cause.
const (
	WarnGIDIndex        NCCLWarnKind = "gid-index"
	WarnUnreachable     NCCLWarnKind = "network-unreachable"
	WarnRetryExceeded   NCCLWarnKind = "retry-exceeded"
	WarnCompletionError NCCLWarnKind = "completion-error"
	WarnMemlock         NCCLWarnKind = "memlock"
	WarnGIDChanged      NCCLWarnKind = "gid-table-changed"
	WarnIncompatible    NCCLWarnKind = "incompatible-devices"
	WarnUnknown         NCCLWarnKind = "unknown"
)

// NCCLWarning is one "NCCL WARN" line and what it usually means.
type NCCLWarning struct {
	// Line is the log line, trimmed.
	Line string
	// Kind classifies the warning.
	Kind NCCLWarnKind
	// Cause is the usual cause; empty for unknown warnings.
	Cause string
	// Remedy is what to check or change; empty for unknown warnings.
	Remedy string
}

var (
	ncclVersion = regexp.MustCompile(`NCCL version (\d+\.\d+\.\d+[^\s]*)`)
	// The net name runs to the end of the line: plugin names hold spaces.
	ncclNetwork = regexp.MustCompile(`\bUsing network (.+?)\s*$`)
	ncclIBUsing = regexp.MustCompile(`NET/IB ?: Using(.*)$`)
	// One device: "[0]mlx5_0:1/RoCE", with 2.30.7's rail and plane
	// (":1:3/IB", ":1::2/IB") and HPC-X's "/SHARP".
	ncclHCAEntry = regexp.MustCompile(`\[(\d{1,4})\] ?([^\s:\[\]{},]+):(\d{1,4})(?::\d*)?(?::\d+)?/(\w+)`)
	ncclMerged   = regexp.MustCompile(`\[\d{1,4}\]=\{([^}]*)\}`)
	ncclOOB      = regexp.MustCompile(`; OOB ([^\s:]+):`)
	ncclSockets  = regexp.MustCompile(`NET/Socket ?: Using(.*)$`)
	ncclSockIf   = regexp.MustCompile(`\[\d{1,4}\]([^\s:]+):`)
	ncclGDRHCA   = regexp.MustCompile(`NET/(.+?) ?: GPU Direct RDMA (Enabled|Disabled) for HCA \d+ '([^']*)'`)
	// 2.18 to 2.28: "for GPU 18000 / HCA 0 (distance 3 <= 4), read 1 mode Default".
	ncclGDRPath = regexp.MustCompile(`GPU Direct RDMA (Enabled|Disabled) for GPU (\S+) / HCA (\S+)(?: \(([^)]*)\))?`)
	// 2.29+: "for GPU/0-98304 (rank 0) - NET/0-0 (distance 3 <= 4, read 1, mode Default)".
	ncclGDRPath29 = regexp.MustCompile(`GPU Direct RDMA (Enabled|Disabled) for GPU/(\d+-\d+) \(rank \d+\) - NET/(\d+-\d+) \(\s*([^)]*)\)`)
	ncclDMABuf    = regexp.MustCompile(`DMA-BUF is available on GPU device (\S+)`)
	// The net name has no "/" but may hold spaces: "via NET/AWS Libfabric/1(2)/GDRDMA/Shared".
	ncclChannel      = regexp.MustCompile(`Channel \d+/\d+ : .* via NET/([^/]+)/\d+(?:\(\d+\))?(/GDRDMA)?`)
	ncclFailedPlugin = regexp.MustCompile(`Failed to initialize NET plugin (.+?)\s*$`)
	ncclNetNotFound  = regexp.MustCompile(`Error: network (.+) not found\.`)
	ncclStatus       = regexp.MustCompile(`status=(?:[^(]*?\()?(\d+)`)
)

// ParseNCCLLog reads an NCCL debug log. It never fails: lines it does not know
// are skipped, so any text (even an empty log) gives a result to judge.
// Lines may carry any prefix (mpirun's "[1,0]<stdout>:", a log collector's
// time stamp, NCCL 2.26's "[date time]").
func ParseNCCLLog(out string) (NCCLLog, error) {
	l := NCCLLog{GDRByHCA: map[string]bool{}}
	for _, line := range lines(out) {
		if strings.Contains(line, "NCCL WARN") {
			l.Warnings = append(l.Warnings, classifyNCCLWarning(strings.TrimSpace(line)))
			l.readWarn(line)
			continue
		}
		if !strings.Contains(line, "NCCL INFO") && !strings.Contains(line, "NCCL TRACE") && !strings.Contains(line, "NCCL version") {
			continue
		}
		l.readInfo(line)
	}
	return l, nil
}

// addOnce appends v to list unless it is there.
func addOnce(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

func (l *NCCLLog) readWarn(line string) {
	if m := ncclNetNotFound.FindStringSubmatch(line); m != nil {
		l.FailedPlugins = addOnce(l.FailedPlugins, m[1])
	}
}

func (l *NCCLLog) readInfo(line string) {
	if m := ncclVersion.FindStringSubmatch(line); m != nil && l.Version == "" {
		l.Version = m[1]
	}
	if m := ncclNetwork.FindStringSubmatch(line); m != nil {
		if l.Network == "" {
			l.Network = m[1]
		}
		l.Networks = addOnce(l.Networks, m[1])
	}
	switch {
	case strings.Contains(line, "NET/IB") && strings.Contains(line, "No device found"):
		l.NoIBDevice = true
	case strings.Contains(line, "Failed to open libibverbs") || strings.Contains(line, "Count not open libibverbs"):
		l.IBVerbsMissing = true
	case strings.Contains(line, "NCCL_IB_DISABLE set by environment to 1."):
		l.IBDisabled = true
	}
	if m := ncclFailedPlugin.FindStringSubmatch(line); m != nil {
		l.FailedPlugins = addOnce(l.FailedPlugins, m[1])
	}
	if m := ncclIBUsing.FindStringSubmatch(line); m != nil {
		l.readHCAs(m[1])
	}
	if m := ncclSockets.FindStringSubmatch(line); m != nil {
		for _, e := range ncclSockIf.FindAllStringSubmatch(m[1], -1) {
			l.SocketIfaces = addOnce(l.SocketIfaces, e[1])
		}
	}
	if m := ncclGDRHCA.FindStringSubmatch(line); m != nil {
		// The Socket net lists its interfaces as devices too ("NET/Socket :
		// GPU Direct RDMA Disabled for HCA 0 'lo'"): no RDMA, not a peer
		// memory problem.
		if m[1] != "Socket" {
			l.GDRByHCA[m[3]] = m[2] == "Enabled"
		}
	} else if m := ncclGDRPath29.FindStringSubmatch(line); m != nil {
		l.GDRPaths = append(l.GDRPaths, NCCLGDRPath{GPU: m[2], HCA: m[3], Enabled: m[1] == "Enabled", Detail: m[4]})
	} else if m := ncclGDRPath.FindStringSubmatch(line); m != nil {
		l.GDRPaths = append(l.GDRPaths, NCCLGDRPath{GPU: m[2], HCA: m[3], Enabled: m[1] == "Enabled", Detail: m[4]})
	}
	if m := ncclDMABuf.FindStringSubmatch(line); m != nil {
		l.DMABufGPUs = addOnce(l.DMABufGPUs, m[1])
	}
	if m := ncclChannel.FindStringSubmatch(line); m != nil {
		l.NetChannels++
		l.ChannelNets = addOnce(l.ChannelNets, m[1])
		if m[2] != "" {
			l.GDRDMAChannels++
		}
	}
}

// readHCAs reads the device list of a "NET/IB : Using" line: flat entries,
// and the members of merged ones ("[0]={[0] mlx5_0:1/RoCE, [1]
// mlx5_1:1/RoCE}").
func (l *NCCLLog) readHCAs(rest string) {
	devs, _, _ := strings.Cut(rest, "; OOB")
	var entries [][]string
	for _, g := range ncclMerged.FindAllStringSubmatch(devs, -1) {
		entries = append(entries, ncclHCAEntry.FindAllStringSubmatch(g[1], -1)...)
	}
	entries = append(entries, ncclHCAEntry.FindAllStringSubmatch(ncclMerged.ReplaceAllString(devs, ""), -1)...)
	for _, e := range entries {
		idx, _ := atoi(e[1])
		port, _ := atoi(e[3])
		h := NCCLHCA{Index: idx, Device: e[2], Port: port, LinkLayer: e[4]}
		if !slices.Contains(l.HCAs, h) {
			l.HCAs = append(l.HCAs, h)
		}
	}
	if o := ncclOOB.FindStringSubmatch(rest); o != nil {
		l.OOBIface = o[1]
	}
}

// classifyNCCLWarning attaches the known cause and remedy to a WARN line.
func classifyNCCLWarning(line string) NCCLWarning {
	w := NCCLWarning{Line: line, Kind: WarnUnknown}
	switch {
	case strings.Contains(line, "ibv_modify_qp failed") && strings.Contains(line, "Network is unreachable"):
		w.Kind = WarnUnreachable
		w.Cause = "the selected GIDs have no route to each other: wrong GID index, address family or subnet"
		w.Remedy = "check each HCA's RoCE v2 IPv4 GID and the routes on its rail; filter with NCCL_IB_ADDR_FAMILY or NCCL_IB_ADDR_RANGE instead of a fixed NCCL_IB_GID_INDEX"
	case strings.Contains(line, "ibv_modify_qp failed"):
		w.Kind = WarnGIDIndex
		w.Cause = "NCCL_IB_GID_INDEX selects a GID that is not the RoCE v2 IPv4 entry on this HCA or its peer"
		w.Remedy = "unset NCCL_IB_GID_INDEX on NCCL 2.21 and later (auto-selection), or set it to the RoCE v2 IPv4 index read from the GID table, identical on every HCA"
	case strings.Contains(line, "Got completion from peer"):
		m := ncclStatus.FindStringSubmatch(line)
		if m != nil && m[1] == "12" || strings.Contains(line, "retry") {
			w.Kind = WarnRetryExceeded
			w.Cause = "transport retry counter exceeded (IBV_WC_RETRY_EXC_ERR): packets were lost and not recovered — a lossy RDMA class (PFC or trust not matching between NIC and switch), a link flap, or a peer that died"
			w.Remedy = "check PFC on the RDMA priority on both NIC (mlnx_qos) and switch, trust dscp, switch drop and pause counters and link state; a larger NCCL_IB_TIMEOUT only hides it"
		} else {
			w.Kind = WarnCompletionError
			w.Cause = "a work request completed with an error on the peer connection"
			w.Remedy = "read the status and vendor error in the line; check the peer's log for the first failure"
		}
	case strings.Contains(line, "ibv_reg_mr") && strings.Contains(line, "failed"),
		strings.Contains(line, "ibv_create_qp") && strings.Contains(line, "failed"):
		w.Kind = WarnMemlock
		w.Cause = "the locked-memory limit (ulimit -l) is too low to register buffers or create queue pairs"
		w.Remedy = "set memlock unlimited (/etc/security/limits.conf, LimitMEMLOCK=infinity for services, --ulimit memlock=-1 for containers)"
	case strings.Contains(line, "GID table changed"):
		w.Kind = WarnGIDChanged
		w.Cause = "an IP address of an RDMA netdev changed after NCCL initialised"
		w.Remedy = "keep RDMA interface addresses stable while jobs run, then restart the job"
	case strings.Contains(line, "incompatible devices"):
		w.Kind = WarnIncompatible
		w.Cause = "NICs of different link types (InfiniBand and RoCE) were selected"
		w.Remedy = "select NICs of one link type with NCCL_IB_HCA, using = for exact names"
	}
	return w
}
