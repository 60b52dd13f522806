package nvuetwin

import (
	"strconv"
	"strings"
	"testing"
	"time"

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
		{"a switch priority in two pools", nvue.Tree{"qos": nvue.Tree{"traffic-pool": nvue.Tree{
			"mc-lossy":   nvue.Tree{"memory-percent": 0.0, "switch-priority": nvue.Tree{"3": nvue.Tree{}}},
			"roce-lossy": nvue.Tree{"memory-percent": 0.0, "switch-priority": nvue.Tree{"3": nvue.Tree{}}}}}}, "switch priority 3 is already in traffic pool"},
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

// The twin prompts only where NVUE documents a prompt: a file NVUE manages edited by hand
// (NVUE API guide 5.14, Troubleshoot Configuration Changes), not on every QoS change.
func TestPromptOnlyForHandEditedFiles(t *testing.T) {
	tw, err := New(Options{Release: "5.12", Username: "u", Password: "p", TLS: nil})
	if err == nil || tw != nil {
		t.Fatal("a twin without TLS was made")
	}
	change := func(tw *Twin, n float64) *revision {
		rev := &revision{state: "pending", config: nvue.Clone(tw.applied)}
		nvue.Set(rev.config, n, "qos", "pfc-watchdog", "robustness")
		return rev
	}
	fresh := func() *Twin {
		return &Twin{opts: Options{Release: "5.12"}, minor: 12, applied: seed("5.12"), revs: map[string]*revision{}}
	}
	for _, c := range []struct {
		name, ays, state, progress, issue string
		edited, ignored                   bool
		applies                           int
	}{
		{name: "a QoS change without an answer", ays: "", state: "applied_and_saved", applies: 1},
		{name: "a QoS change answered no", ays: "ays_no", state: "applied_and_saved", applies: 1},
		{name: "a hand-edited file, no answer", edited: true, state: "ays_fail", progress: "Aborted apply after warnings", issue: "Timeout while waiting for client response"},
		{name: "a hand-edited file, answered no", edited: true, ays: "ays_no", state: "ays_fail", progress: "Declined apply after warnings", issue: "qos_features.conf"},
		{name: "a hand-edited file, answered yes", edited: true, ays: "ays_yes", state: "applied_and_saved", applies: 1},
		{name: "a hand-edited file NVUE ignores", edited: true, ignored: true, ays: "ays_no", state: "applied_and_saved", applies: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			tw := fresh()
			if c.edited {
				if err := tw.EditByHand("/etc/cumulus/datapath/qos/qos_features.conf"); err != nil {
					t.Fatal(err)
				}
			}
			rev := change(tw, 5)
			if c.ignored {
				nvue.Set(rev.config, nvue.Tree{}, "system", "config", "apply", "ignore", "/etc/cumulus/datapath/qos/qos_features.conf")
			}
			applyNow(tw, rev, c.ays)
			var msgs []string
			for _, is := range rev.issues {
				msgs = append(msgs, is.Message)
			}
			if rev.state != c.state || rev.progress != c.progress || tw.applies != c.applies || !strings.Contains(strings.Join(msgs, "\n"), c.issue) {
				t.Errorf("state %q progress %q issues %q, %d applies; want %q %q %q, %d", rev.state, rev.progress, msgs, tw.applies, c.state, c.progress, c.issue, c.applies)
			}
		})
	}
	// Answered yes, NVUE overwrites the file: the next apply does not ask again.
	tw = fresh()
	_ = tw.EditByHand("/etc/cumulus/switchd.d/qos.conf")
	applyNow(tw, change(tw, 5), "ays_yes")
	rev := change(tw, 6)
	applyNow(tw, rev, "ays_no")
	if rev.state != "applied_and_saved" {
		t.Errorf("after a yes, the next apply ended %q", rev.state)
	}
	if err := tw.EditByHand("/etc/motd"); err == nil {
		t.Error("EditByHand took a file NVUE does not manage")
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

// specPath is where the rules of the cases below are: NVIDIA's NVUE OpenAPI spec for Cumulus
// Linux 5.3, CumulusNetworks/docs static/cumulus-linux-53/api/openapi.json, at x-defs/<name>.
const specPath = "CumulusNetworks/docs static/cumulus-linux-53/api/openapi.json#/x-defs/"

// Each configuration is refused at apply with the text of the spec's x-cue-error, or, where the
// spec has none, the twin's own (rules.go says which).
func TestValidateCrossRulesWithNVUETexts(t *testing.T) {
	lossless := nvue.Tree{"default-lossless": nvue.Tree{"memory-percent": 50.0}, "default-lossy": nvue.Tree{"memory-percent": 50.0}}
	pfc := nvue.Tree{"P": nvue.Tree{"switch-priority": nvue.Tree{"3": nvue.Tree{}}}}
	tests := []struct {
		name, source string
		patch        nvue.Tree
		want         string
	}{
		{"a PFC profile without a lossless pool", specPath + "schema-qos-pfc-qos-pfc-constraints",
			nvue.Tree{"qos": nvue.Tree{"pfc": pfc}}, errPFCNeedsLossless},
		{"a PFC profile with RoCE lossy", specPath + "schema-qos-pfc-qos-pfc-constraints",
			nvue.Tree{"qos": nvue.Tree{"pfc": pfc, "roce": nvue.Tree{"enable": "on", "mode": "lossy"}}}, errPFCNeedsLossless},
		{"a PFC profile without priorities", specPath + "schema-qos-pfc-pfc-constraints",
			nvue.Tree{"qos": nvue.Tree{"traffic-pool": lossless, "pfc": nvue.Tree{"P": nvue.Tree{"cable-length": 5.0}}}}, errPFCPriorityRequired},
		{"a PFC profile with an empty priority list", specPath + "schema-qos-features-switch-priorities-constraints",
			nvue.Tree{"qos": nvue.Tree{"traffic-pool": lossless, "pfc": nvue.Tree{"P": nvue.Tree{"switch-priority": nvue.Tree{}}}}}, errNoSwitchPriority},
		{"xon without xoff and port-buffer", specPath + "schema-qos-pfc-pfc-constraints",
			nvue.Tree{"qos": nvue.Tree{"traffic-pool": lossless, "pfc": nvue.Tree{"P": nvue.Tree{"switch-priority": nvue.Tree{"3": nvue.Tree{}}, "xon-threshold": 1000.0}}}}, errPFCBuffersTogether},
		{"xoff and port-buffer without xon", specPath + "schema-qos-pfc-pfc-constraints",
			nvue.Tree{"qos": nvue.Tree{"traffic-pool": lossless, "pfc": nvue.Tree{"P": nvue.Tree{"switch-priority": nvue.Tree{"3": nvue.Tree{}}, "xoff-threshold": 1000.0, "port-buffer": 5000.0}}}}, errPFCBuffersTogether},
		{"a DSCP map with trust l2", specPath + "schema-qos-mapping-mapping-constraints",
			nvue.Tree{"qos": nvue.Tree{"mapping": nvue.Tree{"M": nvue.Tree{"trust": "l2", "dscp": nvue.Tree{"26": nvue.Tree{"switch-priority": 3.0}}}}}}, errDSCPNeedsL3},
		{"a DSCP map without trust", specPath + "schema-qos-mapping-mapping-constraints",
			nvue.Tree{"qos": nvue.Tree{"mapping": nvue.Tree{"M": nvue.Tree{"dscp": nvue.Tree{"26": nvue.Tree{"switch-priority": 3.0}}}}}}, errDSCPNeedsL3},
		{"a PCP map with trust l3", specPath + "schema-qos-mapping-mapping-constraints",
			nvue.Tree{"qos": nvue.Tree{"mapping": nvue.Tree{"M": nvue.Tree{"trust": "l3", "pcp": nvue.Tree{"3": nvue.Tree{"switch-priority": 3.0}}}}}}, errPCPNeedsL2},
		{"roce-lossy with roce-lossless", specPath + "schema-qos-traffic-pool-traffic-pool-roce-lossy-constraints",
			nvue.Tree{"qos": nvue.Tree{"traffic-pool": nvue.Tree{"default-lossy": nvue.Tree{"memory-percent": 40.0}, "roce-lossy": nvue.Tree{"memory-percent": 30.0}, "roce-lossless": nvue.Tree{"memory-percent": 30.0}}}}, errRoCELossyWithRoCELossless},
		{"roce-lossless with default-lossless", specPath + "schema-qos-traffic-pool-traffic-pool-default-lossless-constraints",
			nvue.Tree{"qos": nvue.Tree{"traffic-pool": nvue.Tree{"default-lossy": nvue.Tree{"memory-percent": 40.0}, "default-lossless": nvue.Tree{"memory-percent": 30.0}, "roce-lossless": nvue.Tree{"memory-percent": 30.0}}}}, errRoCELosslessWithDefault},
		{"roce-lossy with default-lossless", specPath + "schema-qos-traffic-pool-traffic-pool-default-lossless-constraints",
			nvue.Tree{"qos": nvue.Tree{"traffic-pool": nvue.Tree{"default-lossy": nvue.Tree{"memory-percent": 40.0}, "default-lossless": nvue.Tree{"memory-percent": 30.0}, "roce-lossy": nvue.Tree{"memory-percent": 30.0}}}}, errRoCELossyWithDefault},
		{"a roce-lossless pool with priorities", specPath + "schema-qos-traffic-pool-traffic-pool-roce-lossless-constraints",
			nvue.Tree{"qos": nvue.Tree{"traffic-pool": nvue.Tree{"default-lossy": nvue.Tree{"memory-percent": 50.0}, "roce-lossless": nvue.Tree{"memory-percent": 50.0, "switch-priority": nvue.Tree{"3": nvue.Tree{}}}}}}, errRoCELosslessPriorities},
		{"an mc-lossy pool without priorities", specPath + "schema-qos-traffic-pool-traffic-pool-mc-lossy-constraints",
			nvue.Tree{"qos": nvue.Tree{"traffic-pool": nvue.Tree{"default-lossy": nvue.Tree{"memory-percent": 50.0}, "mc-lossy": nvue.Tree{"memory-percent": 50.0}}}}, errMCLossyPriorities},
		{"a pool without memory", specPath + "schema-qos-traffic-pool-traffic-pool-constraints",
			nvue.Tree{"qos": nvue.Tree{"traffic-pool": nvue.Tree{"default-lossless": nvue.Tree{}}}}, errPoolMemory},
		{"default-lossless in RoCE lossless mode", specPath + "schema-roce-qos-roce-mode-lossless-constraints",
			nvue.Tree{"qos": nvue.Tree{"roce": nvue.Tree{"enable": "on"}, "traffic-pool": lossless}}, errDefaultLosslessRoCELossless},
		{"roce-lossy in RoCE lossless mode", specPath + "schema-roce-qos-roce-mode-lossless-constraints",
			nvue.Tree{"qos": nvue.Tree{"roce": nvue.Tree{"enable": "on", "mode": "lossless"}, "traffic-pool": nvue.Tree{"default-lossy": nvue.Tree{"memory-percent": 50.0}, "roce-lossy": nvue.Tree{"memory-percent": 50.0}}}}, errRoCELossyRoCELossless},
		{"roce-lossless in RoCE lossy mode", specPath + "schema-roce-qos-roce-mode-lossy-constraints",
			nvue.Tree{"qos": nvue.Tree{"roce": nvue.Tree{"enable": "on", "mode": "lossy"}, "traffic-pool": nvue.Tree{"default-lossy": nvue.Tree{"memory-percent": 50.0}, "roce-lossless": nvue.Tree{"memory-percent": 50.0}}}}, errRoCELosslessRoCELossy},
		{"a strict traffic class with a share", specPath + "schema-qos-ets-qos-ets-constraints",
			nvue.Tree{"qos": nvue.Tree{"egress-scheduler": nvue.Tree{"E": nvue.Tree{"traffic-class": nvue.Tree{"6": nvue.Tree{"mode": "strict", "bw-percent": 10.0}}}}}}, errETSBandwidth},
		{"a traffic class without a mode", specPath + "schema-qos-ets-qos-ets-constraints",
			nvue.Tree{"qos": nvue.Tree{"egress-scheduler": nvue.Tree{"E": nvue.Tree{"traffic-class": nvue.Tree{"3": nvue.Tree{"bw-percent": 10.0}}}}}}, errETSMode},
		{"an ECN profile without traffic classes", specPath + "schema-qos-ecn-ecn-constraints",
			nvue.Tree{"qos": nvue.Tree{"congestion-control": nvue.Tree{"C": nvue.Tree{}}}}, errECNTrafficClass},
		{"link pause and PFC on one port", "CumulusNetworks/docs content/cumulus-linux-514/Layer-1-and-Switch-Ports/Quality-of-Service/_index.md, Priority Flow Control (text not NVIDIA's)",
			nvue.Tree{"qos": nvue.Tree{"traffic-pool": lossless, "pfc": pfc, "link-pause": nvue.Tree{"L": nvue.Tree{}}},
				"interface": nvue.Tree{"swp1": nvue.Tree{"type": "swp", "qos": nvue.Tree{"pfc": nvue.Tree{"profile": "P"}, "link-pause": nvue.Tree{"profile": "L"}}}}}, errLinkPauseAndPFC},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := seed("5.12")
			nvue.Merge(cfg, tt.patch)
			var msgs []string
			for _, is := range validate(cfg, 12, hardware(cfg, 4)) {
				if is.schema {
					t.Errorf("%q refused as a schema violation, want an apply-time rule (%s)", is.Message, tt.source)
				}
				msgs = append(msgs, is.Message)
			}
			if got := strings.Join(msgs, "\n"); !strings.Contains(got, tt.want) {
				t.Errorf("issues %q, want one with %q (%s)", got, tt.want, tt.source)
			}
		})
	}
}

// What the same rules allow: a PFC profile with a lossless pool or in RoCE lossless mode, a
// DSCP map with trust both, all three PFC buffer settings together.
func TestValidateCrossRulesAllow(t *testing.T) {
	pfc := nvue.Tree{"P": nvue.Tree{"switch-priority": nvue.Tree{"3": nvue.Tree{}}, "xon-threshold": 1000.0, "xoff-threshold": 2000.0, "port-buffer": 5000.0}}
	for name, patch := range map[string]nvue.Tree{
		"default-lossless": {"qos": nvue.Tree{"pfc": pfc, "traffic-pool": nvue.Tree{"default-lossy": nvue.Tree{"memory-percent": 50.0}, "default-lossless": nvue.Tree{"memory-percent": 50.0}}}},
		"roce-lossless":    {"qos": nvue.Tree{"pfc": pfc, "traffic-pool": nvue.Tree{"default-lossy": nvue.Tree{"memory-percent": 50.0}, "roce-lossless": nvue.Tree{"memory-percent": 50.0}}}},
		"RoCE lossless":    {"qos": nvue.Tree{"pfc": pfc, "roce": nvue.Tree{"enable": "on", "mode": "lossless"}}},
		"trust both":       {"qos": nvue.Tree{"mapping": nvue.Tree{"M": nvue.Tree{"trust": "both", "dscp": nvue.Tree{"26": nvue.Tree{"switch-priority": 3.0}}, "pcp": nvue.Tree{"3": nvue.Tree{"switch-priority": 3.0}}}}}},
	} {
		cfg := seed("5.12")
		nvue.Merge(cfg, patch)
		if issues := validate(cfg, 12, hardware(cfg, 4)); len(issues) != 0 {
			t.Errorf("%s: refused %+v", name, issues)
		}
	}
}

// applyNow runs rev's apply to its end on a clock that jumps past every state.
func applyNow(tw *Twin, rev *revision, ays string) {
	clock := time.Unix(0, 0)
	tw.opts.Now = func() time.Time { return clock }
	tw.revs[strconv.Itoa(len(tw.revs)+1)] = rev
	tw.queue(rev, ays, 0)
	clock = clock.Add(time.Hour)
	tw.advance()
}
