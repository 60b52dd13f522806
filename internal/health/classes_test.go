package health

import (
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

// storageFabric is healthy() with a storage class on priority 4, lossless on the switch port
// (lossless lists the port's lossless priorities), and edit applied to the later sample.
func storageFabric(lossless []int, edit func(b *Sample)) []verdict.Verdict {
	a, b := healthy()
	for _, s := range []*Sample{&a, &b} {
		s.Switches[0].Lossless = lossless
		s.Switches[0].Queues[4] = Counters{TxPackets: 0, DroppedPackets: 0, ECNMarkedPackets: 0}
		s.Switches[0].PriorityGroups[4] = Counters{DroppedPackets: 0}
		s.Switches[0].Stats[PFCRxFrames(5)] = 0
		for _, name := range []string{HostPauseRx(4), HostPauseRx(5), HostDiscards(4), HostPackets(4)} {
			s.Hosts[0].Ethtool[name] = 0
		}
	}
	b.Switches[0].Queues[4][TxPackets] = 5000
	edit(&b)
	return Judge(Diff(a, b), Options{Priority: 3, RequireTraffic: true, Classes: []Class{{Name: "compute", Priority: 3}, {Name: "storage", Priority: 4}}})
}

func TestClassesHealthyFabricPasses(t *testing.T) {
	vs := storageFabric([]int{3, 4}, func(*Sample) {})
	if f := failures(vs); len(f) != 0 {
		t.Fatalf("failures on a healthy fabric with two classes: %+v", f)
	}
	byCheck := map[string]string{}
	for _, v := range vs {
		byCheck[v.Check] = v.Detail
	}
	for check, want := range map[string]string{
		checkTraffic:       "priority 4 (storage): switch queue packets +5000",
		checkLosslessDrops: "no drops on priorities 3 (compute), 4 (storage) at 1 switch ports",
		checkECNToCNP:      "on switches (priority 3 (compute) +2000 in 10s (200.0/s), priority 4 (storage) +0 in 10s (0.0/s))",
	} {
		if !strings.Contains(byCheck[check], want) {
			t.Errorf("%s = %q, want it to contain %q", check, byCheck[check], want)
		}
	}
}

// Each class is judged on its own priority, and its verdicts name it.
func TestClassesEachFaultNamesTheClass(t *testing.T) {
	for _, tc := range []struct {
		name, check, subject, detail, remedy string
		lossless                             []int
		edit                                 func(b *Sample)
	}{
		{"queue drop", checkLosslessDrops, "Ethernet8 queue 4", "the lossless queue of priority 4 (storage) dropped packets", "PFC on 4", []int{3, 4},
			func(b *Sample) { b.Switches[0].Queues[4][DroppedPackets] = 7 }},
		{"priority group drop", checkLosslessDrops, "Ethernet8 priority group 4", "the lossless priority group of priority 4 (storage) dropped", "pause Ethernet8 on 4", []int{3, 4},
			func(b *Sample) { b.Switches[0].PriorityGroups[4][DroppedPackets] = 3 }},
		{"NIC discards", checkLosslessDrops, "mlx5_0:1 (ens1f0np0)", "on the lossless priority 4 (storage) (rx_prio4_discards)", "--pfc 0,0,0,1,1,0,0,0", []int{3, 4},
			func(b *Sample) { b.Hosts[0].Ethtool[HostDiscards(4)] = 5 }},
		{"pause on 5", checkPFCPriority, "mlx5_0:1 (ens1f0np0) priority 5", "not the lossless priorities 3 (compute), 4 (storage)", "--pfc 0,0,0,1,1,0,0,0", []int{3, 4},
			func(b *Sample) { b.Hosts[0].Ethtool[HostPauseRx(5)] = 2 }},
		{"class lossy on the port", checkPFCPriority, "Ethernet8 priority 4", "priority 4 (storage) is a lossless class, but the port has PFC on 3 only", "pause Ethernet8 on 4", []int{3},
			func(*Sample) {}},
		{"NP off", checkECNToCNP, "mlx5_0:1 (ens1f0np0)", "sent no CNP", "roce_np/enable/3 and /sys/class/net/ens1f0np0/ecn/roce_np/enable/4", []int{3, 4},
			func(b *Sample) { b.Hosts[0].RDMA[CNPSent] = 0 }},
		{"RP off", checkCNPHandled, "mlx5_0:1 (ens1f0np0)", "ignored CNPs", "roce_rp/enable/3 and /sys/class/net/ens1f0np0/ecn/roce_rp/enable/4", []int{3, 4},
			func(b *Sample) { b.Hosts[0].RDMA[CNPIgnored] = 9 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := failures(storageFabric(tc.lossless, tc.edit))
			v, ok := f[tc.check]
			if !ok || len(f) != 1 {
				t.Fatalf("failures = %+v, want only %s", f, tc.check)
			}
			if v.Subject != tc.subject || !strings.Contains(v.Detail, tc.detail) || !strings.Contains(v.Remedy, tc.remedy) {
				t.Errorf("verdict = %+v\nwant subject %q, a detail with %q and a remedy with %q", v, tc.subject, tc.detail, tc.remedy)
			}
		})
	}
}

// Pauses on a class's priority are no fault at a NIC, even where the switch lists only the
// default priority's PFC; without the class they are.
func TestClassPausesAreLossless(t *testing.T) {
	a, b := healthy()
	a.Hosts[0].Ethtool[HostPauseRx(4)] = 0
	b.Hosts[0].Ethtool[HostPauseRx(4)] = 6
	d := Diff(a, b)
	if f := failures(Judge(d, Options{Priority: 3, Classes: []Class{{Name: "storage", Priority: 4}}})); len(f) != 0 {
		t.Errorf("pauses on the storage class's priority: %+v", f)
	}
	if f := failures(Judge(d, Options{Priority: 3})); f[checkPFCPriority].Subject != "mlx5_0:1 (ens1f0np0) priority 4" {
		t.Errorf("pauses on 4 without the class: %+v", f)
	}
}
