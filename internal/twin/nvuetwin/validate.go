package nvuetwin

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

// validate checks a revision's QoS and interface configuration as an apply does, with the keys,
// values and ranges of the NVUE command reference (nvue-reference Set-and-Unset-Commands/QoS),
// the 5.14 QoS guide's rules (DWRR shares at most 100 %, a switch priority in one pool,
// traffic pools at most 100 % together, egress-queue-mapping only in default-global, profiles
// bound to interfaces must exist) and the rules between objects of the 5.3 OpenAPI spec
// (rules.go). A problem becomes an issue "config_invalid" at its location, as NVUE reports them.
func validate(cfg nvue.Tree, minor int, hw nvue.Tree) []issue {
	v := &validator{minor: minor}
	v.qos(nvue.Object(cfg, "qos"))
	v.crossRules(nvue.Object(cfg, "qos"))
	v.interfaces(nvue.Object(cfg, "interface"), nvue.Object(cfg, "qos"), hw)
	return v.issues
}

type validator struct {
	minor  int
	issues []issue
}

func (v *validator) fail(location, format string, args ...any) {
	reason := fmt.Sprintf(format, args...)
	v.issues = append(v.issues, issue{Code: "config_invalid", Severity: "error",
		Data:    map[string]any{"location": location, "reason": reason},
		Message: fmt.Sprintf("Config invalid at %s: %s", location, reason)})
}

// schemaFail is fail for a violation of the schema itself, which a PATCH is refused for.
func (v *validator) schemaFail(location, format string, args ...any) {
	v.fail(location, format, args...)
	v.issues[len(v.issues)-1].schema = true
}

func (v *validator) keys(loc string, t nvue.Tree, allowed ...string) {
	for _, k := range sortedKeys(t) {
		if !slices.Contains(allowed, k) {
			v.schemaFail(loc+"."+k, "unknown key %q", k)
		}
	}
}

// integer checks a JSON number that must be a whole number in [lo, hi].
func (v *validator) integer(loc string, x any, lo, hi float64) (float64, bool) {
	f, ok := x.(float64)
	if !ok || f != math.Trunc(f) {
		v.schemaFail(loc, "%v is not an integer", x)
		return 0, false
	}
	if f < lo || f > hi {
		v.schemaFail(loc, "%v is out of range %v-%v", f, lo, hi)
		return f, false
	}
	return f, true
}

func (v *validator) enum(loc string, x any, allowed ...string) {
	s, ok := x.(string)
	if !ok || !slices.Contains(allowed, s) {
		v.schemaFail(loc, "%v is not one of %s", x, strings.Join(allowed, ", "))
	}
}

// member checks a collection key that must be an integer in [0, hi].
func (v *validator) member(loc, key string, hi int) bool {
	n, err := strconv.Atoi(key)
	if err != nil || strconv.Itoa(n) != key || n < 0 || n > hi {
		v.schemaFail(loc, "%q is not in 0-%d", key, hi)
		return false
	}
	return true
}

func (v *validator) object(loc string, x any) nvue.Tree {
	m, ok := x.(map[string]any)
	if !ok {
		v.schemaFail(loc, "want an object, got %v", x)
	}
	return m
}

var qosFeatures = []string{"roce", "mapping", "egress-queue-mapping", "egress-scheduler", "pfc", "congestion-control",
	"pfc-watchdog", "traffic-pool", "link-pause", "remark", "egress-shaper", "advance-buffer-config"}

// enableValues are the on/off words of 5.9 to 5.14 (5.15 renamed them to enabled/disabled).
var enableValues = []string{"enable", "disable"}

func (v *validator) qos(q nvue.Tree) {
	v.keys("qos", q, qosFeatures...)
	if r := nvue.Object(q, "roce"); r != nil {
		v.keys("qos.roce", r, "enable", "mode", "cable-length")
		if x, ok := r["enable"]; ok {
			v.enum("qos.roce.enable", x, "on", "off")
		}
		modes := []string{"lossless", "lossy"}
		if v.minor >= 12 {
			modes = append(modes, "lossless-single-ipool")
		}
		if v.minor >= 14 {
			modes = append(modes, "lossy-multi-tc")
		}
		if x, ok := r["mode"]; ok {
			v.enum("qos.roce.mode", x, modes...)
		}
		if x, ok := r["cable-length"]; ok {
			v.integer("qos.roce.cable-length", x, 1, 100000)
		}
	}
	for name, p := range nvue.Object(q, "mapping") {
		loc := "qos.mapping." + name
		m := v.object(loc, p)
		v.keys(loc, m, "trust", "dscp", "pcp", "port-default-sp")
		if x, ok := m["trust"]; ok {
			v.enum(loc+".trust", x, "l2", "l3", "port", "both")
		}
		if x, ok := m["port-default-sp"]; ok {
			v.integer(loc+".port-default-sp", x, 0, 7)
		}
		for _, set := range []struct {
			key string
			max int
		}{{"dscp", 63}, {"pcp", 7}} {
			for k, e := range nvue.Object(m, set.key) {
				l := loc + "." + set.key + "." + k
				if v.member(l, k, set.max) {
					em := v.object(l, e)
					v.keys(l, em, "switch-priority")
					v.integer(l+".switch-priority", em["switch-priority"], 0, 7)
				}
			}
		}
	}
	for name, p := range nvue.Object(q, "egress-queue-mapping") {
		loc := "qos.egress-queue-mapping." + name
		if name != "default-global" {
			v.fail(loc, "only the default-global profile is supported")
			continue
		}
		m := v.object(loc, p)
		v.keys(loc, m, "switch-priority")
		for k, e := range nvue.Object(m, "switch-priority") {
			l := loc + ".switch-priority." + k
			if v.member(l, k, 7) {
				em := v.object(l, e)
				v.keys(l, em, "traffic-class")
				v.integer(l+".traffic-class", em["traffic-class"], 0, 7)
			}
		}
	}
	for name, p := range nvue.Object(q, "egress-scheduler") {
		loc := "qos.egress-scheduler." + name
		m := v.object(loc, p)
		v.keys(loc, m, "traffic-class")
		total := 0.0
		for k, e := range nvue.Object(m, "traffic-class") {
			l := loc + ".traffic-class." + k
			if !v.member(l, k, 7) {
				continue
			}
			em := v.object(l, e)
			v.keys(l, em, "mode", "bw-percent")
			if _, ok := em["mode"]; !ok {
				v.fail(l, "%s", errETSMode)
			} else {
				v.enum(l+".mode", em["mode"], "dwrr", "strict")
			}
			if x, ok := em["bw-percent"]; ok {
				if em["mode"] != "dwrr" {
					v.fail(l, "%s", errETSBandwidth)
				} else if f, ok := v.integer(l+".bw-percent", x, 1, 100); ok { // the spec takes 0, the QoS guide "between 1 and 100"
					total += f
				}
			} else if em["mode"] == "dwrr" {
				// The same text the other way round: a dwrr class needs its weight
				// (schema-qos-ets-qos-ets-constraints, its last oneOf).
				v.fail(l, "%s", errETSBandwidth)
			}
		}
		if total > 100 {
			v.fail(loc, "the DWRR traffic classes share %v %%, more than 100 %%", total)
		}
	}
	for name, p := range nvue.Object(q, "pfc") {
		loc := "qos.pfc." + name
		m := v.object(loc, p)
		v.keys(loc, m, "switch-priority", "cable-length", "tx", "rx", "port-buffer", "xoff-threshold", "xon-threshold")
		for k := range nvue.Object(m, "switch-priority") {
			v.member(loc+".switch-priority."+k, k, 7)
		}
		if x, ok := m["cable-length"]; ok {
			v.integer(loc+".cable-length", x, 1, 100000)
		}
		for _, f := range []string{"tx", "rx"} {
			if x, ok := m[f]; ok {
				v.enum(loc+"."+f, x, enableValues...)
			}
		}
		for _, f := range []string{"port-buffer", "xoff-threshold", "xon-threshold"} {
			if x, ok := m[f]; ok { // "minimum": 1 (spec schema-qos-pfc-pfc-config)
				v.integer(loc+"."+f, x, 1, 1<<32-1)
			}
		}
	}
	for name, p := range nvue.Object(q, "congestion-control") {
		loc := "qos.congestion-control." + name
		m := v.object(loc, p)
		v.keys(loc, m, "traffic-class")
		for k, e := range nvue.Object(m, "traffic-class") {
			l := loc + ".traffic-class." + k
			if !v.member(l, k, 7) {
				continue
			}
			em := v.object(l, e)
			v.keys(l, em, "min-threshold", "max-threshold", "probability", "ecn", "red")
			// Each threshold has a default (150000 and 1500000 bytes, filled.go), so either may
			// be left out (the docs' own nv set qos congestion-control ... ecn enable).
			lo, okLo := 150000.0, true
			if x, ok := em["min-threshold"]; ok {
				lo, okLo = v.integer(l+".min-threshold", x, 1, 1<<32-1)
			}
			hi, okHi := 1500000.0, true
			if x, ok := em["max-threshold"]; ok {
				hi, okHi = v.integer(l+".max-threshold", x, 1, 1<<32-1)
			}
			if okLo && okHi && lo > hi {
				v.fail(l, "min-threshold %v is above max-threshold %v", lo, hi)
			}
			if x, ok := em["probability"]; ok { // 0 to 100: spec schema-qos-ecn-qos-ecn-config
				v.integer(l+".probability", x, 0, 100)
			}
			for _, f := range []string{"ecn", "red"} {
				if x, ok := em[f]; ok {
					v.enum(l+"."+f, x, enableValues...)
				}
			}
		}
	}
	if w := nvue.Object(q, "pfc-watchdog"); w != nil {
		v.keys("qos.pfc-watchdog", w, "polling-interval", "robustness")
		if x, ok := w["polling-interval"]; ok {
			v.integer("qos.pfc-watchdog.polling-interval", x, 1, 60000)
		}
		if x, ok := w["robustness"]; ok {
			v.integer("qos.pfc-watchdog.robustness", x, 1, 1000)
		}
	}
	v.trafficPools(nvue.Object(q, "traffic-pool"))
}

var trafficPools = []string{"default-lossy", "default-lossless", "mc-lossy", "roce-lossy", "roce-lossless"}

func (v *validator) trafficPools(pools nvue.Tree) {
	total := 0.0
	owner := map[string]string{}
	for _, name := range sortedKeys(pools) {
		loc := "qos.traffic-pool." + name
		if !slices.Contains(trafficPools, name) {
			v.fail(loc, "unknown traffic pool; use one of %s", strings.Join(trafficPools, ", "))
			continue
		}
		m := v.object(loc, pools[name])
		v.keys(loc, m, "memory-percent", "switch-priority")
		// Which priorities are lossless comes from the PFC profiles: a lossless pool gets
		// memory only (rules.go; 5.14 QoS guide, Flow Control Buffers).
		v.poolRules(loc, name, m)
		if x, ok := m["memory-percent"]; ok { // 1 to 100 (spec schema-qos-traffic-pool-traffic-pool-config)
			if f, ok := v.integer(loc+".memory-percent", x, 1, 100); ok {
				total += f
			}
		}
		for _, k := range sortedKeys(nvue.Object(m, "switch-priority")) {
			if !v.member(loc+".switch-priority."+k, k, 7) {
				continue
			}
			if other, taken := owner[k]; taken {
				v.fail(loc+".switch-priority."+k, "switch priority %s is already in traffic pool %s", k, other)
			}
			owner[k] = name
		}
	}
	if total > 100 {
		v.fail("qos.traffic-pool", "the traffic pools take %v %% of the memory together, more than 100 %%", total)
	}
}

var boundFeatures = []string{"mapping", "remark", "pfc", "link-pause", "congestion-control", "egress-scheduler", "egress-shaper"}

// interfaces checks the configured interfaces against the switch's hardware (hw): a port
// that exists, configured with its type, as NVIDIA's API examples write it (the twin's
// strict reading: the API is not documented to infer a type from the name).
func (v *validator) interfaces(ifaces, q, hw nvue.Tree) {
	for _, name := range sortedKeys(ifaces) {
		loc := "interface." + name
		iface := v.object(loc, ifaces[name])
		want := nvue.Object(hw, name)["type"]
		if want == nil {
			v.fail(loc, "interface %s does not exist on this switch", name)
			continue
		}
		if iface["type"] != want {
			v.fail(loc+".type", "interface %s needs its type, %v", name, want)
			continue
		}
		qos := nvue.Object(iface, "qos")
		if qos == nil {
			continue
		}
		if iface["type"] != "swp" {
			v.fail(loc+".qos", "QoS profiles apply to switch ports (swp) only")
		}
		v.keys(loc+".qos", qos, append(slices.Clone(boundFeatures), "pfc-watchdog")...)
		v.portFlowControl(loc, qos)
		for _, f := range boundFeatures {
			b := nvue.Object(qos, f)
			if b == nil {
				continue
			}
			v.keys(loc+".qos."+f, b, "profile")
			profile, _ := b["profile"].(string)
			if _, ok := nvue.Lookup(q, f, profile); !ok {
				v.fail(loc+".qos."+f+".profile", "profile %q does not exist in qos %s", profile, f)
			}
		}
		if w := nvue.Object(qos, "pfc-watchdog"); w != nil {
			v.keys(loc+".qos.pfc-watchdog", w, "state")
			v.enum(loc+".qos.pfc-watchdog.state", w["state"], enableValues...)
			if w["state"] == "enable" && nvue.Object(qos, "pfc") == nil && nvue.Object(qos, "link-pause") == nil {
				v.fail(loc+".qos.pfc-watchdog", "the PFC watchdog needs PFC or link pause on the port")
			}
		}
	}
}

func sortedKeys(t nvue.Tree) []string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
