package fabric

// debugfsNames maps OFED sysfs knob names (MLNX_OFED mlx5 en_sysfs.c) to
// upstream debugfs cc_params file names (Linux
// drivers/infiniband/hw/mlx5/cong.c).
var debugfsNames = map[string]string{
	"clamp_tgt_rate":                "rp_clamp_tgt_rate",
	"clamp_tgt_rate_after_time_inc": "rp_clamp_tgt_rate_ati",
	"rpg_time_reset":                "rp_time_reset",
	"rpg_byte_reset":                "rp_byte_reset",
	"rpg_threshold":                 "rp_threshold",
	"rpg_max_rate":                  "rp_max_rate",
	"rpg_ai_rate":                   "rp_ai_rate",
	"rpg_hai_rate":                  "rp_hai_rate",
	"rpg_gd":                        "rp_gd",
	"rpg_min_dec_fac":               "rp_min_dec_fac",
	"rpg_min_rate":                  "rp_min_rate",
	"rate_to_set_on_first_cnp":      "rp_rate_to_set_on_first_cnp",
	"dce_tcp_g":                     "rp_dce_tcp_g",
	"dce_tcp_rtt":                   "rp_dce_tcp_rtt",
	"rate_reduce_monitor_period":    "rp_rate_reduce_monitor_period",
	"initial_alpha_value":           "rp_initial_alpha_value",
	"min_time_between_cnps":         "np_min_time_between_cnps",
	"cnp_dscp":                      "np_cnp_dscp",
	"cnp_802p_prio":                 "np_cnp_prio",
}

// DebugfsName returns the upstream debugfs cc_params file name
// (/sys/kernel/debug/mlx5/<bdf>/cc_params/<name>) for an OFED sysfs knob
// name. The per-priority enable files have no debugfs equivalent.
func DebugfsName(sysfsName string) (string, bool) {
	n, ok := debugfsNames[sysfsName]
	return n, ok
}
