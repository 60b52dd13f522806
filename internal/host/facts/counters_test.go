package facts

import (
	"strings"
	"testing"
)

func TestParseEthtoolStatsRealOutput(t *testing.T) {
	stats, err := ParseEthtoolStats(fixture(t, "ethtool_mlx5_ethq8.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) != 6 || stats["rx_packets"] != 845320277 || stats["tx_tso_bytes"] != 1822751919330 {
		t.Errorf("stats = %v", stats)
	}
}

func TestParseEthtoolStatsRefusesOtherOutput(t *testing.T) {
	for _, out := range []string{"", "Cannot get stats strings information: No such device\n", "NIC statistics:\n     rx_packets: many\n",
		"NIC statistics:\n     rx_packets 12\n"} {
		if _, err := ParseEthtoolStats(out); err == nil {
			t.Errorf("ParseEthtoolStats(%q) = nil error", out)
		}
	}
}

func TestParseCounters(t *testing.T) {
	ports, err := ParseCounters(fixture(t, "roce_counters.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ports) != 2 {
		t.Fatalf("ports = %+v", ports)
	}
	p := ports[0]
	if p.Device != "mlx5_0" || p.Port != 1 || p.Netdev != "ens1f0np0" || p.EthtoolError != "" {
		t.Errorf("port 0 = %+v", p)
	}
	if p.HW["np_cnp_sent"] != 17354 || p.HW["rp_cnp_handled"] != 16022 || p.HW["out_of_sequence"] != 11 {
		t.Errorf("hw = %v", p.HW)
	}
	if _, ok := p.HW["lifespan"]; ok {
		t.Error("lifespan (the cache period in ms) read as a counter")
	}
	if p.Ethtool["rx_prio3_pause"] != 120344 || p.Ethtool["rx_prio3_pause_duration"] != 361032 {
		t.Errorf("ethtool = %v", p.Ethtool)
	}
	if _, ok := p.Ethtool["tx_pause_storm_warning_events"]; !ok {
		t.Errorf("the old kernels' trailing space kept in the name: %v", p.Ethtool)
	}
	q := ports[1]
	if q.Netdev != "ens2f0np0" || q.Ethtool != nil || !strings.Contains(q.EthtoolError, "ethtool: not found") || q.HW["np_ecn_marked_roce_packets"] != 912 {
		t.Errorf("port 1 = %+v", q)
	}
}

func TestParseCountersRefusesGarbage(t *testing.T) {
	for _, out := range []string{
		"/sys/x/hw_counters/np_cnp_sent:1\n",         // a counter before any port
		"== port mlx5_0 x ens1\n",                    // port not a number
		"== port mlx5_0 1 ens1\nnp_cnp_sent 1\n",     // not path:value
		"== port mlx5_0 1 ens1\n/a/np_cnp_sent:-1\n", // not a decimal
		"== frobnicate\n",                            // unknown marker
	} {
		if _, err := ParseCounters(out); err == nil {
			t.Errorf("ParseCounters(%q) = nil error", out)
		}
	}
}

func FuzzParseCounters(f *testing.F) {
	f.Add(fixture(f, "roce_counters.txt"))
	f.Add(fixture(f, "ethtool_mlx5_ethq8.txt"))
	f.Fuzz(func(t *testing.T, out string) {
		ports, err := ParseCounters(out)
		if err != nil {
			return
		}
		for _, p := range ports {
			if p.Port < 1 || p.Device == "" {
				t.Fatalf("accepted a port without device or number: %+v", p)
			}
		}
	})
}

func FuzzParseEthtoolStats(f *testing.F) {
	f.Add(fixture(f, "ethtool_mlx5_ethq8.txt"))
	f.Fuzz(func(t *testing.T, out string) {
		stats, err := ParseEthtoolStats(out)
		if err != nil {
			return
		}
		for name := range stats {
			if name == "" || strings.TrimSpace(name) != name {
				t.Fatalf("accepted name %q", name)
			}
		}
	})
}
