package health

import (
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

// cableDelta is one switch with two ports and one NIC: the switch paused the NIC on priority
// 3 through swTx frames on Ethernet8 and otherTx on Ethernet12; the NIC counted nicRx.
func cableDelta(swTx, otherTx, nicRx uint64) Delta {
	port := func(tx uint64) Counters { return Counters{PFCTxFrames(3): tx, PFCRxFrames(3): 0} }
	return Delta{Seconds: 10,
		Switches: []SwitchPort{
			{Switch: "sw1:8080", Port: "Ethernet8", Stats: port(swTx)},
			{Switch: "sw1:8080", Port: "Ethernet12", Stats: port(otherTx)},
		},
		Hosts: []HostPort{{Host: "gpu1:22", Device: "mlx5_0", Port: 1, Netdev: "ens1f0np0",
			Ethtool: Counters{HostPauseRx(3): nicRx, HostPauseTx(3): 0}}},
	}
}

var cable = []Cable{{Switch: "sw1:8080", Port: "Ethernet8", Host: "gpu1:22", Netdev: "ens1f0np0"}}

func agreement(t *testing.T, d Delta, cables []Cable) []verdict.Verdict {
	t.Helper()
	var out []verdict.Verdict
	for _, v := range Judge(d, Options{Priority: 3, Cables: cables}) {
		if v.Check == checkPFCAgreement {
			out = append(out, v)
		}
	}
	return out
}

func TestCableEndsAgree(t *testing.T) {
	vs := agreement(t, cableDelta(1000, 0, 960), cable)
	if len(vs) != 1 || !vs[0].Pass || !strings.Contains(vs[0].Detail, "1 of 1 cables agree") {
		t.Fatalf("verdicts %+v, want one pass", vs)
	}
	if vs := agreement(t, cableDelta(1000, 0, 960), nil); len(vs) != 0 {
		t.Errorf("without cables the check must not run: %+v", vs)
	}
}

// TestCableEndsDisagree names the side that is off: another port that matches the NIC (the
// cable is elsewhere), a switch port whose PFC counters did not move, or a NIC whose pause
// counters did not.
func TestCableEndsDisagree(t *testing.T) {
	for _, tt := range []struct {
		name                string
		swTx, otherTx, nicR uint64
		want                string
	}{
		{"cabled elsewhere", 0, 1200, 1180, "matches sw1:8080 Ethernet12: ens1f0np0 is most likely cabled there"},
		{"switch not counting", 0, 0, 1180, "the switch side is off: none of Ethernet8's PFC counters moved"},
		{"nic not counting", 1200, 0, 0, "the NIC side is off: none of ens1f0np0's pause counters moved"},
		{"both count differently", 1200, 0, 300, "both ends counted different numbers"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			vs := agreement(t, cableDelta(tt.swTx, tt.otherTx, tt.nicR), cable)
			if len(vs) != 1 || vs[0].Pass {
				t.Fatalf("verdicts %+v, want one failure", vs)
			}
			if vs[0].Subject != "Ethernet8 priority 3" || !strings.Contains(vs[0].Remedy, tt.want) {
				t.Errorf("verdict %+v, want subject Ethernet8 priority 3 and a remedy with %q", vs[0], tt.want)
			}
		})
	}
}

// TestCableWithAnUnsampledEnd is left out, and the pass says so.
func TestCableWithAnUnsampledEnd(t *testing.T) {
	cables := append([]Cable{{Switch: "sw2:8080", Port: "Ethernet0", Host: "gpu1:22", Netdev: "ens1f0np0"}}, cable...)
	vs := agreement(t, cableDelta(1000, 0, 990), cables)
	if len(vs) != 1 || !vs[0].Pass || !strings.Contains(vs[0].Detail, "1 of 2 cables") || !strings.Contains(vs[0].Detail, "not both sampled") {
		t.Fatalf("verdicts %+v", vs)
	}
}
