package nvuetwin

import (
	"strconv"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

// filled returns a copy of a configuration with the schema's defaults added where a value is
// not set, as a read without filled=false answers ("If true, fill in attributes with default
// values, providing a complete set of attributes"). The defaults are the NVUE OpenAPI 5.3
// spec's (CumulusNetworks/docs static/cumulus-linux-53/api/openapi.json, the default
// keywords of schema-qos-mapping-mapping-config, schema-qos-pfc-pfc-config, the ECN traffic
// class config and schema-common-if-link-common-link-config) for the objects the provider
// reads.
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
	// The lossy pool holds every priority no other pool lists ("Cumulus Linux allocates 100%
	// of the buffer memory to the default-lossy traffic pool by default", 5.14 QoS guide, Flow
	// Control Buffers; the RoCE guide moves priority 4 out with an explicit
	// "default-lossy switch-priority 0-3,5-7").
	if lossy := nvue.Object(qos, "traffic-pool", "default-lossy"); lossy != nil && lossy["switch-priority"] == nil {
		prios := nvue.Tree{}
		for p := range 8 {
			prios[strconv.Itoa(p)] = nvue.Tree{}
		}
		for name, pool := range nvue.Object(qos, "traffic-pool") {
			if name != "default-lossy" {
				for p := range nvue.Object(asTree(pool), "switch-priority") {
					delete(prios, p)
				}
			}
		}
		lossy["switch-priority"] = prios
	}
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
