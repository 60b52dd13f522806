package standin

import (
	"strings"
)

// ethtool imitates ethtool -S of an mlx5 netdev (other options are not
// modelled): "NIC statistics:" and one "     name: value" line per counter,
// as ethtool's do_gstats prints them, in a fixed order: the mlx5 port
// counters, then per priority the packet, byte and discard counters, the
// pause, pause-duration (us) and pause-transition counters only for
// priorities with PFC on (mlnx_qos's state file), as mlx5 lists them
// (kernel drivers/net/ethernet/mellanox/mlx5/core/en_stats.c, the
// per-priority PFC group), and the pause-storm events. Values come from
// $TWIN_RUN/ethtool/<if> ("name value" lines, written by the traffic
// model); a counter not there is 0, so a reboot clears them all.
func ethtool(c *ctx, args []string) int {
	if len(args) == 0 || args[0] != "-S" && args[0] != "--statistics" {
		c.errf("ethtool: the host twin models only ethtool -S <interface>\n")
		return 1
	}
	intf := ""
	if len(args) > 1 {
		intf = args[1]
	}
	if intf == "" || !exists(c.sys+"/class/net/"+intf) {
		c.errf("Cannot get stats strings information: No such device\n")
		return 1
	}
	if !exists(c.sys + "/class/net/" + intf + "/device/infiniband") {
		c.errf("no stats available\n")
		return 1
	}
	pfc := "0,0,0,0,0,0,0,0"
	if qos := c.run + "/qos/" + intf; accessible(qos, 4) {
		pfc = c.sedPFC(qos)
	}
	on := awkSplit(mawkVar(pfc), ",")
	v := map[string]string{}
	if b, err := readBounded(mawkVar(c.run+"/ethtool/"+intf), 64<<20); err == nil {
		for _, l := range records(string(b)) {
			f := fields(l)
			v[at(f, 1)] = at(f, 2)
		}
	}
	put := func(name string) {
		val, ok := v[name]
		if !ok {
			val = "0"
		}
		c.print("     ", name, ": ", val, "\n")
	}
	c.print("NIC statistics:\n")
	for _, n := range []string{"rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "rx_discards_phy", "tx_discards_phy", "rx_out_of_buffer"} {
		put(n)
	}
	for p := range 8 {
		pp := itoa(int64(p))
		put("rx_prio" + pp + "_bytes")
		put("rx_prio" + pp + "_packets")
		put("rx_prio" + pp + "_discards")
		put("tx_prio" + pp + "_bytes")
		put("tx_prio" + pp + "_packets")
	}
	for p := range 8 {
		if at(on, p+1) != "1" {
			continue
		}
		pp := itoa(int64(p))
		put("rx_prio" + pp + "_pause")
		put("rx_prio" + pp + "_pause_duration")
		put("tx_prio" + pp + "_pause")
		put("tx_prio" + pp + "_pause_duration")
		put("rx_prio" + pp + "_pause_transition")
	}
	put("tx_pause_storm_warning_events")
	put("tx_pause_storm_error_events")
	return 0
}

// sedPFC is $(sed -n 's/^pfc=//p' FILE).
func (c *ctx) sedPFC(p string) string {
	b, err := readBounded(p, 64<<20)
	if err != nil {
		c.errf("sed: read error on %s: %s\n", p, errText(err))
		return ""
	}
	var out strings.Builder
	for _, l := range records(string(b)) {
		if rest, ok := strings.CutPrefix(l, "pfc="); ok {
			out.WriteString(rest + "\n")
		}
	}
	return cmdSubst(out.String())
}
