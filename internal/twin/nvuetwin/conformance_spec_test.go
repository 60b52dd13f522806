package nvuetwin_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/nvuetwin"
)

// The rules and defaults of the 5.3 spec checked against the file itself (CumulusNetworks/docs
// static/cumulus-linux-53/api/openapi.json at commit 9fdbe121, 4,180,055 characters; the
// offsets are approximate and name where each x-def starts).

// A dwrr traffic class needs its weight: the ETS constraints refuse dwrr without bw-percent
// with the same text as bw-percent without dwrr.
func TestConformanceSpecETSDWRRNeedsBandwidth(t *testing.T) {
	// src: spec schema-qos-ets-qos-ets-constraints (~4,114,500): the last oneOf is "not dwrr"
	// or "dwrr and required bw-percent", x-cue-error "bw-percent should be configured with
	// dwrr mode\n"; qos Egress Scheduler ("In dwrr mode, you must define a bandwidth percent
	// value between 1 and 100").
	s := newSwitch(t, nvuetwin.Options{})
	_, out := s.change(obj("qos", obj("egress-scheduler", obj("E", obj("traffic-class", obj("3", obj("mode", "dwrr")))))), nil)
	wantInvalid(t, s, out, "qos.egress-scheduler.E.traffic-class.3", "bw-percent should be configured with dwrr mode\n")

	// The positive control: the same class with its weight, and a strict class without one.
	s = newSwitch(t, nvuetwin.Options{})
	_, out = s.change(obj("qos", obj("egress-scheduler", obj("E", obj("traffic-class", obj(
		"3", obj("mode", "dwrr", "bw-percent", 50), "6", obj("mode", "strict")))))), nil)
	wantState(t, out, "applied_and_saved")
}

// A congestion-control traffic class may mark with probability 0: the schema's range is 0 to
// 100, where its thresholds start at 1.
func TestConformanceSpecECNProbabilityZero(t *testing.T) {
	// src: spec schema-qos-ecn-qos-ecn-config (~2,646,700): probability minimum 0, maximum
	// 100, default 100; min-threshold and max-threshold minimum 1.
	s := newSwitch(t, nvuetwin.Options{})
	_, out := s.change(obj("qos", obj("congestion-control", obj("C", obj("traffic-class", obj("3", obj("ecn", "enable", "probability", 0)))))), nil)
	wantState(t, out, "applied_and_saved")
	s = newSwitch(t, nvuetwin.Options{})
	id := s.newRevision()
	if code, body := s.do(http.MethodPatch, "/"+revQuery(id), obj("qos", obj("congestion-control", obj("C", obj("traffic-class", obj("3", obj("probability", 101))))))); code < 400 || code > 499 {
		t.Errorf("PATCH probability 101: %d %v, want 4xx", code, body)
	}
}

// The schema's minimums: a traffic pool's memory-percent and a PFC profile's buffers start at
// 1, and a PATCH outside them is refused.
func TestConformanceSpecMinimums(t *testing.T) {
	for _, c := range []struct {
		name, src string
		patch     map[string]any
	}{
		{"memory-percent 0", "spec schema-qos-traffic-pool-traffic-pool-config (~2,644,500): memory-percent minimum 1, maximum 100",
			obj("qos", obj("traffic-pool", obj("mc-lossy", obj("memory-percent", 0, "switch-priority", obj("2", member)))))},
		{"xoff-threshold 0", "spec schema-qos-pfc-pfc-config (~2,640,500): xoff-threshold, xon-threshold, port-buffer minimum 1",
			obj("qos", obj("pfc", obj("ROCE", obj("xoff-threshold", 0, "xon-threshold", 1000, "port-buffer", 2000))))},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSwitch(t, nvuetwin.Options{})
			id := s.newRevision()
			if code, out := s.do(http.MethodPatch, "/"+revQuery(id), c.patch); code < 400 || code > 499 {
				t.Errorf("PATCH %v: %d %v, want 4xx (%s)", c.patch, code, out, c.src)
			}
		})
	}
}

// The traffic pools' x-cue-defaults: a filled read lists default-lossy's priorities as the
// spec gives them for RoCE's mode, whatever another pool names; filled=false lists none.
func TestConformanceSpecFilledPools(t *testing.T) {
	prios := func(ps ...int) map[string]any {
		out := map[string]any{}
		for _, p := range ps {
			out[strconv.Itoa(p)] = member
		}
		return out
	}
	for _, c := range []struct {
		name, src      string
		patch          map[string]any
		lossy, roceSet map[string]any
	}{
		{"RoCE off, mc-lossy beside", "spec schema-qos-traffic-pool-traffic-pool-no-roce-default-lossy-defaults (~4,165,500): " +
			"memory-percent 100, switch-priority 0-7 when none is set; qos Traffic Pools moves priority 2 out with an explicit " +
			"default-lossy switch-priority 0,1,3,4,5,6,7",
			obj("qos", obj("traffic-pool", obj("default-lossy", obj("memory-percent", 70), "mc-lossy", obj("memory-percent", 30, "switch-priority", obj("2", member))))),
			prios(0, 1, 2, 3, 4, 5, 6, 7), nil},
		{"RoCE lossy", "spec schema-qos-traffic-pool-traffic-pool-roce-lossy-default-lossy-defaults and -roce-lossy-roce-lossy-defaults " +
			"(~4,162,500): default-lossy 0-2,4-7, roce-lossy 3",
			obj("qos", obj("roce", obj("enable", "on", "mode", "lossy"), "traffic-pool", obj("default-lossy", obj("memory-percent", 50), "roce-lossy", obj("memory-percent", 50)))),
			prios(0, 1, 2, 4, 5, 6, 7), prios(3)},
		{"RoCE lossless", "spec schema-qos-traffic-pool-traffic-pool-roce-lossless-default-lossy-defaults (~4,163,800): default-lossy 0-7",
			obj("qos", obj("roce", obj("enable", "on", "mode", "lossless"), "traffic-pool", obj("default-lossy", obj("memory-percent", 50), "roce-lossless", obj("memory-percent", 50)))),
			prios(0, 1, 2, 3, 4, 5, 6, 7), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSwitch(t, nvuetwin.Options{})
			_, out := s.change(c.patch, nil)
			wantState(t, out, "applied_and_saved")
			if v := lookup(s.get("/qos/traffic-pool/default-lossy?rev=applied&filled=false"), "switch-priority"); v != nil {
				t.Errorf("default-lossy stores switch-priority %v; nobody set it", v)
			}
			wantEqual(t, "filled default-lossy switch-priority ("+c.src+")", lookup(s.get("/qos/traffic-pool/default-lossy?rev=applied"), "switch-priority"), c.lossy)
			if c.roceSet != nil {
				wantEqual(t, "filled roce-lossy switch-priority", lookup(s.get("/qos/traffic-pool/roce-lossy?rev=applied"), "switch-priority"), c.roceSet)
			}
		})
	}
}

// A mapping profile's x-cue-defaults: the map its trust reads is filled when the profile has
// none; a map someone wrote is read back as written.
func TestConformanceSpecFilledMapping(t *testing.T) {
	// src: spec schema-qos-mapping-mapping-defaults (~4,128,000: trust l2/both fill pcp,
	// l3/both fill dscp, each with port-default-sp), schema-qos-mapping-pcp-mappings-defaults
	// (pcp n -> switch-priority n) and -dscp-mappings-defaults (~4,123,000: dscp 8k..8k+7 -> k).
	s := newSwitch(t, nvuetwin.Options{})
	_, out := s.change(obj("qos", obj("mapping", obj(
		"L3", obj("trust", "l3"),
		"L2", obj("trust", "l2"),
		"SET", obj("trust", "l3", "dscp", obj("26", obj("switch-priority", 3)))))), nil)
	wantState(t, out, "applied_and_saved")
	l3 := s.get("/qos/mapping/L3?rev=applied")
	for dscp, sp := range map[string]float64{"0": 0, "7": 0, "8": 1, "26": 3, "48": 6, "63": 7} {
		if v := lookup(l3, "dscp", dscp, "switch-priority"); v != sp {
			t.Errorf("filled trust-l3 mapping dscp %s -> %v, want %v", dscp, v, sp)
		}
	}
	if v := lookup(l3, "pcp"); v != nil {
		t.Errorf("filled trust-l3 mapping has pcp %v; only l2 and both read it", v)
	}
	if v := lookup(s.get("/qos/mapping/L2?rev=applied"), "pcp", "5", "switch-priority"); v != 5.0 {
		t.Errorf("filled trust-l2 mapping pcp 5 -> %v, want 5", v)
	}
	wantEqual(t, "filled mapping with a dscp map", lookup(s.get("/qos/mapping/SET?rev=applied"), "dscp"), obj("26", obj("switch-priority", 3)))
	if v := lookup(s.get("/qos/mapping/L3?rev=applied&filled=false"), "dscp"); v != nil {
		t.Errorf("filled=false mapping has dscp %v; nobody set it", v)
	}
}

// Item 11: a port's congestion-control profile replaces default-global on that port, so a
// traffic class the profile leaves out (default-global's TC 0) has no ECN there; ports
// without a profile keep default-global.
func TestConformancePortECNReplacesDefaultGlobal(t *testing.T) {
	// src: qos Port Groups ("Configurations with a profile override the global settings for
	// the ingress ports in the port group. Ports not in a profile use the global settings.";
	// its egress scheduler example leaves the queues list2 does not name best-effort); qos
	// Explicit Congestion Notification (default-global enables ECN on egress queue 0, 150000
	// / 1500000 bytes); nv show interface <id> qos congestion-control traffic-class
	// (content/cumulus-linux-53/Whats-New/_index.md).
	s := newSwitch(t, nvuetwin.Options{})
	tc3 := obj("3", obj("ecn", "enable", "min-threshold", 150000, "max-threshold", 1500000))
	profiles := obj("ROCE", obj("traffic-class", tc3),
		"KEEP0", obj("traffic-class", obj("0", obj("ecn", "enable"), "3", obj("ecn", "enable"))))
	bind := func(profile string) map[string]any {
		return obj("type", "swp", "qos", obj("congestion-control", obj("profile", profile)))
	}
	_, out := s.change(obj("qos", obj("congestion-control", profiles),
		"interface", obj("swp1", bind("ROCE"), "swp3", bind("KEEP0"))), nil)
	wantState(t, out, "applied_and_saved")

	bound := s.get("/interface/swp1/qos/congestion-control?rev=operational")
	if v := lookup(bound, "profile"); v != "ROCE" {
		t.Errorf("swp1 runs congestion-control profile %v, want ROCE", v)
	}
	if v := lookup(bound, "traffic-class", "0"); v != nil {
		t.Errorf("swp1, bound to a profile without TC 0, still marks TC 0: %v", v)
	}
	if v := lookup(bound, "traffic-class", "3", "ecn"); v != "enable" {
		t.Errorf("swp1 TC 3 ecn = %v, want enable", v)
	}
	unbound := s.get("/interface/swp2/qos/congestion-control?rev=operational")
	if v := lookup(unbound, "traffic-class", "0", "ecn"); v != "enable" {
		t.Errorf("swp2, with no profile, TC 0 ecn = %v; it runs default-global", v)
	}
	if v := lookup(unbound, "traffic-class", "3"); v != nil {
		t.Errorf("swp2, with no profile, has TC 3 ECN %v from another port's profile", v)
	}
	kept := s.get("/interface/swp3/qos/congestion-control/traffic-class?rev=operational")
	if lookup(kept, "0", "ecn") != "enable" || lookup(kept, "0", "min-threshold") != 150000.0 {
		t.Errorf("swp3's profile lists TC 0: %v; want it marking with the default thresholds", kept)
	}
	// The whole interface read shows the same.
	if v := lookup(s.get("/interface?rev=operational"), "swp1", "qos", "congestion-control", "traffic-class", "0"); v != nil {
		t.Errorf("GET /interface shows TC 0 ECN %v on swp1", v)
	}
	// The applied configuration is what was set.
	wantEqual(t, "applied swp1 congestion-control", s.get("/interface/swp1/qos/congestion-control?rev=applied&filled=false"), obj("profile", "ROCE"))
}
