package standin

import (
	"strings"
	"testing"
)

func TestEthtool(t *testing.T) {
	root := qosTree(t, map[string]string{
		"sys/bus/pci/devices/0000:1a:00.0/infiniband/mlx5_0/": "",
		"sys/class/net/lo/":          "",
		"run/twin/qos/ens1f0np0":     "dcbx=os\npfc=0,0,0,1,0,0,0,0\n",
		"run/twin/ethtool/ens1f0np0": "rx_packets 5\n\nrx_prio3_pause 7 x\n tx_bytes\t9\nrx_prio3_pause 8",
	})
	out, errs, code := run(t, root, "ethtool", "-S", "ens1f0np0")
	for _, want := range []string{"NIC statistics:\n     rx_packets: 5\n     tx_packets: 0\n", "     tx_bytes: 9\n",
		"     rx_prio3_pause: 8\n     rx_prio3_pause_duration: 0\n", "     tx_pause_storm_error_events: 0\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("ethtool -S lacks %q (exit %d %q):\n%s", want, code, errs, out)
		}
	}
	if strings.Contains(out, "rx_prio2_pause") {
		t.Errorf("pause counters of a priority without PFC:\n%s", out)
	}
	for _, c := range []struct {
		args []string
		errs string
	}{
		{nil, "ethtool: the host twin models only ethtool -S <interface>\n"},
		{[]string{"-S"}, "Cannot get stats strings information: No such device\n"},
		{[]string{"-S", "nope"}, "Cannot get stats strings information: No such device\n"},
		{[]string{"--statistics", "lo"}, "no stats available\n"},
	} {
		if out, errs, code := run(t, root, "ethtool", c.args...); code != 1 || out != "" || errs != c.errs {
			t.Errorf("ethtool %q = %d %q %q", c.args, code, out, errs)
		}
	}
}
