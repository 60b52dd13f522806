package nvuetwin

import "github.com/clusterbid/terraform-provider-roce/internal/nvue"

// The rules between QoS objects that an apply checks, with the texts of the x-cue-error
// keywords of NVIDIA's NVUE OpenAPI 5.3 spec (CumulusNetworks/docs
// static/cumulus-linux-53/api/openapi.json, x-defs named beside each text). NVUE reports
// such a text as the reason of a config_invalid issue, with its trailing newline ("reason":
// "BGP requires router-id to be set globally or in the VRF.\n", NVUE API guide 5.14,
// Troubleshoot Configuration Changes). The 5.9 to 5.14 guides describe the same rules in prose
// (Quality-of-Service/_index.md: Flow Control Buffers, Priority Flow Control; RoCE page).
// The texts were checked against the file at commit 9fdbe121: the rules sit in its full
// schema-* x-defs (characters 4.10 M to 4.15 M of 4.18 M; the cue-show-/cue-patch- copies
// carry none), and the pool, RoCE and PFC-needs-lossless rules join in
// schema-qos-qos-constraints, so NVUE attaches them to qos.
const (
	// schema-qos-pfc-qos-pfc-constraints.
	errPFCNeedsLossless = "pfc profile requires traffic pool default-lossless/roce-lossless or roce mode lossless to be configured\n"
	// schema-qos-pfc-pfc-constraints.
	errPFCPriorityRequired = "PFC switch-priority is required"
	errPFCBuffersTogether  = "xon-threshold, xoff-threshold, port-buffers needs to be configured together or not configured at all\n"
	// schema-qos-features-switch-priorities-constraints.
	errNoSwitchPriority = "At least one switch-priority has to be configured"
	// schema-qos-mapping-mapping-constraints.
	errDSCPNeedsL3 = "dscp mapping should be configured with L3/Both Trust mode\n"
	errPCPNeedsL2  = "pcp mapping should be configured with L2/Both Trust mode\n"
	// schema-qos-traffic-pool-traffic-pool-constraints.
	errPoolMemory = "Traffic Pools must have memory-percent property"
	// schema-qos-traffic-pool-traffic-pool-{default-lossless,roce-lossy,roce-lossless,mc-lossy}-constraints.
	errDefaultLosslessPriorities = "default-lossless pool does not require switch-priority to be configured\n"
	errRoCELosslessPriorities    = "roce-lossless pool does not require switch-priority to be configured\n"
	errRoCELossyWithDefault      = "roce-lossy pool profile cannot be configured along with default-lossless pool profile\n"
	errRoCELosslessWithDefault   = "roce-lossless pool profile cannot be configured along with default-lossless pool profile\n"
	errRoCELossyWithRoCELossless = "roce-lossy pool profile cannot be configured along with roce-lossless pool profile\n"
	errMCLossyPriorities         = "mc-lossy pool requires switch-priority to be configured\n"
	// schema-roce-qos-roce-mode-lossy-constraints.
	errDefaultLosslessRoCELossy = "default-lossless pool cannot be configured with roce mode lossy\n"
	errRoCELosslessRoCELossy    = "roce-lossless pool cannot be configured with roce mode lossy\n"
	errMCLossyRoCELossy         = "mc-lossy pool cannot be configured with roce mode lossy\n"
	// schema-roce-qos-roce-mode-lossless-constraints.
	errDefaultLosslessRoCELossless = "default-lossless pool cannot be configured with roce mode lossless\n"
	errMCLossyRoCELossless         = "mc-lossy pool cannot be configured with roce mode lossless\n"
	errRoCELossyRoCELossless       = "roce-lossy pool cannot be configured with roce mode lossless\n"
	// schema-qos-ets-qos-ets-constraints.
	errETSMode      = "mode is required for ETS traffic-class\n"
	errETSBandwidth = "bw-percent should be configured with dwrr mode\n"
	// schema-qos-ecn-ecn-constraints.
	errECNTrafficClass = "ECN profile requires atleast one traffic-class"
	// Not NVIDIA's text: the 5.14 QoS guide says "You can not configure link pause and PFC
	// on the same port" (Quality-of-Service/_index.md, Priority Flow Control), and the 5.3
	// spec has no link pause to carry a rule.
	errLinkPauseAndPFC = "link pause and PFC cannot be configured on the same port"
)

// roceMode is RoCE's mode as the spec's defs read it: "lossy" when RoCE is on (enable on or
// unset) in mode lossy (schema-roce-qos-is-roce-mode-lossy-def), "lossless" when it is on in any
// other mode (schema-roce-qos-is-roce-lossless-def), "" when it is off or not configured.
func roceMode(q nvue.Tree) string {
	r, ok := q["roce"].(map[string]any)
	if !ok || r["enable"] == "off" {
		return ""
	}
	if r["mode"] == "lossy" {
		return "lossy"
	}
	return "lossless"
}

// crossRules checks the rules between the QoS objects of q, each failing at the object the
// spec attaches it to.
func (v *validator) crossRules(q nvue.Tree) {
	pools := nvue.Object(q, "traffic-pool")
	has := func(p string) bool { _, ok := pools[p]; return ok }
	mode := roceMode(q)
	for _, r := range []struct {
		bad  bool
		text string
	}{
		{has("default-lossless") && has("roce-lossy"), errRoCELossyWithDefault},
		{has("default-lossless") && has("roce-lossless"), errRoCELosslessWithDefault},
		{has("roce-lossy") && has("roce-lossless"), errRoCELossyWithRoCELossless},
		{mode == "lossy" && has("default-lossless"), errDefaultLosslessRoCELossy},
		{mode == "lossy" && has("roce-lossless"), errRoCELosslessRoCELossy},
		{mode == "lossy" && has("mc-lossy"), errMCLossyRoCELossy},
		{mode == "lossless" && has("default-lossless"), errDefaultLosslessRoCELossless},
		{mode == "lossless" && has("mc-lossy"), errMCLossyRoCELossless},
		{mode == "lossless" && has("roce-lossy"), errRoCELossyRoCELossless},
		{len(nvue.Object(q, "pfc")) > 0 && !has("default-lossless") && !has("roce-lossless") && mode != "lossless", errPFCNeedsLossless},
	} {
		if r.bad {
			v.fail("qos", "%s", r.text)
		}
	}
	for _, name := range sortedKeys(nvue.Object(q, "pfc")) {
		p := nvue.Object(q, "pfc", name)
		loc := "qos.pfc." + name
		if prios, ok := p["switch-priority"]; !ok {
			v.fail(loc, "%s", errPFCPriorityRequired)
		} else if m, _ := prios.(map[string]any); len(m) == 0 {
			v.fail(loc+".switch-priority", "%s", errNoSwitchPriority)
		}
		n := 0
		for _, f := range []string{"xon-threshold", "xoff-threshold", "port-buffer"} {
			if _, ok := p[f]; ok {
				n++
			}
		}
		if n != 0 && n != 3 {
			v.fail(loc, "%s", errPFCBuffersTogether)
		}
	}
	for _, name := range sortedKeys(nvue.Object(q, "mapping")) {
		m := nvue.Object(q, "mapping", name)
		trust, _ := m["trust"].(string)
		if _, ok := m["dscp"]; ok && trust != "l3" && trust != "both" {
			v.fail("qos.mapping."+name, "%s", errDSCPNeedsL3)
		}
		if _, ok := m["pcp"]; ok && trust != "l2" && trust != "both" {
			v.fail("qos.mapping."+name, "%s", errPCPNeedsL2)
		}
	}
	for _, name := range sortedKeys(nvue.Object(q, "congestion-control")) {
		if len(nvue.Object(q, "congestion-control", name, "traffic-class")) == 0 {
			v.fail("qos.congestion-control."+name, "%s", errECNTrafficClass)
		}
	}
}

// poolRules checks one traffic pool against the rules of its own constraints.
func (v *validator) poolRules(loc, name string, m nvue.Tree) {
	if _, ok := m["memory-percent"]; !ok {
		v.fail(loc, "%s", errPoolMemory)
	}
	prios, listed := m["switch-priority"]
	switch {
	case name == "default-lossless" && listed:
		v.fail(loc, "%s", errDefaultLosslessPriorities)
	case name == "roce-lossless" && listed:
		v.fail(loc, "%s", errRoCELosslessPriorities)
	case name == "mc-lossy" && !listed:
		v.fail(loc, "%s", errMCLossyPriorities)
	}
	if p, ok := prios.(map[string]any); listed && ok && len(p) == 0 {
		v.fail(loc+".switch-priority", "%s", errNoSwitchPriority)
	}
}

// portFlowControl refuses link pause and PFC bound to the same port.
func (v *validator) portFlowControl(loc string, qos nvue.Tree) {
	if qos["pfc"] != nil && qos["link-pause"] != nil {
		v.fail(loc+".qos", "%s", errLinkPauseAndPFC)
	}
}
