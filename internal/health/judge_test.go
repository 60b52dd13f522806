package health

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

// testAdvice is a switch reader's advice, recognisable in remedies.
type testAdvice struct{}

func (testAdvice) PausesOn(port string, prio int) string {
	return fmt.Sprintf("pause %s on %d", port, prio)
}
func (testAdvice) ShowWatchdog(port string) string { return "show watchdog " + port }
func (testAdvice) ECNUncounted() string            { return "ECN counters off" }
func (testAdvice) StormState() string              { return "STORMED" }

// fabric builds a sample of one switch port and one NIC port from counters.
func fabric(at time.Time, port, queue, pg Counters, eth, rdma Counters) Sample {
	return Sample{Taken: at,
		Switches: []SwitchPort{{Switch: "sw1:8080", Port: "Ethernet8", Advice: testAdvice{}, Stats: port, Queues: map[int]Counters{3: queue}, PriorityGroups: map[int]Counters{3: pg}}},
		Hosts:    []HostPort{{Host: "gpu1:22", Device: "mlx5_0", Port: 1, Netdev: "ens1f0np0", Ethtool: eth, RDMA: rdma}},
	}
}

// healthy is what a working fabric does in ten seconds. Both samples hold every counter the
// faults below raise, as a real port's hashes do.
func healthy() (Sample, Sample) {
	t0 := time.Unix(1000, 0)
	port := func(pfc3 uint64) Counters { return Counters{PFCTxFrames(3): pfc3, PFCRxFrames(4): 0} }
	queue := func(pkts, marks uint64) Counters {
		return Counters{TxPackets: pkts, ECNMarkedPackets: marks, DroppedPackets: 0, WREDDroppedPackets: 0, WatchdogStorms: 0, WatchdogRestored: 0}
	}
	eth := func(pkts, pause uint64) Counters {
		return Counters{HostPackets(3): pkts, HostPauseRx(3): pause, HostDiscards(3): 0, PauseStormWarnings: 0, "tx_global_pause": 0}
	}
	rdma := func(cnp, marks uint64) Counters {
		return Counters{CNPSent: cnp, ECNMarkedReceived: marks, CNPHandled: cnp, CNPIgnored: 0, OutOfSequence: 0, PacketSeqErr: 0, LocalAckTimeoutErr: 0}
	}
	zero := fabric(t0, port(0), queue(0, 0), Counters{DroppedPackets: 0}, eth(0, 0), rdma(0, 0))
	later := fabric(t0.Add(10*time.Second), port(40), queue(100000, 2000), Counters{DroppedPackets: 0}, eth(100000, 40), rdma(1000, 2000))
	return zero, later
}

func failures(vs []verdict.Verdict) map[string]verdict.Verdict {
	out := map[string]verdict.Verdict{}
	for _, v := range vs {
		if !v.Pass {
			out[v.Check] = v
		}
	}
	return out
}

func TestHealthyFabricPasses(t *testing.T) {
	a, b := healthy()
	vs := Judge(Diff(a, b), Options{Priority: 3, RequireTraffic: true})
	if f := failures(vs); len(f) != 0 {
		t.Fatalf("failures on a healthy fabric: %+v", f)
	}
	if len(vs) != 8 {
		t.Errorf("want one passing verdict per check, got %d: %+v", len(vs), vs)
	}
}

func TestEachFaultIsNamed(t *testing.T) {
	for _, tc := range []struct {
		name, check, subject, remedy string
		edit                         func(b *Sample)
	}{
		{"NP off", checkECNToCNP, "mlx5_0:1 (ens1f0np0)", "roce_np/enable/3", func(b *Sample) { b.Hosts[0].RDMA[CNPSent] = 0 }},
		{"RP off", checkCNPHandled, "mlx5_0:1 (ens1f0np0)", "roce_rp/enable/3", func(b *Sample) { b.Hosts[0].RDMA[CNPIgnored] = 9 }},
		{"PFC off on the port", checkLosslessDrops, "Ethernet8 priority group 3", "pause Ethernet8 on 3", func(b *Sample) { b.Switches[0].PriorityGroups[3][DroppedPackets] = 25 }},
		{"queue drop", checkLosslessDrops, "Ethernet8 queue 3", "WRED", func(b *Sample) { b.Switches[0].Queues[3][DroppedPackets] = 30 }},
		{"NIC discards", checkLosslessDrops, "mlx5_0:1 (ens1f0np0)", "mlnx_qos -i ens1f0np0", func(b *Sample) { b.Hosts[0].Ethtool[HostDiscards(3)] = 5 }},
		{"watchdog", checkPFCWatchdog, "Ethernet8 queue 3", "show watchdog Ethernet8", func(b *Sample) { b.Switches[0].Queues[3][WatchdogStorms] = 1 }},
		{"stormed now", checkPFCWatchdog, "Ethernet8 queue 3", "show watchdog Ethernet8", func(b *Sample) { b.Switches[0].Stormed = []int{3} }},
		{"NIC storm", checkPFCWatchdog, "mlx5_0:1 (ens1f0np0)", "PCIe", func(b *Sample) { b.Hosts[0].Ethtool[PauseStormWarnings] = 1 }},
		{"PFC on priority 4", checkPFCPriority, "Ethernet8 priority 4", "priority 3 only", func(b *Sample) { b.Switches[0].Stats[PFCRxFrames(4)] = 3 }},
		{"global pause", checkPFCPriority, "mlx5_0:1 (ens1f0np0) global", "ethtool -A ens1f0np0", func(b *Sample) { b.Hosts[0].Ethtool["tx_global_pause"] = 8 }},
		{"retransmissions", checkRetransmission, "mlx5_0:1 (ens1f0np0)", "not lossless", func(b *Sample) { b.Hosts[0].RDMA[OutOfSequence] = 4 }},
		{"NAKs at the sender", checkRetransmission, "mlx5_0:1 (ens1f0np0)", "not lossless", func(b *Sample) { b.Hosts[0].RDMA[PacketSeqErr] = 4 }},
		{"ACK timeouts at the sender", checkRetransmission, "mlx5_0:1 (ens1f0np0)", "not lossless", func(b *Sample) { b.Hosts[0].RDMA[LocalAckTimeoutErr] = 1 }},
		{"ethtool missing", checkReadable, "mlx5_0:1 (ens1f0np0)", "package ethtool", func(b *Sample) { b.Hosts[0].EthtoolError = "ethtool: not found" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := healthy()
			tc.edit(&b)
			f := failures(Judge(Diff(a, b), Options{Priority: 3, RequireTraffic: true}))
			v, ok := f[tc.check]
			if !ok || len(f) != 1 {
				t.Fatalf("failures = %+v, want only %s", f, tc.check)
			}
			if v.Subject != tc.subject || !strings.Contains(v.Remedy, tc.remedy) || v.Target == "" {
				t.Errorf("verdict = %+v, want subject %q and a remedy naming %q", v, tc.subject, tc.remedy)
			}
		})
	}
}

func TestIdleFabricProvesNothing(t *testing.T) {
	a, _ := healthy()
	b := a
	b.Taken = a.Taken.Add(time.Second)
	if f := failures(Judge(Diff(a, b), Options{Priority: 3, RequireTraffic: true})); len(f) != 1 || f[checkTraffic].Remedy == "" {
		t.Errorf("failures = %+v, want the traffic check alone", f)
	}
	if f := failures(Judge(Diff(a, b), Options{Priority: 3})); len(f) != 0 {
		t.Errorf("without require_traffic: %+v", f)
	}
}

func TestMarksWithoutMarkedReceivers(t *testing.T) {
	a, b := healthy()
	b.Hosts[0].RDMA[ECNMarkedReceived], b.Hosts[0].RDMA[CNPSent] = 0, 0
	v, ok := failures(Judge(Diff(a, b), Options{Priority: 3, RequireTraffic: true}))[checkECNToCNP]
	if !ok || v.Target != "" || !strings.Contains(v.Detail, "no sampled NIC received a marked RoCE packet") {
		t.Errorf("verdict = %+v", v)
	}
}

func TestDiffLeavesOutCountersOnlyInOneSample(t *testing.T) {
	a, b := healthy()
	delete(a.Hosts[0].Ethtool, HostPauseRx(3)) // PFC turned on between the samples: the counter appears with its history
	b.Hosts = append(b.Hosts, HostPort{Host: "gpu9:22", Device: "mlx5_0", Port: 1, RDMA: Counters{OutOfSequence: 7}})
	d := Diff(a, b)
	if _, ok := d.Hosts[0].Ethtool[HostPauseRx(3)]; ok || len(d.Hosts) != 1 {
		t.Errorf("delta %+v", d.Hosts)
	}
}

func TestDiffUnwraps32BitCounters(t *testing.T) {
	a, b := healthy()
	a.Hosts[0].RDMA[OutOfSequence], b.Hosts[0].RDMA[OutOfSequence] = 1<<32-5, 3
	d := Diff(a, b)
	if d.Hosts[0].RDMA[OutOfSequence] != 8 || len(d.Reset) != 0 {
		t.Errorf("delta %d, reset %v", d.Hosts[0].RDMA[OutOfSequence], d.Reset)
	}
}

func TestDiffCountsResetsFromZero(t *testing.T) {
	a, b := healthy()
	a.Hosts[0].RDMA[CNPSent] = 5000 // the driver reloaded in between
	d := Diff(a, b)
	if d.Hosts[0].RDMA[CNPSent] != 1000 || len(d.Reset) != 1 || !strings.Contains(d.Reset[0], "np_cnp_sent") {
		t.Errorf("delta %v, reset %v", d.Hosts[0].RDMA, d.Reset)
	}
	if d.Seconds != 10 {
		t.Errorf("seconds = %v", d.Seconds)
	}
}

// A switch may make two priorities lossless (3 and 4 by some defaults): PFC frames on 4 there
// are no fault, drops on 4 are a lossless drop, and PFC on 5 is still a fault.
func TestTwoLosslessPriorities(t *testing.T) {
	stock := func(edit func(b *Sample)) map[string]verdict.Verdict {
		a, b := healthy()
		for _, s := range []*Sample{&a, &b} {
			s.Switches[0].Lossless = []int{3, 4}
			s.Switches[0].Queues[4] = Counters{DroppedPackets: 0, WatchdogTxDropped: 0}
			s.Switches[0].Stats[PFCRxFrames(5)] = 0
			s.Hosts[0].Ethtool[HostPauseRx(4)] = 0
		}
		edit(&b)
		return failures(Judge(Diff(a, b), Options{Priority: 3, RequireTraffic: true}))
	}
	if f := stock(func(b *Sample) { b.Switches[0].Stats[PFCRxFrames(4)] = 7; b.Hosts[0].Ethtool[HostPauseRx(4)] = 7 }); len(f) != 0 {
		t.Errorf("PFC on the stock lossless priority 4: %+v", f)
	}
	if f := stock(func(b *Sample) { b.Switches[0].Queues[4][DroppedPackets] = 2 }); f[checkLosslessDrops].Subject != "Ethernet8 queue 4" {
		t.Errorf("drops on queue 4: %+v", f)
	}
	if f := stock(func(b *Sample) { b.Switches[0].Queues[4][WatchdogTxDropped] = 9 }); !strings.Contains(f[checkLosslessDrops].Detail, "PFC watchdog dropped") {
		t.Errorf("watchdog drops on queue 4: %+v", f)
	}
	if f := stock(func(b *Sample) { b.Switches[0].Stats[PFCRxFrames(5)] = 1 }); f[checkPFCPriority].Subject != "Ethernet8 priority 5" {
		t.Errorf("PFC on 5: %+v", f)
	}
}

// A spare port without queue counters is read, noted and not failed.
func TestPortWithoutQueueCounters(t *testing.T) {
	a, b := healthy()
	for _, s := range []*Sample{&a, &b} {
		s.Switches = append(s.Switches, SwitchPort{Switch: "sw1:8080", Port: "Ethernet120", Stats: Counters{PFCRxFrames(3): 0},
			Queues: map[int]Counters{}, PriorityGroups: map[int]Counters{}, NoCounters: "no queues mapped"})
	}
	vs := Judge(Diff(a, b), Options{Priority: 3, RequireTraffic: true})
	if f := failures(vs); len(f) != 0 {
		t.Fatalf("failures with a spare port: %+v", f)
	}
	if !strings.Contains(vs[0].Detail, "sw1:8080 Ethernet120") || !strings.Contains(vs[0].Detail, "no queues mapped") {
		t.Errorf("counters_read = %q, want the spare port named", vs[0].Detail)
	}
}

func TestDiffUnwrapsEveryQCounter(t *testing.T) {
	// Q counters beyond the retransmission ones: the request, error and RoCE accelerator groups.
	for _, name := range []string{"rx_write_requests", "rx_dct_connect", "req_cqe_error", "resp_remote_access_errors",
		"req_transport_retries_exceeded", "roce_slow_restart_cnps", "roce_slow_restart_trans", "vport_rx_read_requests"} {
		a, b := healthy()
		a.Hosts[0].RDMA[name], b.Hosts[0].RDMA[name] = 1<<32-10, 6
		d := Diff(a, b)
		if d.Hosts[0].RDMA[name] != 16 || len(d.Reset) != 0 {
			t.Errorf("%s: delta %d, reset %v; want a wrap of +16", name, d.Hosts[0].RDMA[name], d.Reset)
		}
	}
}

func TestDiffTakes64BitCountersBackwardsAsResets(t *testing.T) {
	// The congestion counters are 64 bits (QUERY_CONG_STATISTICS): one that fell from its
	// 32-bit upper half was cleared, not wrapped.
	a, b := healthy()
	a.Hosts[0].RDMA[CNPHandled] = 1<<32 - 10
	d := Diff(a, b)
	if d.Hosts[0].RDMA[CNPHandled] != 1000 || len(d.Reset) != 1 {
		t.Errorf("delta %d, reset %v", d.Hosts[0].RDMA[CNPHandled], d.Reset)
	}
}

func TestPassSaysWhenDropsAreCountedPortWide(t *testing.T) {
	a, b := healthy()
	for _, s := range []*Sample{&a, &b} {
		delete(s.Hosts[0].Ethtool, HostDiscards(3)) // a driver without per-priority discards
		s.Hosts[0].Ethtool["rx_discards_phy"] = 0
	}
	for _, v := range Judge(Diff(a, b), Options{Priority: 3, RequireTraffic: true}) {
		if v.Check == checkLosslessDrops && (!v.Pass || !strings.Contains(v.Detail, "1 of them counted by rx_discards_phy")) {
			t.Errorf("verdict = %+v", v)
		}
	}
}

func TestRetransmissionsSayWhichWay(t *testing.T) {
	for _, tc := range []struct {
		name     string
		counters Counters
		want     []string
		not      []string
	}{
		{"receiver", Counters{OutOfSequence: 24}, []string{"out_of_sequence +24", "packets to this NIC were lost"}, []string{"this NIC sent", "ACK timer"}},
		{"sender, NAKed", Counters{PacketSeqErr: 24}, []string{"packet_seq_err +24", "packets this NIC sent were lost and NAKed"}, []string{"to this NIC", "ACK timer"}},
		{"sender, a tail lost", Counters{PacketSeqErr: 127, LocalAckTimeoutErr: 1}, []string{"packet_seq_err +127, local_ack_timeout_err +1", "NAKed", "waited for its ACK timer"}, []string{"to this NIC"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := healthy()
			for k, v := range tc.counters {
				b.Hosts[0].RDMA[k] = a.Hosts[0].RDMA[k] + v
			}
			v, ok := failures(Judge(Diff(a, b), Options{Priority: 3, RequireTraffic: true}))[checkRetransmission]
			if !ok {
				t.Fatal("no retransmissions verdict")
			}
			for _, w := range tc.want {
				if !strings.Contains(v.Detail, w) {
					t.Errorf("detail %q lacks %q", v.Detail, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(v.Detail, n) {
					t.Errorf("detail %q has %q", v.Detail, n)
				}
			}
		})
	}
}
