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
		{"pools over 100 %", nvue.Tree{"qos": nvue.Tree{"traffic-pool": nvue.Tree{"roce-lossless": nvue.Tree{"memory-percent": 50.0}}}}, "more than 100 %"},
		{"a binding to a missing profile", nvue.Tree{"interface": nvue.Tree{"swp1": nvue.Tree{"qos": nvue.Tree{"pfc": nvue.Tree{"profile": "NOPE"}}}}}, `profile "NOPE" does not exist`},
		{"a port that does not exist", nvue.Tree{"interface": nvue.Tree{"swp99": nvue.Tree{"qos": nvue.Tree{}}}}, "interface swp99 does not exist"},
		{"egress-queue-mapping beyond default-global", nvue.Tree{"qos": nvue.Tree{"egress-queue-mapping": nvue.Tree{"X": nvue.Tree{}}}}, "only the default-global profile"},
		{"5.15 spelling on 5.12", nvue.Tree{"qos": nvue.Tree{"pfc": nvue.Tree{"P": nvue.Tree{"tx": "enabled"}}}}, "enabled is not one of enable, disable"},
		{"a mode of a later release", nvue.Tree{"qos": nvue.Tree{"roce": nvue.Tree{"mode": "lossy-multi-tc"}}}, "lossy-multi-tc is not one of"},
		{"a fraction", nvue.Tree{"qos": nvue.Tree{"pfc": nvue.Tree{"P": nvue.Tree{"cable-length": 2.5}}}}, "2.5 is not an integer"},
		{"an unknown key", nvue.Tree{"qos": nvue.Tree{"pfc": nvue.Tree{"P": nvue.Tree{"xoff": 1.0}}}}, `unknown key "xoff"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := seed("5.12", 4)
			nvue.Merge(cfg, tt.patch)
			var msgs []string
			for _, is := range validate(cfg, 12) {
				msgs = append(msgs, is.Message)
			}
			if got := strings.Join(msgs, "\n"); !strings.Contains(got, tt.want) {
				t.Errorf("issues %q, want one with %q", got, tt.want)
			}
		})
	}
	if issues := validate(seed("5.12", 4), 12); len(issues) != 0 {
		t.Errorf("the seed itself is invalid: %+v", issues)
	}
}

func TestApplyWithoutTheAnswerAborts(t *testing.T) {
	tw, err := New(Options{Release: "5.12", Username: "u", Password: "p", TLS: nil})
	if err == nil || tw != nil {
		t.Fatal("a twin without TLS was made")
	}
	tw = &Twin{opts: Options{Release: "5.12"}, minor: 12, applied: seed("5.12", 4), revs: map[string]*revision{}}
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
