package nccltest

import (
	"math"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

func TestExpectedBusBW(t *testing.T) {
	for _, c := range []struct {
		name string
		top  Topology
		want float64
		ok   bool
	}{
		// 8 x 400G ConnectX-7: 8 x 50 GB/s x 0.96.
		{"2 nodes, 8 x 400G", Topology{Nodes: 2, Rails: 8, RailGbps: 400}, 384, true},
		// A ring's busbw is the node's network bandwidth whatever the node count.
		{"16 nodes, 8 x 400G", Topology{Nodes: 16, Rails: 8, RailGbps: 400}, 384, true},
		{"2 nodes, 8 x 800G ConnectX-8", Topology{Nodes: 2, Rails: 8, RailGbps: 800}, 768, true},
		{"explicit efficiency", Topology{Nodes: 2, Rails: 4, RailGbps: 200, Efficiency: 0.9}, 90, true},
		{"one node runs over NVLink", Topology{Nodes: 1, Rails: 8, RailGbps: 400}, 0, false},
		{"rails unknown", Topology{Nodes: 2, RailGbps: 400}, 0, false},
		{"line rate unknown", Topology{Nodes: 2, Rails: 8}, 0, false},
	} {
		got, ok := c.top.ExpectedBusBW()
		if ok != c.ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: ExpectedBusBW() = %g, %v; want %g, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestIsRing(t *testing.T) {
	for algo, want := range map[string]bool{"Ring": true, "ring": true, " RING ": true, "": false, "Tree": false, "Tree,Ring": false, "^Tree": false, "NVLS": false} {
		if got := IsRing(algo); got != want {
			t.Errorf("IsRing(%q) = %v, want %v", algo, got, want)
		}
	}
}

// oneRow is a completed run whose largest size measured busbw GB/s in place and out of place.
func oneRow(busbw float64) Result {
	return Result{Rows: []Row{{SizeBytes: 1 << 30, Type: "float", OutOfPlace: Half{BusBW: busbw}, InPlace: Half{BusBW: busbw - 1}}},
		Footer: true, OutOfBoundsOK: true, AvgBusBW: busbw / 2}
}

func TestJudgeBusBWAgainstTopology(t *testing.T) {
	cx7 := Topology{Nodes: 2, Rails: 8, RailGbps: 400, Source: "rails and rail_gbps"}
	ib := facts.NCCLLog{Networks: []string{"IB"}, NetChannels: 8, GDRDMAChannels: 8}
	for _, c := range []struct {
		name    string
		busbw   float64
		o       Options
		pass    bool
		details []string
		remedy  string
	}{
		{name: "all rails at 97% of expected", busbw: 372, o: Options{MinBusBWFraction: 0.9, Topology: cx7, Algo: "Ring"}, pass: true,
			details: []string{"expected 384.00 GB/s from 8 rails x 400 Gb/s x 0.96 (rails and rail_gbps), ratio 0.97",
				"at least the 345.60 GB/s asked (0.9 of 384.00 GB/s expected)"}},
		// One rail of eight missing: 7/8 of the bandwidth clears a fixed 300 GB/s bar but not
		// 90% of what the rails should carry.
		{name: "a rail missing clears a fixed bar", busbw: 325.5, o: Options{MinBusBWGBps: 300, Topology: cx7}, pass: true,
			details: []string{"ratio 0.85", "at least the 300.00 GB/s asked"}},
		{name: "a rail missing fails the fraction", busbw: 325.5, o: Options{MinBusBWGBps: 300, MinBusBWFraction: 0.9, Topology: cx7}, pass: false,
			details: []string{"ratio 0.85", "below the 345.60 GB/s asked (0.9 of 384.00 GB/s expected): NCCL used RDMA"},
			remedy:  "roce_fabric_health"},
		// The higher of the two minimums applies.
		{name: "absolute above the fraction", busbw: 372, o: Options{MinBusBWGBps: 380, MinBusBWFraction: 0.5, Topology: cx7}, pass: false,
			details: []string{"below the 380.00 GB/s asked:"}},
		{name: "one host", busbw: 460, o: Options{MinBusBWFraction: 0.8, Topology: Topology{Nodes: 1, Rails: 8, RailGbps: 400}}, pass: false,
			details: []string{"min_busbw_fraction 0.8 cannot be judged: one host's all-reduce runs over NVLink"}, remedy: "min_busbw_gbps"},
		{name: "line rate unknown", busbw: 372, o: Options{MinBusBWFraction: 0.8, Topology: Topology{Nodes: 2, Rails: 8}}, pass: false,
			details: []string{"the rails' line rate could not be read from the hosts"}, remedy: "set rails and rail_gbps"},
		// Tree or NVLS on 2 nodes passes the NICs' bound; the detail says why.
		{name: "above the bound without Ring", busbw: 480, o: Options{Topology: cx7}, pass: true,
			details: []string{"ratio 1.25 (above the rails' bound: without NCCL_ALGO=Ring", "; no minimum set"}},
	} {
		v := find(Judge(oneRow(c.busbw), ib, nil, c.o), CheckBusBW)
		if v.Pass != c.pass {
			t.Errorf("%s: pass = %v, want %v: %+v", c.name, v.Pass, c.pass, v)
		}
		for _, d := range c.details {
			if !strings.Contains(v.Detail, d) {
				t.Errorf("%s: detail %q lacks %q", c.name, v.Detail, d)
			}
		}
		if !strings.Contains(v.Remedy, c.remedy) || (c.pass && v.Remedy != "") {
			t.Errorf("%s: remedy %q, want one with %q", c.name, v.Remedy, c.remedy)
		}
	}
	// Real: NVIDIA/nccl issue #2409, 2 x 8 H100 on 8 ConnectX-7 400G RoCEv2 rails each,
	// all_reduce_perf at 1 GiB: 216.5 GB/s, 27 GB/s a rail. A fixed 200 GB/s bar passes it; 80%
	// of what the rails carry does not.
	if v := find(Judge(oneRow(216.5), ib, nil, Options{MinBusBWGBps: 200, Topology: cx7}), CheckBusBW); !v.Pass || !strings.Contains(v.Detail, "ratio 0.56") {
		t.Errorf("issue #2409 against 200 GB/s: %+v", v)
	}
	if v := find(Judge(oneRow(216.5), ib, nil, Options{MinBusBWFraction: 0.8, Topology: cx7}), CheckBusBW); v.Pass || !strings.Contains(v.Detail, "below the 307.20 GB/s asked (0.8 of 384.00 GB/s expected)") {
		t.Errorf("issue #2409 against 0.8 of expected: %+v", v)
	}
	// A Ring run that measures above the expected figure is not explained away.
	if v := find(Judge(oneRow(400), ib, nil, Options{Topology: cx7, Algo: "Ring"}), CheckBusBW); strings.Contains(v.Detail, "above the rails' bound") {
		t.Errorf("a Ring run was told to set Ring: %s", v.Detail)
	}
}
