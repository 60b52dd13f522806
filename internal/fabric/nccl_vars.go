package fabric

import (
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
)

var ncclKindNames = map[NCCLVarKind]string{
	NCCLKindInt: "int", NCCLKindBool01: "bool01", NCCLKindEnum: "enum", NCCLKindEnumOrInt: "enum_or_int",
	NCCLKindEnumList: "enum_list", NCCLKindString: "string", NCCLKindPath: "path", NCCLKindCIDR: "cidr",
	NCCLKindHCAList: "hca_list", NCCLKindIfaceList: "iface_list",
}

// String returns the kind's snake_case name, e.g. "hca_list".
func (k NCCLVarKind) String() string {
	if n, ok := ncclKindNames[k]; ok {
		return n
	}
	return "unknown"
}

// NCCLVar describes one NCCL environment variable (research/host.md §5,
// defaults from NCCL's code as of 2.30). Since is the first NCCL version
// that reads it, where known; DefaultChanged records default history.
type NCCLVar struct {
	Name           string
	Kind           NCCLVarKind
	Min, Max       int64
	Values         []string
	Default        string
	Since          string
	DefaultChanged string
	Doc            string
}

var (
	ncclAddrFamilies = []string{"AF_INET", "AF_INET6"}
	ncclGDRLevels    = []string{"LOC", "PIX", "PXB", "PHB", "SYS", "NVL", "NVB", "C2C", "P2C", "PXN"}
	ncclDebugLevels  = []string{"VERSION", "WARN", "INFO", "TRACE"}
	ncclSubsystems   = []string{"INIT", "COLL", "P2P", "SHM", "NET", "GRAPH", "TUNING", "ENV", "ALLOC", "ALLOC_HOST",
		"CALL", "PROXY", "NVLS", "BOOTSTRAP", "REG", "PROFILE", "RAS", "DESTROY", "ALL"}
)

// ncclVarTable is kept sorted by name.
var ncclVarTable = []NCCLVar{
	{Name: "NCCL_CONF_FILE", Kind: NCCLKindPath, Default: "unset", Since: "2.23",
		Doc: "Configuration file read instead of ~/.nccl.conf (before /etc/nccl.conf); no ~ expansion."},
	{Name: "NCCL_CROSS_NIC", Kind: NCCLKindInt, Min: 0, Max: 2, Default: "2",
		Doc: "0 never lets rings/trees cross NICs (rail-optimised fabrics), 1 allows it, 2 prefers the same NIC."},
	{Name: "NCCL_DEBUG", Kind: NCCLKindEnum, Values: ncclDebugLevels, Default: "unset",
		Doc: "Log level; TRACE needs a TRACE build."},
	{Name: "NCCL_DEBUG_FILE", Kind: NCCLKindPath, Default: "stdout",
		Doc: "Log file; %h expands to the host name, %p to the pid."},
	{Name: "NCCL_DEBUG_SUBSYS", Kind: NCCLKindEnumList, Values: ncclSubsystems, Default: "INIT,BOOTSTRAP,ENV",
		DefaultChanged: "INIT,BOOTSTRAP,ENV in 2.30; INIT,ENV in 2.2x and before",
		Doc:            "Subsystems logged at INFO; NET is not in the default, so pre-flight sets INIT,NET."},
	{Name: "NCCL_DMABUF_ENABLE", Kind: NCCLKindBool01, Default: "1", Since: "2.13",
		Doc: "Use DMA-BUF for GPUDirect RDMA when the GPU, driver and kernel support it (preferred over nvidia-peermem)."},
	{Name: "NCCL_IB_ADAPTIVE_ROUTING", Kind: NCCLKindBool01, Default: "-2 (auto: off on RoCE, on on InfiniBand)",
		Doc: "Adaptive routing on IB/RoCE QPs."},
	{Name: "NCCL_IB_ADDR_FAMILY", Kind: NCCLKindEnum, Values: ncclAddrFamilies, Default: "AF_INET", Since: "2.21",
		Doc: "Address family of the RoCE GID NCCL auto-selects."},
	{Name: "NCCL_IB_ADDR_RANGE", Kind: NCCLKindCIDR, Default: "unset", Since: "2.21",
		Doc: "Restricts GID auto-selection to addresses in this prefix."},
	{Name: "NCCL_IB_DISABLE", Kind: NCCLKindBool01, Default: "0",
		Doc: "1 disables the IB/RoCE transport and forces sockets."},
	{Name: "NCCL_IB_ECE_ENABLE", Kind: NCCLKindBool01, Default: "1",
		Doc: "Enhanced connection establishment."},
	{Name: "NCCL_IB_FIFO_TC", Kind: NCCLKindInt, Min: 0, Max: 255, Default: "-1 (same as NCCL_IB_TC)", Since: "2.22.3",
		Doc: "Traffic class of control (CTS) messages."},
	{Name: "NCCL_IB_GID_INDEX", Kind: NCCLKindInt, Min: -1, Max: 255, Default: "-1",
		DefaultChanged: "-1 (auto) since 2.21, 0 before",
		Doc:            "GID table index; a set value applies to every HCA. Leave unset on 2.21+ (auto-selects RoCE v2)."},
	{Name: "NCCL_IB_HCA", Kind: NCCLKindHCAList, Default: "unset (all HCAs)",
		Doc: "HCAs to use: [^][=]name[:port],...; without = names are prefixes (mlx5_1 also matches mlx5_10)."},
	{Name: "NCCL_IB_MERGE_NICS", Kind: NCCLKindBool01, Default: "1", Since: "2.20",
		Doc: "Merge the ports of dual-port NICs into one virtual NIC."},
	{Name: "NCCL_IB_QPS_PER_CONNECTION", Kind: NCCLKindInt, Min: 1, Max: 128, Default: "1",
		Doc: "Queue pairs per connection; the effective count is the larger of both sides'."},
	{Name: "NCCL_IB_RETRY_CNT", Kind: NCCLKindInt, Min: 0, Max: 7, Default: "7",
		Doc: "IB/RoCE transport retry count."},
	{Name: "NCCL_IB_ROCE_VERSION_NUM", Kind: NCCLKindInt, Min: 1, Max: 2, Default: "2", Since: "2.21",
		Doc: "RoCE version of the GID NCCL auto-selects."},
	{Name: "NCCL_IB_SL", Kind: NCCLKindInt, Min: 0, Max: 15, Default: "-1 (communicator trafficClass config, else 0)",
		Doc: "InfiniBand service level."},
	{Name: "NCCL_IB_SPLIT_DATA_ON_QPS", Kind: NCCLKindBool01, Default: "0",
		DefaultChanged: "0 since 2.20, 1 in 2.18-2.19",
		Doc:            "0 sends messages round-robin over QPs, 1 splits each message across them."},
	{Name: "NCCL_IB_TC", Kind: NCCLKindInt, Min: 0, Max: 255, Default: "-1",
		DefaultChanged: "-1 (communicator trafficClass config, else 0) since 2.26, 0 before",
		Doc:            "ToS / GRH traffic class byte of RoCE data (106 = DSCP 26 + ECT(0)); the OFED tc/*/traffic_class setting overrides it."},
	{Name: "NCCL_IB_TIMEOUT", Kind: NCCLKindInt, Min: 0, Max: 31, Default: "20",
		DefaultChanged: "20 since 2.23, 18 since 2.14, 14 before",
		Doc:            "QP timeout 4.096 us x 2^value (0 or 32+ mean infinite)."},
	{Name: "NCCL_IGNORE_CPU_AFFINITY", Kind: NCCLKindBool01, Default: "0",
		Doc: "Ignore the process CPU affinity when choosing GPU-local CPUs."},
	{Name: "NCCL_NET", Kind: NCCLKindString, Default: "unset (NCCL picks)",
		Doc: "Network plugin by name (IB, Socket, or an external plugin's name); do not set it for RoCE."},
	{Name: "NCCL_NET_GDR_C2C", Kind: NCCLKindBool01, Default: "1", DefaultChanged: "1 since 2.27",
		Doc: "Allow GPUDirect RDMA over C2C links; makes the automatic NCCL_NET_GDR_LEVEL P2C."},
	{Name: "NCCL_NET_GDR_LEVEL", Kind: NCCLKindEnumOrInt, Values: ncclGDRLevels, Min: 0, Max: 5, Default: "auto (PXB; P2C with NCCL_NET_GDR_C2C=1)",
		Doc: "Farthest GPU-NIC path that still uses GPUDirect RDMA; legacy integers 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4-5 SYS."},
	{Name: "NCCL_NET_GDR_READ", Kind: NCCLKindBool01, Default: "-2 (auto: on for compute capability 8.0+)",
		Doc: "Use GPUDirect RDMA for sends (NIC reads GPU memory)."},
	{Name: "NCCL_NET_PLUGIN", Kind: NCCLKindString, Default: "unset (tries libnccl-net.so)",
		Doc: "Network plugin library: a name, a suffix of libnccl-net-<suffix>.so, or none."},
	{Name: "NCCL_SOCKET_FAMILY", Kind: NCCLKindEnum, Values: ncclAddrFamilies, Default: "unset",
		Doc: "Address family of the socket (bootstrap/OOB) interface."},
	{Name: "NCCL_SOCKET_IFNAME", Kind: NCCLKindIfaceList, Default: "auto (ib* first, then not docker/lo/virbr)",
		Doc: "Interfaces for sockets and NET/IB's out-of-band channel: prefix list, ^ excludes, = exact."},
}

// NCCLVars returns the known NCCL variables, sorted by name.
func NCCLVars() []NCCLVar {
	out := make([]NCCLVar, len(ncclVarTable))
	for i, v := range ncclVarTable {
		v.Values = slices.Clone(v.Values)
		out[i] = v
	}
	return out
}

// LookupNCCLVar returns the variable with exactly this name.
func LookupNCCLVar(name string) (NCCLVar, bool) {
	i, ok := slices.BinarySearchFunc(ncclVarTable, name, func(v NCCLVar, n string) int { return strings.Compare(v.Name, n) })
	if !ok {
		return NCCLVar{}, false
	}
	v := ncclVarTable[i]
	v.Values = slices.Clone(v.Values)
	return v, true
}
