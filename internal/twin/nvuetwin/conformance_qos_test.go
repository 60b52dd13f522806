package nvuetwin_test

import (
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/nvuetwin"
)

// Items 1 and 2 of issue 31: which priority is lossless comes from the PFC profile, never from
// a switch-priority list on a lossless pool.
func TestConformanceLosslessPools(t *testing.T) {
	for _, pool := range []string{"default-lossless", "roce-lossless"} {
		t.Run(pool+" refuses switch-priority", func(t *testing.T) {
			// src: spec x-defs schema-qos-traffic-pool-traffic-pool-<pool>-constraints
			// ("<pool> pool does not require switch-priority to be configured"); qos Flow
			// Control Buffers gives the lossless pool memory only.
			s := newSwitch(t, nvuetwin.Options{})
			_, out := s.change(obj("qos", obj("traffic-pool", obj(
				pool, obj("memory-percent", 50, "switch-priority", obj("3", member)),
				"default-lossy", obj("memory-percent", 50)))), nil)
			wantInvalid(t, s, out, "qos.traffic-pool."+pool, pool+" pool does not require switch-priority to be configured\n")
		})
	}
	t.Run("a PFC profile names the lossless priority", func(t *testing.T) {
		// src: qos Flow Control Buffers (nv set qos traffic-pool default-lossless
		// memory-percent 50; default-lossy 50) and Priority Flow Control (nv set qos pfc
		// default-global switch-priority 0 ... cable-length 50).
		s := newSwitch(t, nvuetwin.Options{})
		_, out := s.change(losslessPFC(), nil)
		wantState(t, out, "applied_and_saved")
		pools := s.get("/qos/traffic-pool?rev=applied&filled=false")
		wantEqual(t, "applied traffic pools", pools, obj("default-lossless", obj("memory-percent", 50), "default-lossy", obj("memory-percent", 50)))
		wantEqual(t, "applied PFC switch priorities", s.get("/qos/pfc/ROCE/switch-priority?rev=applied&filled=false"), obj("3", member))
	})
	t.Run("one PFC profile names several lossless priorities", func(t *testing.T) {
		// src: qos Port Groups, PFC ("nv set qos pfc my_pfc_ports switch-priority 3,5",
		// bound with nv set interface swp1-4,swp6 qos pfc profile my_pfc_ports), CumulusNetworks/docs
		// content/cumulus-linux-514/Layer-1-and-Switch-Ports/Quality-of-Service/_index.md at
		// 0d142afe; the lossless pool still lists none (the constraints above).
		s := newSwitch(t, nvuetwin.Options{})
		_, out := s.change(obj(
			"qos", obj(
				"pfc", obj("my_pfc_ports", obj("switch-priority", obj("3", member, "5", member))),
				"traffic-pool", obj("default-lossless", obj("memory-percent", 50), "default-lossy", obj("memory-percent", 50))),
			"interface", obj("swp1", obj("type", "swp", "qos", obj("pfc", obj("profile", "my_pfc_ports"))))), nil)
		wantState(t, out, "applied_and_saved")
		wantEqual(t, "applied PFC switch priorities", s.get("/qos/pfc/my_pfc_ports/switch-priority?rev=applied&filled=false"), obj("3", member, "5", member))
	})
}

// Item 3: the lossy pool's priorities are not stored; a filled read shows every priority no
// other pool takes, and unsetting them changes nothing.
func TestConformanceLossyPoolPriorities(t *testing.T) {
	// src: qos Flow Control Buffers ("Cumulus Linux allocates 100% of the buffer memory to the
	// default-lossy traffic pool by default"); roce Change RoCE Configuration moves priority 4
	// out with an explicit "default-lossy switch-priority 0-3,5-7".
	s := newSwitch(t, nvuetwin.Options{})
	if v := lookup(s.get("/qos/traffic-pool/default-lossy?rev=applied&filled=false"), "switch-priority"); v != nil {
		t.Errorf("a fresh switch stores default-lossy switch-priority %v; it stores none", v)
	}
	all := obj("0", member, "1", member, "2", member, "3", member, "4", member, "5", member, "6", member, "7", member)
	wantEqual(t, "filled default-lossy switch-priority", lookup(s.get("/qos/traffic-pool/default-lossy?rev=applied"), "switch-priority"), all)
	// Unsetting a priority that is not stored is no change (api, Unset a Configuration Change:
	// a null value).
	id, out := s.change(obj("qos", obj("traffic-pool", obj("default-lossy", obj("switch-priority", obj("3", nil))))), nil)
	wantState(t, out, "applied")
	if is := issues(out); len(is) != 1 || is[0]["message"] != "config apply executed with no config diff" {
		t.Errorf("revision %s issues %v, want only the no-config-diff note", id, is)
	}
	wantEqual(t, "filled default-lossy switch-priority after the unset", lookup(s.get("/qos/traffic-pool/default-lossy?rev=applied"), "switch-priority"), all)
}

// Item 4: filled=false answers what was configured; a read without it adds the schema's
// defaults.
func TestConformanceFilled(t *testing.T) {
	// src: api View a Configuration (GET /nvue_v1/?rev=applied&filled=false); spec parameter
	// configs-filled and the default keywords of schema-qos-pfc-pfc-config (rx, tx enable)
	// and schema-qos-mapping-mapping-config (port-default-sp 0); qos Priority Flow Control
	// shows rx and tx beside what was set.
	s := newSwitch(t, nvuetwin.Options{})
	patch := losslessPFC()
	mergeInto(patch, "qos", "mapping", obj("RDMA", obj("trust", "l3", "dscp", obj("26", obj("switch-priority", 3)))))
	_, out := s.change(patch, nil)
	wantState(t, out, "applied_and_saved")
	wantEqual(t, "PFC profile, filled=false", s.get("/qos/pfc/ROCE?rev=applied&filled=false"), obj("cable-length", 5, "switch-priority", obj("3", member)))
	filled := s.get("/qos/pfc/ROCE?rev=applied")
	if lookup(filled, "rx") != "enable" || lookup(filled, "tx") != "enable" || lookup(filled, "cable-length") != 5.0 {
		t.Errorf("PFC profile, filled: %v; want rx and tx enable filled in and cable-length 5 kept", filled)
	}
	if v := lookup(s.get("/qos/mapping/RDMA?rev=applied&filled=false"), "port-default-sp"); v != nil {
		t.Errorf("mapping read with filled=false has port-default-sp %v, which nobody set", v)
	}
	if v := lookup(s.get("/qos/mapping/RDMA?rev=applied"), "port-default-sp"); v != 0.0 {
		t.Errorf("mapping filled port-default-sp = %v, want the default 0", v)
	}
}

// Items 5 and 6: the applied configuration lists what was configured (a link speed "auto"
// unless set); the operational state has every port and its real speed.
func TestConformanceAppliedAndOperational(t *testing.T) {
	s := newSwitch(t, nvuetwin.Options{})
	t.Run("ports exist in the operational state only", func(t *testing.T) {
		// src: api Run cURL Commands (GET /nvue_v1/interface answers every interface with its
		// link state, operational); api View a Configuration (?rev=applied&filled=false lists
		// what was set).
		if v := lookup(s.get("/interface?rev=applied&filled=false"), "swp1"); v != nil {
			t.Errorf("a fresh switch's applied configuration has swp1: %v", v)
		}
		op := s.get("/interface")
		if lookup(op, "swp1", "type") != "swp" || lookup(op, "swp1", "link", "state", "up") == nil {
			t.Errorf("operational swp1 = %v, want type swp, link state up", lookup(op, "swp1"))
		}
	})
	t.Run("a well-named port gets its type", func(t *testing.T) {
		// src: api Supported HTTP Methods, 5.10 and later: "PATCH request: {'interface':
		// {'swp1': {}} / PATCH Response: {'interface': {'swp1': {'type': 'swp'}}".
		id := s.newRevision()
		code, out := s.do(http.MethodPatch, "/"+revQuery(id), obj("interface", obj("swp1", obj())))
		if code != http.StatusOK {
			t.Fatalf("PATCH swp1 {}: %d %v", code, out)
		}
		wantEqual(t, "PATCH answer", out, obj("interface", obj("swp1", obj("type", "swp"))))
	})
	t.Run("link speed: auto applied, the real one operational", func(t *testing.T) {
		// src: spec schema-common-if-link-common-link-config (speed default "auto"); api Replace
		// an Entire Configuration (swp51 "link": {"state": {"up": {}}}, "type": "swp").
		s := newSwitch(t, nvuetwin.Options{})
		_, out := s.change(obj("interface", obj("swp2", obj("type", "swp", "link", obj("state", obj("up", member))))), nil)
		wantState(t, out, "applied_and_saved")
		if v := lookup(s.get("/interface/swp2/link?rev=applied"), "speed"); v != "auto" {
			t.Errorf("applied speed = %v, want auto", v)
		}
		if v := lookup(s.get("/interface/swp2/link"), "speed"); v == "auto" || v == nil {
			t.Errorf("operational speed = %v, want the port's real speed", v)
		}
	})
}

// Item 7: a PATCH may set or unset a resource, not both.
func TestConformanceSetAndUnsetInOnePatch(t *testing.T) {
	// src: api Supported HTTP Methods ("The input payload in a PATCH request can have either a
	// set or unset json object for the same resource, but not both. The order in which the API
	// executes the set and unset objects is not deterministic and not supported.").
	s := newSwitch(t, nvuetwin.Options{})
	id := s.newRevision()
	code, out := s.do(http.MethodPatch, "/"+revQuery(id), obj("qos", obj("pfc", obj("ROCE", obj("switch-priority", obj("3", nil, "4", member))))))
	if code < 400 || code > 499 {
		t.Errorf("PATCH setting 4 and unsetting 3 of one profile: %d %v, want 4xx", code, out)
	}
	if code, out := s.do(http.MethodPatch, "/"+revQuery(id), obj("qos", obj("pfc", obj("ROCE", obj("switch-priority", obj("3", nil)))))); code != http.StatusOK {
		t.Errorf("PATCH that only unsets: %d %v", code, out)
	}
}

// Item 10: the schema refuses unknown keys and values outside an enum at the PATCH (4xx);
// the rules between objects refuse the apply with NVUE's own text.
func TestConformanceRefusals(t *testing.T) {
	for _, c := range []struct {
		name, src string
		patch     map[string]any
	}{
		{"an unknown key", "spec x-unevaluatedProperties false on cue-patch-schema-qos-qos; ans qos.py pfc options (no xoff)",
			obj("qos", obj("pfc", obj("ROCE", obj("xoff", 1))))},
		{"PFC tx outside enable/disable", "ans qos.py pfc tx choices enable, disable",
			obj("qos", obj("pfc", obj("ROCE", obj("tx", "enabled"))))},
		{"trust outside l2/l3/port/both", "ans qos.py mapping trust choices",
			obj("qos", obj("mapping", obj("M", obj("trust", "dscp"))))},
		{"roce enable outside on/off", "ans qos.py roce enable choices",
			obj("qos", obj("roce", obj("enable", "true")))},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSwitch(t, nvuetwin.Options{})
			id := s.newRevision()
			if code, out := s.do(http.MethodPatch, "/"+revQuery(id), c.patch); code < 400 || code > 499 {
				t.Errorf("PATCH %v: %d %v, want 4xx (%s)", c.patch, code, out, c.src)
			}
		})
	}
	pfc := obj("ROCE", obj("switch-priority", obj("3", member)))
	for _, c := range []struct {
		name, location, reason string
		patch                  map[string]any
	}{
		// src: spec schema-qos-pfc-qos-pfc-constraints; qos Priority Flow Control ("Before
		// configuring PFC, first modify the switch buffer allocation").
		{"a PFC profile without a lossless pool or RoCE lossless", "qos",
			"pfc profile requires traffic pool default-lossless/roce-lossless or roce mode lossless to be configured\n",
			obj("qos", obj("pfc", pfc))},
		// src: spec schema-qos-mapping-mapping-constraints.
		{"a DSCP map under trust l2", "qos.mapping.M", "dscp mapping should be configured with L3/Both Trust mode\n",
			obj("qos", obj("mapping", obj("M", obj("trust", "l2", "dscp", obj("26", obj("switch-priority", 3))))))},
		// src: spec schema-qos-pfc-pfc-constraints; qos Priority Flow Control shows the three
		// set together (port-buffer 25000, xoff 10000, xon 2000).
		{"xoff without xon and port-buffer", "qos.pfc.ROCE",
			"xon-threshold, xoff-threshold, port-buffers needs to be configured together or not configured at all\n",
			mergeInto(losslessPFC(), "qos", "pfc", "ROCE", "xoff-threshold", 10000)},
		// src: spec schema-qos-traffic-pool-traffic-pool-roce-lossy-constraints.
		{"roce-lossy beside roce-lossless", "qos", "roce-lossy pool profile cannot be configured along with roce-lossless pool profile\n",
			obj("qos", obj("traffic-pool", obj("roce-lossy", obj("memory-percent", 20, "switch-priority", obj("4", member)),
				"roce-lossless", obj("memory-percent", 20), "default-lossy", obj("memory-percent", 60))))},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newSwitch(t, nvuetwin.Options{})
			_, out := s.change(c.patch, nil)
			wantInvalid(t, s, out, c.location, c.reason)
		})
	}
	t.Run("link pause and PFC on one port", func(t *testing.T) {
		// src: qos Flow Control ("You can not configure link pause and PFC on the same
		// port"); the 5.3 spec has no link pause, so no NVIDIA text: the case asserts the
		// refusal at the port.
		s := newSwitch(t, nvuetwin.Options{})
		patch := losslessPFC()
		mergeInto(patch, "qos", "link-pause", obj("my_pause_ports", obj("tx", "enable", "rx", "disable", "cable-length", 50)))
		patch["interface"] = obj("swp1", obj("type", "swp", "qos", obj("pfc", obj("profile", "ROCE"), "link-pause", obj("profile", "my_pause_ports"))))
		_, out := s.change(patch, nil)
		wantState(t, out, "invalid")
		found := false
		for _, is := range issues(out) {
			found = found || lookup(is, "data", "location") == "interface.swp1.qos" && is["severity"] == "error"
		}
		if !found {
			t.Errorf("issues %v: none at interface.swp1.qos", issues(out))
		}
	})
	t.Run("the same profiles made valid apply", func(t *testing.T) {
		// The positive controls of the rules above: trust l3 with a DSCP map (spec
		// schema-qos-mapping-mapping-constraints; roce Change RoCE Configuration sets trust
		// both and dscp 26), the three PFC buffers together (qos Priority Flow Control).
		s := newSwitch(t, nvuetwin.Options{})
		patch := losslessPFC()
		mergeInto(patch, "qos", "pfc", "ROCE", "xoff-threshold", 10000)
		mergeInto(patch, "qos", "pfc", "ROCE", "xon-threshold", 2000)
		mergeInto(patch, "qos", "pfc", "ROCE", "port-buffer", 25000)
		mergeInto(patch, "qos", "mapping", obj("M", obj("trust", "both", "dscp", obj("26", obj("switch-priority", 3)))))
		_, out := s.change(patch, nil)
		wantState(t, out, "applied_and_saved")
	})
	t.Run("a PFC profile under RoCE lossless mode needs no pool", func(t *testing.T) {
		// src: spec schema-qos-pfc-qos-pfc-constraints ("... or roce mode lossless"); roce
		// RoCE lossless ("nv set qos roce" and "nv set qos roce mode lossless" are equivalent).
		s := newSwitch(t, nvuetwin.Options{})
		_, out := s.change(obj("qos", obj("roce", obj("enable", "on", "mode", "lossless"), "pfc", pfc)), nil)
		wantState(t, out, "applied_and_saved")
	})
}

// Item 13: RoCE mode's default table is in the operational state; the applied configuration
// holds only what was set.
func TestConformanceRoCEMode(t *testing.T) {
	// src: roce Default RoCE Configuration (the table) and Verify RoCE Configuration (nv show
	// qos roce: mode in both columns, enable applied only; pfc-priority 3, rx/tx enabled,
	// congestion-mode ECN on 0,3, probability 100, trust-mode pcp,dscp, lldp-app-tlv UDP 4791
	// priority 3, SP->TC 3->3 and 6->6, the rest 0, DWRR-50% and strict-priority for 6).
	s := newSwitch(t, nvuetwin.Options{})
	_, out := s.change(obj("qos", obj("roce", obj("enable", "on"))), nil)
	wantState(t, out, "applied_and_saved")
	wantEqual(t, "applied qos roce", s.get("/qos/roce?rev=applied&filled=false"), obj("enable", "on"))
	op := s.get("/qos/roce")
	for _, c := range []struct {
		path []string
		want any
	}{
		{[]string{"mode"}, "lossless"},
		{[]string{"pfc", "pfc-priority"}, 3.0},
		{[]string{"pfc", "rx-enabled"}, "enabled"},
		{[]string{"pfc", "tx-enabled"}, "enabled"},
		{[]string{"pfc", "cable-length"}, 100.0},
		{[]string{"congestion-control", "congestion-mode"}, "ECN"},
		{[]string{"congestion-control", "enabled-tc"}, "0,3"},
		{[]string{"congestion-control", "probability"}, 100.0},
		{[]string{"trust", "trust-mode"}, "pcp,dscp"},
		{[]string{"lldp-app-tlv", "priority"}, 3.0},
		{[]string{"lldp-app-tlv", "protocol-id"}, 4791.0},
		{[]string{"lldp-app-tlv", "selector"}, "UDP"},
		{[]string{"tc-map", "3", "traffic-class"}, 3.0},
		{[]string{"tc-map", "3", "scheduler-weight"}, "DWRR-50%"},
		{[]string{"tc-map", "6", "traffic-class"}, 6.0},
		{[]string{"tc-map", "6", "scheduler-weight"}, "strict-priority"},
		{[]string{"tc-map", "0", "traffic-class"}, 0.0},
		{[]string{"tc-map", "5", "traffic-class"}, 0.0},
		{[]string{"prio-map", "3", "dscp"}, "24,25,26,27,28,29,30,31"},
		{[]string{"prio-map", "6", "switch-prio"}, 6.0},
	} {
		if got := lookup(op, c.path...); got != c.want {
			t.Errorf("operational qos roce %v = %v, want %v", c.path, got, c.want)
		}
	}
	if v := lookup(op, "enable"); v != nil {
		t.Errorf("operational qos roce has enable %v; the guide shows it in the applied column only", v)
	}
}

// mergeInto sets the last argument at the keys before it in m, creating objects on the way,
// and returns m.
func mergeInto(m map[string]any, keysAndValue ...any) map[string]any {
	cur := m
	n := len(keysAndValue)
	for _, kv := range keysAndValue[:n-2] {
		k, _ := kv.(string)
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	k, _ := keysAndValue[n-2].(string)
	cur[k] = keysAndValue[n-1]
	return m
}

// The Cumulus guide shows only commands NVUE accepts: its nv set qos and nv set interface
// lines, staged together as the CLI would stage them, apply.
func TestConformanceGuideCommands(t *testing.T) {
	// src: the project's templates/guides/cumulus.md against the rules above; an nv set line
	// is a PATCH of its path (api Use the API: "the CLI nv show commands reflect any PATCH").
	raw, err := os.ReadFile("../../../templates/guides/cumulus.md")
	if err != nil {
		t.Fatal(err)
	}
	patch := map[string]any{}
	n := 0
	for _, line := range strings.Split(string(raw), "\n") {
		line, _, _ = strings.Cut(line, "#")
		fields := strings.Fields(line)
		if len(fields) < 5 || fields[0] != "nv" || fields[1] != "set" || fields[2] != "qos" && fields[2] != "interface" {
			continue
		}
		path, value := fields[2:len(fields)-1], fields[len(fields)-1]
		var v any = value
		if f, err := strconv.ParseFloat(value, 64); err == nil {
			v = f
		}
		// A PFC profile's and a traffic pool's switch-priority is a collection: the value is
		// a member (nv set qos pfc default-global switch-priority 0, qos guide).
		if last := path[len(path)-1]; last == "switch-priority" && (path[1] == "pfc" || path[1] == "traffic-pool") {
			path, v = fields[2:], member
		}
		args := make([]any, 0, len(path)+1)
		for _, p := range path {
			args = append(args, p)
		}
		mergeInto(patch, append(args, v)...)
		n++
	}
	if n < 10 {
		t.Fatalf("found %d nv set lines in the guide; the parser no longer reads it", n)
	}
	s := newSwitch(t, nvuetwin.Options{})
	_, out := s.change(patch, nil)
	wantState(t, out, "applied_and_saved")
}
