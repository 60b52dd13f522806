package hostprofile

// dcqcnParam is one DCQCN firmware parameter and its three views: the OFED
// sysfs file under /sys/class/net/<if>/ecn/roce_<side>/, the upstream debugfs
// file under /sys/kernel/debug/mlx5/<bdf>/cc_params/ and the mlxconfig NV
// configuration name (without the _P1 port suffix).
type dcqcnParam struct {
	side     string // "rp" or "np"
	sysfs    string // "" when OFED sysfs has no such file
	debugfs  string // "" when debugfs has no such file
	nvconfig string // "" when NV config has no such parameter
	def      int    // firmware default
}

// dcqcnParams are the ConnectX firmware defaults (NVIDIA's DCQCN parameter
// documentation, "mlxconfig q" dumps), in the order the upstream kernel's
// drivers/infiniband/hw/mlx5/cong.c creates the cc_params files.
var dcqcnParams = []dcqcnParam{
	{"rp", "clamp_tgt_rate", "rp_clamp_tgt_rate", "CLAMP_TGT_RATE", 0},
	{"rp", "clamp_tgt_rate_after_time_inc", "rp_clamp_tgt_rate_ati", "CLAMP_TGT_RATE_AFTER_TIME_INC", 1},
	{"rp", "rpg_time_reset", "rp_time_reset", "RPG_TIME_RESET", 300},
	{"rp", "rpg_byte_reset", "rp_byte_reset", "RPG_BYTE_RESET", 32767},
	{"rp", "rpg_threshold", "rp_threshold", "RPG_THRESHOLD", 1},
	{"rp", "rpg_ai_rate", "rp_ai_rate", "RPG_AI_RATE", 5},
	{"rp", "rpg_max_rate", "rp_max_rate", "RPG_MAX_RATE", 0},
	{"rp", "rpg_hai_rate", "rp_hai_rate", "RPG_HAI_RATE", 50},
	{"rp", "rpg_min_dec_fac", "rp_min_dec_fac", "RPG_MIN_DEC_FAC", 50},
	{"rp", "rpg_min_rate", "rp_min_rate", "RPG_MIN_RATE", 1},
	{"rp", "rate_to_set_on_first_cnp", "rp_rate_to_set_on_first_cnp", "RATE_TO_SET_ON_FIRST_CNP", 0},
	{"rp", "dce_tcp_g", "rp_dce_tcp_g", "DCE_TCP_G", 1019},
	{"rp", "dce_tcp_rtt", "rp_dce_tcp_rtt", "DCE_TCP_RTT", 1},
	{"rp", "rate_reduce_monitor_period", "rp_rate_reduce_monitor_period", "RATE_REDUCE_MONITOR_PERIOD", 4},
	{"rp", "initial_alpha_value", "rp_initial_alpha_value", "INITIAL_ALPHA_VALUE", 1023},
	{"rp", "rpg_gd", "rp_gd", "RPG_GD", 11},
	{"np", "min_time_between_cnps", "np_min_time_between_cnps", "MIN_TIME_BETWEEN_CNPS", 4},
	{"np", "cnp_dscp", "np_cnp_dscp", "CNP_DSCP", 48},
	// 0 = CNPs use cnp_802p_prio, which is what makes 6 the effective CNP
	// priority by default.
	{"np", "", "np_cnp_prio_mode", "", 0},
	{"np", "cnp_802p_prio", "np_cnp_prio", "CNP_802P_PRIO", 6},
	{"np", "", "rtt_resp_dscp_valid", "", 0},
	{"np", "", "rtt_resp_dscp", "", 0},
}

// nvPrioMask is the NV configuration parameter behind the per-priority
// enable/N files of both roce_rp and roce_np; 255 = all priorities.
const nvPrioMask = "ROCE_CC_PRIO_MASK"

// nvTrust is the NV configuration parameter for the boot-time QoS trust
// state; 1 = TRUST_PCP, 2 = TRUST_DSCP.
const nvTrust = "QOS_TRUST_STATE"

// nvParam is one mlxconfig parameter the twin knows, with its default and,
// for enumerations, the value names ("TRUST_PCP" for 1).
type nvParam struct {
	name  string // with the _P1 suffix where the real one has it
	def   int
	names map[int]string
}

// nvParams lists the NV configuration mlxconfig shows, in query order.
func nvParams() []nvParam {
	ps := []nvParam{
		{name: "LINK_TYPE_P1", def: 2, names: map[int]string{1: "IB", 2: "ETH", 3: "VPI"}},
		{name: "SRIOV_EN", def: 0, names: map[int]string{0: "False", 1: "True"}},
		{name: "NUM_OF_VFS", def: 0},
		{name: nvTrust + "_P1", def: 1, names: map[int]string{0: "TRUST_PORT", 1: "TRUST_PCP", 2: "TRUST_DSCP", 3: "TRUST_DSCP_PCP"}},
		{name: nvPrioMask + "_P1", def: 255},
	}
	for _, d := range dcqcnParams {
		if d.nvconfig != "" {
			ps = append(ps, nvParam{name: d.nvconfig + "_P1", def: d.def})
		}
	}
	return ps
}

// firmwareState is the DCQCN state a port boots with: the firmware defaults
// overridden by the NV configuration applied at that boot.
type firmwareState struct {
	prioMask int
	values   map[string]int // by debugfs name
}

// bootState returns the DCQCN state for the NV configuration nv (parameter
// name with _P1 suffix -> value); nil means factory defaults.
func bootState(nv map[string]int) firmwareState {
	st := firmwareState{prioMask: 255, values: make(map[string]int, len(dcqcnParams))}
	if v, ok := nv[nvPrioMask+"_P1"]; ok {
		st.prioMask = v
	}
	for _, d := range dcqcnParams {
		v := d.def
		if d.nvconfig != "" {
			if o, ok := nv[d.nvconfig+"_P1"]; ok {
				v = o
			}
		}
		st.values[d.debugfs] = v
	}
	return st
}
