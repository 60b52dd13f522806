package nvuetwin

import (
	"crypto/tls"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

func newRoCETwin(t *testing.T, release string) *Twin {
	t.Helper()
	tw, err := New(Options{Release: release, Ports: 4, Username: "u", Password: "p", TLS: &tls.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	return tw
}

// getJSON answers GET /nvue_v1/<path>?<query> as the twin serves it.
func getJSON(t *testing.T, tw *Twin, path, query string) nvue.Tree {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/nvue_v1/"+path+"?"+query, nil)
	req.SetBasicAuth("u", "p")
	rec := httptest.NewRecorder()
	tw.serve(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s?%s: %d %s", path, query, rec.Code, rec.Body)
	}
	var out nvue.Tree
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// dscpOf is the switch priority the prio-map gives a DSCP value.
func dscpOf(t *testing.T, roce nvue.Tree, dscp string) any {
	t.Helper()
	for _, row := range nvue.Object(roce, "prio-map") {
		r := asTree(row)
		if list, _ := r["dscp"].(string); slices.Contains(strings.Split(list, ","), dscp) {
			return r["switch-prio"]
		}
	}
	t.Fatalf("no prio-map row holds DSCP %s", dscp)
	return nil
}

// The applied configuration holds what the operator set, `enable on` and the mode; the
// operational revision shows what the mode turns on (RoCE guide 5.9/5.12/5.14, Default RoCE
// Configuration and nv show qos roce).
func TestRoCEModeOperationalState(t *testing.T) {
	for _, c := range []struct {
		release, mode string
		pfc           nvue.Tree
		pools         map[string][3]string // row -> name, size, switch priorities or traffic classes
	}{
		{release: "5.9", mode: "lossless",
			pfc: nvue.Tree{"pfc-priority": 3.0, "rx-enabled": "enabled", "tx-enabled": "enabled"},
			pools: map[string][3]string{"0": {"lossy-default-ingress", "50%", "0,1,2,4,5,6,7"}, "1": {"roce-reserved-ingress", "50%", "3"},
				"2": {"lossy-default-egress", "50%", "0,6"}, "3": {"roce-reserved-egress", "inf", "3"}}},
		{release: "5.14", mode: "lossless",
			pfc: nvue.Tree{"pfc-priority": 3.0, "rx-enabled": "enabled", "tx-enabled": "enabled", "cable-length": 100.0},
			pools: map[string][3]string{"0": {"lossy-default-ingress", "50%", "0,1,2,4,5,6,7"}, "1": {"roce-reserved-ingress", "50%", "3"},
				"2": {"lossy-default-egress", "50%", "0,6"}, "3": {"roce-reserved-egress", "inf", "3"}}},
		{release: "5.12", mode: "lossless-single-ipool",
			pfc: nvue.Tree{"pfc-priority": 3.0, "rx-enabled": "enabled", "tx-enabled": "enabled", "cable-length": 100.0},
			pools: map[string][3]string{"0": {"lossy-default-ingress", "100%", "0,1,2,3,4,5,6,7"},
				"2": {"lossy-default-egress", "100%", "0,6"}, "3": {"roce-reserved-egress", "inf", "3"}}},
		{release: "5.9", mode: "lossy", pfc: nvue.Tree{},
			pools: map[string][3]string{"0": {"lossy-default-ingress", "50%", "0,1,2,4,5,6,7"}, "1": {"roce-reserved-ingress", "50%", "3"},
				"2": {"lossy-default-egress", "50%", "0,6"}, "3": {"roce-reserved-egress", "50%", "3"}}},
	} {
		t.Run(c.release+" "+c.mode, func(t *testing.T) {
			tw := newRoCETwin(t, c.release)
			before := tw.Applied()
			if err := tw.RoCE(c.mode); err != nil {
				t.Fatal(err)
			}
			if got := getJSON(t, tw, "qos/roce", "rev=applied&filled=false"); !cmp.Equal(got, nvue.Tree{"enable": "on", "mode": c.mode}) {
				t.Errorf("applied qos roce = %v, want only enable on and the mode", got)
			}
			after := tw.Applied()
			delete(nvue.Object(after, "qos"), "roce")
			delete(nvue.Object(before, "qos"), "roce")
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("turning RoCE on changed more of the applied configuration than qos roce (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(tw.Applied(), tw.Startup()); diff != "" {
				t.Errorf("auto-save on, yet the startup configuration differs:\n%s", diff)
			}

			op := getJSON(t, tw, "qos/roce", "rev=operational")
			if op["mode"] != c.mode || op["enable"] != nil {
				t.Errorf("operational mode %v, enable %v; want %s and enable in the applied column only", op["mode"], op["enable"], c.mode)
			}
			if diff := cmp.Diff(c.pfc, nvue.Object(op, "pfc")); diff != "" {
				t.Errorf("pfc (-want +got):\n%s", diff)
			}
			if want := (nvue.Tree{"congestion-mode": "ECN", "enabled-tc": "0,3", "min-threshold": 150000.0, "max-threshold": 1500000.0, "probability": 100.0}); !cmp.Equal(want, nvue.Object(op, "congestion-control")) {
				t.Errorf("congestion-control = %v, want %v", nvue.Object(op, "congestion-control"), want)
			}
			if got := nvue.Object(op, "trust")["trust-mode"]; got != "pcp,dscp" {
				t.Errorf("trust-mode = %v", got)
			}
			if want := (nvue.Tree{"priority": 3.0, "protocol-id": 4791.0, "selector": "UDP"}); !cmp.Equal(want, nvue.Object(op, "lldp-app-tlv")) {
				t.Errorf("lldp-app-tlv = %v", nvue.Object(op, "lldp-app-tlv"))
			}
			for dscp, sp := range map[string]float64{"26": 3, "48": 6, "0": 0, "63": 7} {
				if got := dscpOf(t, op, dscp); got != sp {
					t.Errorf("DSCP %s -> switch priority %v, want %v", dscp, got, sp)
				}
			}
			for sp, want := range map[string][2]any{"3": {3.0, "DWRR-50%"}, "6": {6.0, "strict-priority"}, "0": {0.0, "DWRR-50%"}, "4": {0.0, "DWRR-50%"}, "7": {0.0, "DWRR-50%"}} {
				row := nvue.Object(op, "tc-map", sp)
				if row["traffic-class"] != want[0] || row["scheduler-weight"] != want[1] {
					t.Errorf("tc-map %s = %v, want traffic class %v, %v", sp, row, want[0], want[1])
				}
			}
			pools := nvue.Object(op, "pool-map")
			if len(pools) != len(c.pools) {
				t.Errorf("pool-map has %d rows, want %d: %v", len(pools), len(c.pools), pools)
			}
			for id, want := range c.pools {
				row := nvue.Object(pools, id)
				members := row["switch-priorities"]
				if strings.HasSuffix(want[0], "egress") {
					members = row["traffic-class"]
				}
				if row["name"] != want[0] || row["size"] != want[1] || members != want[2] {
					t.Errorf("pool-map %s = %v, want %v", id, row, want)
				}
			}
			// The whole qos subtree and the root read the same roce at the operational revision.
			if got := nvue.Object(getJSON(t, tw, "qos", "rev=operational"), "roce"); !cmp.Equal(got, op) {
				t.Errorf("GET qos at the operational revision has roce %v", got)
			}
			if got := nvue.Object(getJSON(t, tw, "", "rev=applied&filled=false"), "qos", "roce"); got["pfc"] != nil {
				t.Errorf("the applied root shows operational roce state: %v", got)
			}
		})
	}
}

// RoCE mode's cable length and NVIDIA's own adjustment of its pool (RoCE guide 5.14, Change
// RoCE Configuration: default-lossy 40 %, roce-lossless 60 %) show in the operational state.
func TestRoCEModeFollowsItsSettings(t *testing.T) {
	tw := newRoCETwin(t, "5.14")
	if err := tw.RoCE("lossless"); err != nil {
		t.Fatal(err)
	}
	tw.SetApplied("qos/roce/cable-length", 40.0)
	tw.SetApplied("qos/traffic-pool/default-lossy/memory-percent", 40.0)
	tw.SetApplied("qos/traffic-pool/roce-lossless/memory-percent", 60.0)
	op := getJSON(t, tw, "qos/roce", "rev=operational")
	if got := nvue.Object(op, "pfc")["cable-length"]; got != 40.0 {
		t.Errorf("pfc cable-length = %v, want 40", got)
	}
	for id, want := range map[string]string{"0": "40%", "1": "60%", "2": "40%", "3": "inf"} {
		if got := nvue.Object(op, "pool-map", id)["size"]; got != want {
			t.Errorf("pool-map %s size = %v, want %s", id, got, want)
		}
	}
	if issues := validate(tw.Applied(), 14, hardware(tw.Applied(), 4)); len(issues) != 0 {
		t.Errorf("NVIDIA's documented adjustment is refused: %+v", issues)
	}
}

// Turning RoCE on is refused where NVUE refuses it: a mode the release lacks, and a lossless
// mode beside a default-lossless pool (schema-roce-qos-roce-mode-lossless-constraints). A PFC
// profile with no lossless pool passes in lossless mode and fails in lossy mode
// (schema-qos-pfc-qos-pfc-constraints).
func TestRoCEModeRefusals(t *testing.T) {
	tw := newRoCETwin(t, "5.9")
	if err := tw.RoCE("lossless-single-ipool"); err == nil || !strings.Contains(err.Error(), "lossless-single-ipool is not one of lossless, lossy") {
		t.Errorf("5.9 took lossless-single-ipool: %v", err)
	}
	tw = newRoCETwin(t, "5.14")
	tw.SetApplied("qos/traffic-pool/default-lossless/memory-percent", 50.0)
	tw.SetApplied("qos/traffic-pool/default-lossy/memory-percent", 50.0)
	before := tw.Applied()
	if err := tw.RoCE(""); err == nil || !strings.Contains(err.Error(), strings.TrimSpace(errDefaultLosslessRoCELossless)) {
		t.Errorf("RoCE lossless beside default-lossless: %v", err)
	}
	if diff := cmp.Diff(before, tw.Applied()); diff != "" {
		t.Errorf("a refused RoCE mode changed the switch:\n%s", diff)
	}

	pfcOnly := func() nvue.Tree {
		cfg := seed("5.14")
		nvue.Set(cfg, nvue.Tree{"switch-priority": nvue.Tree{"3": nvue.Tree{}}}, "qos", "pfc", "P")
		return cfg
	}
	for mode, accepted := range map[string]bool{"lossless": true, "lossy": false, "": false} {
		cfg := pfcOnly()
		if mode != "" {
			nvue.Set(cfg, nvue.Tree{"enable": "on", "mode": mode}, "qos", "roce")
		}
		issues := validate(cfg, 14, hardware(cfg, 4))
		refused := slices.ContainsFunc(issues, func(is issue) bool { return strings.Contains(is.Message, strings.TrimSpace(errPFCNeedsLossless)) })
		if refused == accepted {
			t.Errorf("RoCE %q: a PFC profile without a lossless pool refused = %v, want %v (%+v)", mode, refused, !accepted, issues)
		}
	}
}
