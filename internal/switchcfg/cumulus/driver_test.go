package cumulus

import (
	"errors"
	"regexp"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
)

// sonicWords are what a Cumulus user must never be told to look at.
var sonicWords = regexp.MustCompile(`(?i)sonic|gnmi|CONFIG_DB|COUNTERS_DB|SetRequest|GCU|counterpoll|sonic_release`)

// TestDriverSpeaksNVUE: every text the Cumulus driver gives the provider for its diagnostics,
// logs and docs names NVUE things.
func TestDriverSpeaksNVUE(t *testing.T) {
	d := Driver{}
	a := d.About()
	texts := []string{a.Name, string(a.Transport), a.Summary, a.Reads, a.Writes, a.ReadCall, a.WriteCall, a.CounterReads, a.PortExample,
		d.CheckPort("Ethernet0"), d.CheckRelease("5.14")}
	for _, stage := range []switchcfg.Stage{switchcfg.StageRead, switchcfg.StagePlan, switchcfg.StageApply, switchcfg.StageCounters} {
		texts = append(texts, d.Remedy(stage, errors.New("refused")), d.Remedy(stage, &nvue.BusyError{Address: "leaf", Revisions: []string{"changeset/op/1 (pending)"}}))
	}
	for _, s := range texts {
		if sonicWords.MatchString(s) {
			t.Errorf("the Cumulus driver says %q", s)
		}
	}
	if got := d.Remedy(switchcfg.StageApply, &nvue.BusyError{}); got == "" {
		t.Error("no remedy for another revision on the switch")
	}
	rolledBack := &switchcfg.ApplyError{Err: &nvue.RolledBackError{Address: "leaf", Revision: "7", Err: errors.New("read back")}}
	if got := d.Remedy(switchcfg.StageApply, rolledBack); !regexp.MustCompile(`rolled it back`).MatchString(got) || sonicWords.MatchString(got) {
		t.Errorf("remedy for a rolled-back apply: %q", got)
	}
	if d.CheckPort("swp1s0") != "" || d.CheckPort("Ethernet0") == "" {
		t.Error("port names: want swp1s0 accepted and Ethernet0 refused")
	}
}
