package facts

import (
	"regexp"
	"slices"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// NCCLLog is what an NCCL debug log (NCCL_DEBUG=INFO
// NCCL_DEBUG_SUBSYS=INIT,NET) says about the network path. The log comes from
// a test run such as nccl-tests' all_reduce_perf rather than a fixed command;
// wrap that command with [WithNCCLDebug].
type NCCLLog struct {
	// Version is the NCCL version, e.g. "2.21.5+cuda12.4".
	Version string
	// Network is the first "Using network X" value: "IB" for RDMA (RoCE
	// included), "Socket" when RDMA was unusable, "IBext" and others for
	// plugins.
	Network string
	// Networks are all distinct networks reported, in order; more than one
	// means ranks disagreed.
	Networks []string
	// HCAs are the devices from "NET/IB : Using [0]mlx5_0:1/RoCE ...", each
	// once.
	HCAs []NCCLHCA
	// OOBIface is the out-of-band interface from the same line.
	OOBIface string
	// NoIBDevice reports "NET/IB : No device found."
	NoIBDevice bool
	// GDRByHCA maps an HCA name to the last "GPU Direct RDMA
	// Enabled|Disabled for HCA" verdict (printed up to NCCL 2.29 with NET).
	GDRByHCA map[string]bool
	// GDRPaths are the per GPU/HCA "GPU Direct RDMA ... for GPU" lines.
	GDRPaths []NCCLGDRPath
	// DMABufGPUs are the GPUs with "DMA-BUF is available on GPU device N".
	DMABufGPUs []string
	// NetChannels counts channel lines that go "via NET/..."; GDRDMAChannels
	// counts those among them that use GPU Direct RDMA ("/GDRDMA"), the
	// reliable success signal.
	NetChannels, GDRDMAChannels int
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
	// LinkLayer is "RoCE" or "IB".
	LinkLayer string
}

// NCCLGDRPath is a "GPU Direct RDMA Enabled|Disabled for GPU g / HCA h" line.
type NCCLGDRPath struct {
	// GPU and HCA are as printed (a bus id or an index).
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
	ncclVersion  = regexp.MustCompile(`NCCL version (\S+)`)
	ncclNetwork  = regexp.MustCompile(`\bUsing network (\S+)`)
	ncclIBUsing  = regexp.MustCompile(`NET/IB ?: Using (.*)$`)
	ncclHCAEntry = regexp.MustCompile(`\[(\d{1,4})\]([^\s:\[\]]+):(\d{1,4})(?:/(\w+))?`)
	ncclOOB      = regexp.MustCompile(`; OOB ([^\s:]+):`)
	ncclGDRHCA   = regexp.MustCompile(`NET/\S+ ?: GPU Direct RDMA (Enabled|Disabled) for HCA \d+ '([^']*)'`)
	ncclGDRPath  = regexp.MustCompile(`GPU Direct RDMA (Enabled|Disabled) for GPU (\S+) / HCA (\S+)(?: \(([^)]*)\))?`)
	ncclDMABuf   = regexp.MustCompile(`DMA-BUF is available on GPU device (\S+)`)
	ncclChannel  = regexp.MustCompile(`Channel \d+/\d+ : .* via (NET/\S+)`)
	ncclStatus   = regexp.MustCompile(`status=(?:[^(]*?\()?(\d+)`)
)

// ParseNCCLLog reads an NCCL debug log. It never fails: lines it does not know
// are skipped, so any text (even an empty log) gives a result to judge.
func ParseNCCLLog(out string) (NCCLLog, error) {
	l := NCCLLog{GDRByHCA: map[string]bool{}}
	for _, line := range lines(out) {
		if strings.Contains(line, "NCCL WARN") {
			l.Warnings = append(l.Warnings, classifyNCCLWarning(strings.TrimSpace(line)))
			continue
		}
		if !strings.Contains(line, "NCCL INFO") && !strings.Contains(line, "NCCL version") {
			continue
		}
		l.readInfo(line)
	}
	return l, nil
}

func (l *NCCLLog) readInfo(line string) {
	if m := ncclVersion.FindStringSubmatch(line); m != nil && l.Version == "" {
		l.Version = m[1]
	}
	if m := ncclNetwork.FindStringSubmatch(line); m != nil {
		if l.Network == "" {
			l.Network = m[1]
		}
		if !slices.Contains(l.Networks, m[1]) {
			l.Networks = append(l.Networks, m[1])
		}
	}
	if strings.Contains(line, "No device found") && strings.Contains(line, "NET/IB") {
		l.NoIBDevice = true
	}
	if m := ncclIBUsing.FindStringSubmatch(line); m != nil {
		devs, _, _ := strings.Cut(m[1], "; OOB")
		for _, e := range ncclHCAEntry.FindAllStringSubmatch(devs, -1) {
			idx, _ := atoi(e[1])
			port, _ := atoi(e[3])
			h := NCCLHCA{Index: idx, Device: e[2], Port: port, LinkLayer: e[4]}
			if !slices.Contains(l.HCAs, h) {
				l.HCAs = append(l.HCAs, h)
			}
		}
		if o := ncclOOB.FindStringSubmatch(m[1]); o != nil {
			l.OOBIface = o[1]
		}
	}
	if m := ncclGDRHCA.FindStringSubmatch(line); m != nil {
		l.GDRByHCA[m[2]] = m[1] == "Enabled"
	} else if m := ncclGDRPath.FindStringSubmatch(line); m != nil {
		l.GDRPaths = append(l.GDRPaths, NCCLGDRPath{GPU: m[2], HCA: m[3], Enabled: m[1] == "Enabled", Detail: m[4]})
	}
	if m := ncclDMABuf.FindStringSubmatch(line); m != nil && !slices.Contains(l.DMABufGPUs, m[1]) {
		l.DMABufGPUs = append(l.DMABufGPUs, m[1])
	}
	if m := ncclChannel.FindStringSubmatch(line); m != nil {
		l.NetChannels++
		if strings.Contains(m[1], "/GDRDMA") {
			l.GDRDMAChannels++
		}
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

// WithNCCLDebug returns c with the environment that makes NCCL log what
// [ParseNCCLLog] reads: NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=INIT,NET (NET is
// not in NCCL's default subsystems).
func WithNCCLDebug(c shell.Command) shell.Command {
	return c.Env("NCCL_DEBUG", "INFO").Env("NCCL_DEBUG_SUBSYS", "INIT,NET")
}
