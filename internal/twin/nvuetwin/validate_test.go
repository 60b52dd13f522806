package nvuetwin

import (
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

func TestValidateRefusesWhatNVUEDoes(t *testing.T) {
	tests := []struct {
		name  string
		patch nvue.Tree
		want  string
	}{
		{"DWRR shares over 100 %", nvue.Tree{"qos": nvue.Tree{"egress-scheduler": nvue.Tree{"P": nvue.Tree{"traffic-class": nvue.Tree{
			"0": nvue.Tree{"mode": "dwrr", "bw-percent": 60.0}, "3": nvue.Tree{"mode": "dwrr", "bw-percent": 50.0}}}}}}, "share 110 %"},
		{"a switch priority in two pools", nvue.Tree{"qos": nvue.Tree{"traffic-pool": nvue.Tree{"roce-lossless": nvue.Tree{"memory-percent": 0.0, "switch-priority": nvue.Tree{"3": nvue.Tree{}}}}}}, "switch priority 3 is already in traffic pool"},
		{"a lossless pool with priorities", nvue.Tree{"qos": nvue.Tree{"traffic-pool": nvue.Tree{"default-lossless": nvue.Tree{"switch-priority": nvue.Tree{"3": nvue.Tree{}}}}}},
			"default-lossless pool does not require switch-priority to be configured"},
		{"pools over 100 %", nvue.Tree{"qos": nvue.Tree{"traffic-pool": nvue.Tree{"roce-lossless": nvue.Tree{"memory-percent": 50.0}}}}, "more than 100 %"},
		{"a binding to a missing profile", nvue.Tree{"interface": nvue.Tree{"swp1": nvue.Tree{"type": "swp", "qos": nvue.Tree{"pfc": nvue.Tree{"profile": "NOPE"}}}}}, `profile "NOPE" does not exist`},
		{"a port without its type", nvue.Tree{"interface": nvue.Tree{"swp2": nvue.Tree{"qos": nvue.Tree{}}}}, "interface swp2 needs its type, swp"},
		{"a port that does not exist", nvue.Tree{"interface": nvue.Tree{"swp99": nvue.Tree{"qos": nvue.Tree{}}}}, "interface swp99 does not exist"},
		{"egress-queue-mapping beyond default-global", nvue.Tree{"qos": nvue.Tree{"egress-queue-mapping": nvue.Tree{"X": nvue.Tree{}}}}, "only the default-global profile"},
		{"5.15 spelling on 5.12", nvue.Tree{"qos": nvue.Tree{"pfc": nvue.Tree{"P": nvue.Tree{"tx": "enabled"}}}}, "enabled is not one of enable, disable"},
		{"a mode of a later release", nvue.Tree{"qos": nvue.Tree{"roce": nvue.Tree{"mode": "lossy-multi-tc"}}}, "lossy-multi-tc is not one of"},
		{"a fraction", nvue.Tree{"qos": nvue.Tree{"pfc": nvue.Tree{"P": nvue.Tree{"cable-length": 2.5}}}}, "2.5 is not an integer"},
		{"an unknown key", nvue.Tree{"qos": nvue.Tree{"pfc": nvue.Tree{"P": nvue.Tree{"xoff": 1.0}}}}, `unknown key "xoff"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := seed("5.12")
			nvue.Merge(cfg, tt.patch)
			var msgs []string
			for _, is := range validate(cfg, 12, hardware(cfg, 4)) {
				msgs = append(msgs, is.Message)
			}
			if got := strings.Join(msgs, "\n"); !strings.Contains(got, tt.want) {
				t.Errorf("issues %q, want one with %q", got, tt.want)
			}
		})
	}
	if issues := validate(seed("5.12"), 12, hardware(seed("5.12"), 4)); len(issues) != 0 {
		t.Errorf("the seed itself is invalid: %+v", issues)
	}
}

func TestApplyWithoutTheAnswerAborts(t *testing.T) {
	tw, err := New(Options{Release: "5.12", Username: "u", Password: "p", TLS: nil})
	if err == nil || tw != nil {
		t.Fatal("a twin without TLS was made")
	}
	tw = &Twin{opts: Options{Release: "5.12"}, minor: 12, applied: seed("5.12"), revs: map[string]*revision{}}
	rev := &revision{state: "pending", config: nvue.Clone(tw.applied)}
	nvue.Set(rev.config, 10.0, "qos", "pfc", "P", "cable-length")
	tw.apply(rev, false)
	if rev.state != "ays_fail" || tw.applies != 0 {
		t.Fatalf("without ays_yes: state %q, %d applies", rev.state, tw.applies)
	}
	rev.state = "pending"
	tw.apply(rev, true)
	if rev.state != "applied_and_saved" || tw.applies != 1 {
		t.Fatalf("with ays_yes: state %q, %d applies", rev.state, tw.applies)
	}
}

// A read without filled=false gets the spec's defaults where nothing is set, and keeps what is.
func TestFilledAddsTheSchemaDefaults(t *testing.T) {
	cfg := nvue.Tree{"qos": nvue.Tree{
		"mapping":            nvue.Tree{"M": nvue.Tree{"trust": "l3"}},
		"pfc":                nvue.Tree{"P": nvue.Tree{"cable-length": 5.0}},
		"congestion-control": nvue.Tree{"C": nvue.Tree{"traffic-class": nvue.Tree{"3": nvue.Tree{"red": "disable"}}}},
	}, "interface": nvue.Tree{"swp1": nvue.Tree{"link": nvue.Tree{"speed": "400G"}}}}
	got := filled(cfg)
	for _, c := range []struct {
		path []string
		want any
	}{
		{[]string{"qos", "mapping", "M", "trust"}, "l3"},
		{[]string{"qos", "mapping", "M", "port-default-sp"}, 0.0},
		{[]string{"qos", "pfc", "P", "cable-length"}, 5.0},
		{[]string{"qos", "pfc", "P", "rx"}, "enable"},
		{[]string{"qos", "congestion-control", "C", "traffic-class", "3", "red"}, "disable"},
		{[]string{"qos", "congestion-control", "C", "traffic-class", "3", "min-threshold"}, 150000.0},
		{[]string{"interface", "swp1", "link", "speed"}, "400G"},
		{[]string{"interface", "swp1", "link", "mtu"}, 9216.0},
	} {
		if v, _ := nvue.Lookup(got, c.path...); v != c.want {
			t.Errorf("%s = %v, want %v", strings.Join(c.path, "/"), v, c.want)
		}
	}
	if _, ok := nvue.Lookup(cfg, "qos", "mapping", "M", "port-default-sp"); ok {
		t.Error("filled changed the configuration it was given")
	}
}

// The twin refuses a PATCH that sets and unsets, and takes either alone.
func TestPatchKinds(t *testing.T) {
	for _, c := range []struct {
		patch        nvue.Tree
		sets, unsets bool
	}{
		{nvue.Tree{"qos": nvue.Tree{"pfc": nvue.Tree{"P": nvue.Tree{"switch-priority": nvue.Tree{"3": nil, "4": nvue.Tree{}}}}}}, true, true},
		{nvue.Tree{"qos": nvue.Tree{"pfc": nvue.Tree{"P": nil}}}, false, true},
		{nvue.Tree{"qos": nvue.Tree{"pfc": nvue.Tree{"P": nvue.Tree{"tx": "enable"}}}}, true, false},
	} {
		if s, u := patchKinds(c.patch); s != c.sets || u != c.unsets {
			t.Errorf("patchKinds(%v) = %v, %v; want %v, %v", c.patch, s, u, c.sets, c.unsets)
		}
	}
}
