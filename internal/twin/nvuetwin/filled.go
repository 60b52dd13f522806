package nvuetwin

import (
	"strconv"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

// filled returns a copy of a configuration with the schema's defaults added where a value is
// not set, as a read without filled=false answers ("If true, fill in attributes with default
// values, providing a complete set of attributes"). The defaults are the NVUE OpenAPI 5.3
// spec's (CumulusNetworks/docs static/cumulus-linux-53/api/openapi.json, the default
// keywords of schema-qos-mapping-mapping-config, schema-qos-pfc-pfc-config,
// schema-qos-ecn-qos-ecn-config and schema-common-if-link-common-link-config, and the
// x-cue-defaults of schema-qos-mapping-mapping-defaults and schema-qos-qos-defaults' traffic
// pools) for the objects the provider reads. The spec's other x-cue-defaults fill a
// default-global profile that lacks its list (ETS, ECN, egress queue mapping, PFC under RoCE);
// the twin does not fill those: its seed stores the lists.
func filled(t nvue.Tree) nvue.Tree {
	out := nvue.Clone(t)
	fill := func(obj nvue.Tree, defaults map[string]any) {
		for k, v := range defaults {
			if _, set := obj[k]; !set {
				obj[k] = v
			}
		}
	}
	qos := nvue.Object(out, "qos")
	for _, m := range nvue.Object(qos, "mapping") {
		if obj, ok := m.(map[string]any); ok {
			fill(obj, map[string]any{"trust": "l2", "port-default-sp": 0.0})
			fillMappingMaps(obj)
		}
	}
	for _, p := range nvue.Object(qos, "pfc") {
		if obj, ok := p.(map[string]any); ok {
			fill(obj, map[string]any{"tx": "enable", "rx": "enable", "cable-length": 100.0})
		}
	}
	for _, c := range nvue.Object(qos, "congestion-control") {
		for _, tc := range nvue.Object(asTree(c), "traffic-class") {
			if obj, ok := tc.(map[string]any); ok {
				fill(obj, map[string]any{"ecn": "enable", "red": "enable", "min-threshold": 150000.0, "max-threshold": 1500000.0, "probability": 100.0})
			}
		}
	}
	fillPools(qos)
	for _, iface := range nvue.Object(out, "interface") {
		if link := nvue.Object(asTree(iface), "link"); link != nil {
			fill(link, map[string]any{"speed": "auto", "mtu": 9216.0, "auto-negotiate": "on", "breakout": "1x", "duplex": "full", "fec": "auto"})
		}
	}
	return out
}

func asTree(v any) nvue.Tree {
	m, _ := v.(map[string]any)
	return m
}

// fillMappingMaps adds the priority map a mapping profile's trust reads when the profile has
// none (spec schema-qos-mapping-mapping-defaults: trust l2, both or unset fill pcp n -> switch
// priority n, trust l3 or both fill dscp 8k..8k+7 -> k; schema-qos-mapping-pcp-mappings-defaults
// and -dscp-mappings-defaults). How NVUE merges these into a map that holds some entries the
// spec does not say, so a map someone wrote is left as it is.
func fillMappingMaps(m nvue.Tree) {
	trust, _ := m["trust"].(string)
	if _, set := m["pcp"]; !set && (trust == "l2" || trust == "both") {
		pcp := nvue.Tree{}
		for p := range 8 {
			pcp[strconv.Itoa(p)] = nvue.Tree{"switch-priority": float64(p)}
		}
		m["pcp"] = pcp
	}
	if _, set := m["dscp"]; !set && (trust == "l3" || trust == "both") {
		dscp := nvue.Tree{}
		for d := range 64 {
			dscp[strconv.Itoa(d)] = nvue.Tree{"switch-priority": float64(d / 8)}
		}
		m["dscp"] = dscp
	}
}

// fillPools adds the traffic pools' defaults of spec schema-qos-traffic-pool-qos-traffic-pool-
// defaults, which hang on RoCE's mode as the spec's defs read it (roceMode): with RoCE off,
// default-lossy gets memory-percent 100 and, when it lists none, every switch priority 0-7;
// in lossless mode default-lossy gets 50 and 0-7, roce-lossless 50; in lossy mode
// default-lossy gets 50 and 0-2,4-7, roce-lossy 50 and 3. The lossy pool's priorities are not
// stored ("Cumulus Linux allocates 100% of the buffer memory to the default-lossy traffic pool
// by default", 5.14 QoS guide, Flow Control Buffers; its nv show qos traffic-pool
// default-lossy lists 0-7 beside memory-percent 80), and the default lists all eight even
// where another pool names one: the guide's mc-lossy example moves priority 2 out of
// default-lossy with an explicit "default-lossy switch-priority 0,1,3,4,5,6,7".
func fillPools(qos nvue.Tree) {
	prios := func(ps ...int) nvue.Tree {
		out := nvue.Tree{}
		for _, p := range ps {
			out[strconv.Itoa(p)] = nvue.Tree{}
		}
		return out
	}
	pool := func(name string, memory float64, sp nvue.Tree) {
		p := nvue.Object(qos, "traffic-pool", name)
		if p == nil {
			return
		}
		if _, set := p["memory-percent"]; !set {
			p["memory-percent"] = memory
		}
		if _, set := p["switch-priority"]; !set && sp != nil {
			p["switch-priority"] = sp
		}
	}
	switch roceMode(qos) {
	case "lossless":
		pool("default-lossy", 50, prios(0, 1, 2, 3, 4, 5, 6, 7))
		pool("roce-lossless", 50, nil)
	case "lossy":
		pool("default-lossy", 50, prios(0, 1, 2, 4, 5, 6, 7))
		pool("roce-lossy", 50, prios(3))
	default:
		pool("default-lossy", 100, prios(0, 1, 2, 3, 4, 5, 6, 7))
	}
}
