package fabric

import (
	"maps"
	"slices"
	"strings"
)

// NCCLVarKind says how an NCCL variable's value is parsed.
type NCCLVarKind int

const (
	// NCCLKindInt is a decimal integer in Min..Max.
	NCCLKindInt NCCLVarKind = iota
	// NCCLKindBool01 is "0" or "1".
	NCCLKindBool01
	// NCCLKindEnum is one of Values, exactly as spelled there.
	NCCLKindEnum
	// NCCLKindEnumOrInt is one of Values or a legacy integer in Min..Max.
	NCCLKindEnumOrInt
	// NCCLKindEnumList is a comma list of Values, optionally led by "^" (all but these).
	NCCLKindEnumList
	// NCCLKindString is any non-empty string.
	NCCLKindString
	// NCCLKindPath is a file path; "~" is not expanded.
	NCCLKindPath
	// NCCLKindCIDR is an IP prefix such as 10.0.0.0/16.
	NCCLKindCIDR
	// NCCLKindHCAList is an NCCL_IB_HCA list, see ParseHCAList.
	NCCLKindHCAList
	// NCCLKindIfaceList is an interface prefix list: "[^][=]name,...".
	NCCLKindIfaceList
	// NCCLKindAlgoList is an NCCL_ALGO / NCCL_PROTO list: Values matched
	// case-insensitively, optionally led by "^", and from 2.24
	// per-collective lists "func:list;func:list".
	NCCLKindAlgoList
)

var ncclKindNames = map[NCCLVarKind]string{
	NCCLKindInt: "int", NCCLKindBool01: "bool01", NCCLKindEnum: "enum", NCCLKindEnumOrInt: "enum_or_int",
	NCCLKindEnumList: "enum_list", NCCLKindString: "string", NCCLKindPath: "path", NCCLKindCIDR: "cidr",
	NCCLKindHCAList: "hca_list", NCCLKindIfaceList: "iface_list", NCCLKindAlgoList: "algo_list",
}

// String returns the kind's snake_case name, e.g. "hca_list".
func (k NCCLVarKind) String() string {
	if n, ok := ncclKindNames[k]; ok {
		return n
	}
	return "unknown"
}

// NCCLVar describes one NCCL environment variable. Defaults and history
// come from NCCL's code at the latest patch tag of each minor from v2.18.6-1
// to v2.30.7-1 (NCCL_PARAM lines and getenv calls in src/; file names in the
// entries' comments). Since is the first minor that reads the variable
// ("" for 2.18 or earlier); ValueSince is the first minor that knows an
// enum value; DefaultChanged records default and meaning history.
type NCCLVar struct {
	Name           string
	Kind           NCCLVarKind
	Min, Max       int64
	Values         []string
	ValueSince     map[string]string
	Default        string
	Since          string
	DefaultChanged string
	Doc            string
}

var (
	ncclAddrFamilies = []string{"AF_INET", "AF_INET6"}
	// src/graph/topo.h topoPathTypeStr, matched case-sensitively by
	// ncclGetLevel; C2C from 2.26, P2C from 2.27.
	ncclGDRLevels = []string{"LOC", "PIX", "PXB", "PHB", "SYS", "NVL", "NVB", "C2C", "P2C", "PXN"}
	// src/debug.cc: VERSION WARN INFO ABORT TRACE in every release checked;
	// ABORT is only level 4 (it logs what INFO does).
	ncclDebugLevels = []string{"VERSION", "WARN", "INFO", "ABORT", "TRACE"}
	ncclSubsystems  = []string{"INIT", "COLL", "P2P", "SHM", "NET", "GRAPH", "TUNING", "ENV", "ALLOC", "ALLOC_HOST",
		"CALL", "PROXY", "NVLS", "BOOTSTRAP", "REG", "PROFILE", "RAS", "DESTROY", "ALL"}
	// src/enqueue.cc / src/graph/tuning.cc algorithm and protocol names
	// (strcasecmp); PAT from 2.23.
	ncclAlgorithms = []string{"Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"}
	ncclProtocols  = []string{"LL", "LL128", "Simple"}
)

// ncclVarTable is kept sorted by name.
var ncclVarTable = []NCCLVar{
	{Name: "NCCL_ALGO", Kind: NCCLKindAlgoList, Values: ncclAlgorithms, ValueSince: map[string]string{"PAT": "2.23"}, Default: "auto",
		DefaultChanged: "up to 2.23 unknown names are ignored; from 2.24 they fail init, and per-collective lists (allreduce:tree;allgather:ring) are accepted",
		Doc:            "Algorithms NCCL may use (case-insensitive), ^ excludes."},
	{Name: "NCCL_BUFFSIZE", Kind: NCCLKindInt, Min: 1, Max: 1<<31 - 1, Default: "4194304 (4 MiB)",
		Doc: "Buffer size per channel and peer in bytes; NCCL does not check it."},
	{Name: "NCCL_CONF_FILE", Kind: NCCLKindPath, Default: "unset", Since: "2.23",
		Doc: "Configuration file read instead of ~/.nccl.conf (before /etc/nccl.conf); no ~ expansion. NCCL reads it from the process environment only (src/misc/param.cc), so it cannot be set in a configuration file."},
	{Name: "NCCL_CROSS_NIC", Kind: NCCLKindInt, Min: 0, Max: 2, Default: "2",
		Doc: "0 never lets rings/trees cross NICs (rail-optimised fabrics), 1 allows it, 2 prefers the same NIC."},
	{Name: "NCCL_CUMEM_ENABLE", Kind: NCCLKindBool01, Default: "-2 (auto)", DefaultChanged: "-2 (auto) since 2.19, 0 in 2.18",
		Doc: "Use the CUDA cuMem* API for NCCL buffers."},
	{Name: "NCCL_DEBUG", Kind: NCCLKindEnum, Values: ncclDebugLevels, Default: "unset",
		Doc: "Log level (case-insensitive); ABORT logs what INFO does; TRACE needs a TRACE build."},
	{Name: "NCCL_DEBUG_FILE", Kind: NCCLKindPath, Default: "stdout",
		Doc: "Log file; %h expands to the host name, %p to the pid."},
	{Name: "NCCL_DEBUG_SUBSYS", Kind: NCCLKindEnumList, Values: ncclSubsystems, Default: "INIT,BOOTSTRAP,ENV",
		ValueSince:     map[string]string{"BOOTSTRAP": "2.21", "REG": "2.21", "PROFILE": "2.22", "RAS": "2.24", "ALLOC_HOST": "2.30", "DESTROY": "2.30"},
		DefaultChanged: "INIT,BOOTSTRAP,ENV since 2.23, INIT,ENV before; up to 2.29 unknown names are skipped, in 2.30 one resets the mask to the default",
		Doc:            "Subsystems logged at INFO; NET is not in the default, so pre-flight sets INIT,NET."},
	{Name: "NCCL_DMABUF_ENABLE", Kind: NCCLKindBool01, Default: "1",
		Doc: "Use DMA-BUF for GPUDirect RDMA when the GPU, driver and kernel support it (preferred over nvidia-peermem)."},
	{Name: "NCCL_IB_ADAPTIVE_ROUTING", Kind: NCCLKindBool01, Default: "-2 (auto: off on RoCE, on on InfiniBand)",
		Doc: "Adaptive routing on IB/RoCE QPs."},
	{Name: "NCCL_IB_ADDR_FAMILY", Kind: NCCLKindEnum, Values: ncclAddrFamilies, Default: "AF_INET", Since: "2.21",
		Doc: "Address family of the RoCE GID NCCL auto-selects; any other value silently means AF_INET."},
	{Name: "NCCL_IB_ADDR_RANGE", Kind: NCCLKindCIDR, Default: "unset", Since: "2.21",
		Doc: "Restricts GID auto-selection to addresses in this prefix, parsed in NCCL_IB_ADDR_FAMILY's family: an IPv6 prefix needs AF_INET6 (a mismatch is silently no filter)."},
	{Name: "NCCL_IB_AR_THRESHOLD", Kind: NCCLKindInt, Min: 0, Max: 1<<31 - 1, Default: "8192", DefaultChanged: "-2 (auto, 8192) in 2.30, 8192 before",
		Doc: "Message size in bytes from which adaptive routing is used; ignored with NCCL_IB_OOO_RQ=1."},
	{Name: "NCCL_IB_DATA_DIRECT", Kind: NCCLKindInt, Min: 0, Max: 2, Default: "1", Since: "2.27",
		Doc: "Data Direct NICs: 0 off, 1 expose only the Data Direct device, 2 expose both it and the PCIe device (mlx5 with DMA-BUF)."},
	{Name: "NCCL_IB_DISABLE", Kind: NCCLKindBool01, Default: "0",
		Doc: "1 disables the IB/RoCE transport and forces sockets."},
	{Name: "NCCL_IB_ECE_ENABLE", Kind: NCCLKindBool01, Default: "1", Since: "2.23",
		Doc: "Enhanced connection establishment; 2.19 to 2.22 always use it, 2.23 added this switch to turn it off."},
	{Name: "NCCL_IB_FIFO_TC", Kind: NCCLKindInt, Min: 0, Max: 255, Default: "-1 (off)", Since: "2.22",
		DefaultChanged: "from 2.24 -1 is off and any 0-255 applies to every receiver-side QP; in 2.22-2.23 0 is off and a value applies to the first QP only",
		Doc:            "Traffic class of the flow-control (CTS) messages on RoCE."},
	{Name: "NCCL_IB_GID_INDEX", Kind: NCCLKindInt, Min: -1, Max: 255, Default: "-1",
		DefaultChanged: "-1 (auto) since 2.21, 0 before",
		Doc:            "GID table index; a set value applies to every HCA. Leave unset on 2.21+ (auto-selects RoCE v2)."},
	{Name: "NCCL_IB_HCA", Kind: NCCLKindHCAList, Default: "unset (all HCAs)",
		Doc: "HCAs to use: [^][=]name[:port],...; without = names are prefixes (mlx5_1 also matches mlx5_10)."},
	{Name: "NCCL_IB_MERGE_NICS", Kind: NCCLKindBool01, Default: "1", Since: "2.20",
		Doc: "Merge the ports of dual-port NICs into one virtual NIC."},
	{Name: "NCCL_IB_MERGE_VFS", Kind: NCCLKindBool01, Default: "1",
		Doc: "Treat the virtual functions of one NIC as its physical function when merging."},
	{Name: "NCCL_IB_OOO_RQ", Kind: NCCLKindBool01, Default: "0", Since: "2.30",
		Doc: "Out-of-order receive queues where mlx5 offers them."},
	{Name: "NCCL_IB_PCI_RELAXED_ORDERING", Kind: NCCLKindInt, Min: 0, Max: 2, Default: "2",
		Doc: "PCIe relaxed ordering for registered memory: 1 and 2 both use it when the verbs library can (ibv_reg_mr_iova2); 0 off."},
	{Name: "NCCL_IB_QPS_PER_CONNECTION", Kind: NCCLKindInt, Min: 1, Max: 128, Default: "1",
		Doc: "Queue pairs per connection; the effective count is the larger of both sides'."},
	{Name: "NCCL_IB_RETRY_CNT", Kind: NCCLKindInt, Min: 0, Max: 7, Default: "7",
		Doc: "IB/RoCE transport retry count."},
	{Name: "NCCL_IB_RETURN_ASYNC_EVENTS", Kind: NCCLKindBool01, Default: "1", Since: "2.23",
		Doc: "A fatal IB async event makes later NCCL calls fail with a system error."},
	{Name: "NCCL_IB_ROCE_VERSION_NUM", Kind: NCCLKindInt, Min: 1, Max: 2, Default: "2", Since: "2.21",
		Doc: "RoCE version of the GID NCCL auto-selects."},
	{Name: "NCCL_IB_SL", Kind: NCCLKindInt, Min: 0, Max: 15, Default: "-1",
		DefaultChanged: "-1 (communicator trafficClass config, else 0) since 2.26, 0 before",
		Doc:            "Service level; on RoCE mlx5 makes it the Ethernet priority (sl & 7, drivers/infiniband/hw/mlx5/qp.c), so it must be the fabric's RDMA priority when set."},
	{Name: "NCCL_IB_SPLIT_DATA_ON_QPS", Kind: NCCLKindBool01, Default: "0",
		DefaultChanged: "0 since 2.20, 1 in 2.18-2.19",
		Doc:            "0 sends messages round-robin over QPs, 1 splits each message across them."},
	{Name: "NCCL_IB_TC", Kind: NCCLKindInt, Min: 0, Max: 255, Default: "-1",
		DefaultChanged: "-1 (communicator trafficClass config, else 0) since 2.26, 0 before",
		Doc:            "GRH traffic class of RoCE data; mlx5 puts traffic_class >> 2 on the wire as the DSCP (drivers/infiniband/hw/mlx5/qp.c), the ECN bits come from the NIC's congestion control. The OFED tc/*/traffic_class setting overrides it."},
	{Name: "NCCL_IB_TIMEOUT", Kind: NCCLKindInt, Min: 0, Max: 31, Default: "20",
		DefaultChanged: "20 since 2.23, 18 before (from 2.14)",
		Doc:            "QP timeout 4.096 us x 2^value (0 means infinite)."},
	{Name: "NCCL_IGNORE_CPU_AFFINITY", Kind: NCCLKindBool01, Default: "0",
		Doc: "Ignore the process CPU affinity when choosing GPU-local CPUs."},
	{Name: "NCCL_MAX_NCHANNELS", Kind: NCCLKindInt, Min: 1, Max: 64, Default: "auto (the maximum)",
		DefaultChanged: "at most 64 since 2.25, 32 before (larger values are cut down)",
		Doc:            "Most channels (SMs) NCCL uses."},
	{Name: "NCCL_MIN_NCHANNELS", Kind: NCCLKindInt, Min: 0, Max: 64, Default: "auto (0)",
		DefaultChanged: "at most 64 since 2.25, 32 before (larger values are cut down)",
		Doc:            "Fewest channels NCCL uses."},
	{Name: "NCCL_NET", Kind: NCCLKindString, Default: "unset (NCCL picks)",
		Doc: "Network by name (IB, Socket, or an external plugin's name, case-insensitive); do not set it for RoCE."},
	{Name: "NCCL_NET_GDR_C2C", Kind: NCCLKindBool01, Default: "1", Since: "2.26", DefaultChanged: "1 since 2.27, 0 in 2.26",
		Doc: "Allow GPUDirect RDMA to a NIC reached through the CPU's C2C link; from 2.29 it makes the automatic NCCL_NET_GDR_LEVEL P2C."},
	{Name: "NCCL_NET_GDR_LEVEL", Kind: NCCLKindEnumOrInt, Values: ncclGDRLevels, ValueSince: map[string]string{"C2C": "2.26", "P2C": "2.27"},
		Min: 0, Max: 5, Default: "auto (PXB; from 2.29 P2C with NCCL_NET_GDR_C2C=1)",
		Doc: "Farthest GPU-NIC path that still uses GPUDirect RDMA (case-sensitive; an unknown name silently means auto); legacy integers 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4-5 SYS."},
	{Name: "NCCL_NET_GDR_READ", Kind: NCCLKindBool01, Default: "-2 (auto: on for compute capability 8.0+)",
		Doc: "Use GPUDirect RDMA for sends (NIC reads GPU memory)."},
	{Name: "NCCL_NET_PLUGIN", Kind: NCCLKindString, Default: "unset (tries libnccl-net.so)",
		DefaultChanged: "a comma list since 2.27; none (no external plugin) since 2.28",
		Doc:            "Network plugin library: a name, a suffix of libnccl-net-<suffix>.so, or none."},
	{Name: "NCCL_NET_SHARED_BUFFERS", Kind: NCCLKindBool01, Default: "-2 (auto)",
		Doc: "Share network buffers between peers (PXN)."},
	{Name: "NCCL_NSOCKS_PERTHREAD", Kind: NCCLKindInt, Min: 1, Max: 64, Default: "-2 (auto: 8 on AWS, else 1)",
		Doc: "Sockets per helper thread of the Socket transport; threads x sockets is at most 64."},
	{Name: "NCCL_NVLS_ENABLE", Kind: NCCLKindInt, Min: 0, Max: 2, Default: "2 (auto)",
		Doc: "NVLink SHARP: 0 off, 1 on, 2 where the GPUs support multicast."},
	{Name: "NCCL_P2P_PXN_LEVEL", Kind: NCCLKindInt, Min: 0, Max: 2, Default: "2",
		Doc: "PXN for point-to-point: 0 never, 1 when needed, 2 always to aggregate."},
	{Name: "NCCL_PROTO", Kind: NCCLKindAlgoList, Values: ncclProtocols, Default: "auto",
		DefaultChanged: "up to 2.23 unknown names are ignored; from 2.24 they fail init, and per-collective lists are accepted",
		Doc:            "Protocols NCCL may use (case-insensitive), ^ excludes."},
	{Name: "NCCL_PXN_DISABLE", Kind: NCCLKindBool01, Default: "0",
		Doc: "1 turns PXN (sending through a peer GPU's NIC over NVLink) off."},
	{Name: "NCCL_SOCKET_FAMILY", Kind: NCCLKindEnum, Values: ncclAddrFamilies, Default: "unset",
		Doc: "Address family of the socket (bootstrap/OOB) interface; any other value silently means any."},
	{Name: "NCCL_SOCKET_IFNAME", Kind: NCCLKindIfaceList, Default: "auto (ib* first, then ^docker,lo; ^docker,lo,virbr from 2.28)",
		Doc: "Interfaces for sockets and NET/IB's out-of-band channel: prefix list, ^ excludes, = exact; a value of one character counts as unset."},
	{Name: "NCCL_SOCKET_NTHREADS", Kind: NCCLKindInt, Min: 1, Max: 16, Default: "-2 (auto: 2 on AWS, else 1)",
		Doc: "Helper threads per connection of the Socket transport."},
	{Name: "NCCL_TOPO_FILE", Kind: NCCLKindPath, Default: "unset (/var/run/nvidia-topologyd/virtualTopology.xml when present)",
		Doc: "Topology XML describing the node; a missing file is logged and ignored."},
}

// LookupNCCLVar returns the variable with exactly this name.
func LookupNCCLVar(name string) (NCCLVar, bool) {
	i, ok := slices.BinarySearchFunc(ncclVarTable, name, func(v NCCLVar, n string) int { return strings.Compare(v.Name, n) })
	if !ok {
		return NCCLVar{}, false
	}
	v := ncclVarTable[i]
	v.Values = slices.Clone(v.Values)
	v.ValueSince = maps.Clone(v.ValueSince)
	return v, true
}
