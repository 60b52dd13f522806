package health

import (
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

// A switch that counts its drops in bytes is reported in bytes.
func TestDropsInBytesSayBytes(t *testing.T) {
	a, b := healthy()
	for _, s := range []*Sample{&a, &b} {
		delete(s.Switches[0].Queues[3], DroppedPackets)
		s.Switches[0].Queues[3][DroppedBytes] = 0
	}
	b.Switches[0].Queues[3][DroppedBytes] = 9216
	v := failures(Judge(Diff(a, b), Options{Priority: 3}))[checkLosslessDrops]
	if v.Subject != "Ethernet8 queue 3" || !strings.Contains(v.Detail, "dropped bytes: dropped_bytes +9216") {
		t.Errorf("verdict = %+v", v)
	}
}

// Priorities reach queues and priority groups through the port's maps: a remapped lossless
// priority is judged on its queue, and a priority group that also buffers lossy priorities
// (every priority in one group) is not taken for the lossless one's.
func TestQueueAndPriorityGroupMaps(t *testing.T) {
	mapped := func(edit func(b *Sample), pgOf map[int]int) (map[string]verdict.Verdict, []verdict.Verdict) {
		a, b := healthy()
		for _, s := range []*Sample{&a, &b} {
			sp := &s.Switches[0]
			sp.QueueOf = map[int]int{3: 5}
			sp.Queues[5], sp.Queues[3] = sp.Queues[3], Counters{TxPackets: 0, DroppedPackets: 0}
			sp.PriorityGroupOf = pgOf
			sp.PriorityGroups[0] = Counters{DroppedBytes: 0}
		}
		edit(&b)
		vs := Judge(Diff(a, b), Options{Priority: 3, RequireTraffic: true})
		return failures(vs), vs
	}
	own := map[int]int{0: 0, 1: 0, 2: 0, 3: 3, 4: 0, 5: 0, 6: 0, 7: 0}
	if f, _ := mapped(func(b *Sample) { b.Switches[0].Queues[5][DroppedPackets] = 4 }, own); f[checkLosslessDrops].Subject != "Ethernet8 queue 5 (priority 3)" {
		t.Errorf("drops on the mapped queue: %+v", f)
	}
	if f, _ := mapped(func(b *Sample) { b.Switches[0].Queues[3][DroppedPackets] = 4 }, own); len(f) != 0 {
		t.Errorf("drops on the priority's index, another queue: %+v", f)
	}
	if f, _ := mapped(func(b *Sample) { b.Switches[0].PriorityGroups[3][DroppedPackets] = 4 }, own); f[checkLosslessDrops].Subject != "Ethernet8 priority group 3" {
		t.Errorf("drops on the lossless priority group: %+v", f)
	}
	shared := map[int]int{0: 0, 1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0, 7: 0}
	f, vs := mapped(func(b *Sample) { b.Switches[0].PriorityGroups[0][DroppedBytes] = 4 }, shared)
	if len(f) != 0 {
		t.Errorf("drops on a priority group shared with lossy priorities: %+v", f)
	}
	for _, v := range vs {
		if v.Check == checkLosslessDrops && !strings.Contains(v.Detail, "ingress drops not judged on 1 switch port priorities (sw1:8080 Ethernet8 priority 3)") {
			t.Errorf("lossless_drops = %q", v.Detail)
		}
	}
	if f, _ := mapped(func(*Sample) {}, map[int]int{}); len(f) != 0 {
		t.Errorf("no priority group known: %+v", f)
	}
}

// A switch that counts ECN marks per port only is read per port, and the verdict says so.
func TestPortWideECNMarks(t *testing.T) {
	a, b := healthy()
	for _, s := range []*Sample{&a, &b} {
		delete(s.Switches[0].Queues[3], ECNMarkedPackets)
	}
	a.Switches[0].Stats[ECNMarkedPackets], b.Switches[0].Stats[ECNMarkedPackets] = 10, 510
	b.Hosts[0].RDMA[ECNMarkedReceived], b.Hosts[0].RDMA[CNPSent] = 0, 0
	v := failures(Judge(Diff(a, b), Options{Priority: 3}))[checkECNToCNP]
	if !strings.Contains(v.Detail, "ECN-marked 500 packets (1 ports count marks per port") || !strings.Contains(v.Remedy, "other traffic classes") {
		t.Errorf("verdict = %+v", v)
	}
}

// A switch without any ECN counter passes the check with its reader's reason; a stormed queue
// is named in its reader's words.
func TestAdviceComesFromTheReader(t *testing.T) {
	a, b := healthy()
	for _, s := range []*Sample{&a, &b} {
		delete(s.Switches[0].Queues[3], ECNMarkedPackets)
	}
	b.Switches[0].Stormed = []int{3}
	for _, v := range Judge(Diff(a, b), Options{Priority: 3}) {
		switch v.Check {
		case checkECNToCNP:
			if !v.Pass || !strings.Contains(v.Detail, "ECN marks not counted on the switches (ECN counters off)") {
				t.Errorf("ecn_cnp = %+v", v)
			}
		case checkPFCWatchdog:
			if v.Pass || !strings.Contains(v.Detail, "storm state (STORMED)") {
				t.Errorf("pfc_watchdog = %+v", v)
			}
		}
	}
	// Without advice, the judge gives generic advice.
	b.Switches[0].Advice = nil
	for _, v := range Judge(Diff(a, b), Options{Priority: 3}) {
		if v.Check == checkPFCWatchdog && !strings.Contains(v.Remedy, "PFC watchdog statistics of Ethernet8") {
			t.Errorf("generic advice: %+v", v)
		}
	}
}
