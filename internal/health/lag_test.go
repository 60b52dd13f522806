package health

import (
	"strings"
	"testing"
)

// bonded makes the NIC port of healthy's samples a RoCE LAG device whose second physical port
// carries the same traffic as the first.
func bonded(s *Sample, pkts, pause uint64) {
	h := &s.Hosts[0]
	h.Device = "mlx5_bond_0"
	h.Bonded = []Link{{Netdev: "ens1f1np1", Ethtool: Counters{HostPackets(3): pkts, HostPauseRx(3): pause, HostDiscards(3): 0,
		PauseStormWarnings: 0, "tx_global_pause": 0, HostPauseRx(4): 0}}}
}

func TestBondedPortsAreJudgedEach(t *testing.T) {
	for _, tc := range []struct {
		name, check, remedy string
		edit                func(l *Link)
	}{
		{"discards", checkLosslessDrops, "mlnx_qos -i ens1f1np1", func(l *Link) { l.Ethtool[HostDiscards(3)] = 5 }},
		{"pauses on priority 4", checkPFCPriority, "mlnx_qos -i ens1f1np1", func(l *Link) { l.Ethtool[HostPauseRx(4)] = 2 }},
		{"storm", checkPFCWatchdog, "PCIe", func(l *Link) { l.Ethtool[PauseStormWarnings] = 1 }},
		{"ethtool failed", checkReadable, "package ethtool", func(l *Link) { l.EthtoolError = "ethtool -S ens1f1np1 failed" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := healthy()
			bonded(&a, 0, 0)
			bonded(&b, 100000, 40)
			tc.edit(&b.Hosts[0].Bonded[0])
			f := failures(Judge(Diff(a, b), Options{Priority: 3, RequireTraffic: true}))
			v, ok := f[tc.check]
			if !ok || len(f) != 1 {
				t.Fatalf("failures = %+v, want only %s", f, tc.check)
			}
			if !strings.HasPrefix(v.Subject, "mlx5_bond_0:1 (ens1f1np1)") || !strings.Contains(v.Remedy, tc.remedy) {
				t.Errorf("verdict = %+v, want the second port named and a remedy naming %q", v, tc.remedy)
			}
		})
	}
}

func TestBondedPortsAddUp(t *testing.T) {
	a, b := healthy()
	bonded(&a, 0, 0)
	bonded(&b, 100000, 40)
	vs := Judge(Diff(a, b), Options{Priority: 3, RequireTraffic: true})
	if f := failures(vs); len(f) != 0 {
		t.Fatalf("failures on a healthy LAG: %+v", f)
	}
	for _, v := range vs {
		if v.Check == checkTraffic && !strings.Contains(v.Detail, "NIC packets +200000") {
			t.Errorf("traffic = %q, want both ports' packets", v.Detail)
		}
	}
	b.Hosts[0].RDMA[CNPSent] = 0
	v := failures(Judge(Diff(a, b), Options{Priority: 3, RequireTraffic: true}))[checkECNToCNP]
	if v.Subject != "mlx5_bond_0:1 (ens1f0np0+ens1f1np1)" || !strings.Contains(v.Remedy, "/sys/class/net/ens1f1np1/ecn/roce_np/enable/3") {
		t.Errorf("verdict = %+v, want the LAG named and each port's enable file", v)
	}
}
