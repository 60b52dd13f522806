package cumulus

import (
	"fmt"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// Cumulus' RoCE mode (nv set qos roce) and this resource.
//
// The resource adopts a switch that has RoCE mode on by writing its own profiles on top of
// it, not by driving `qos roce`:
//   - `qos roce` has three settings on 5.9 to 5.14: enable, mode and cable-length (NVUE
//     command reference, CumulusNetworks/docs content/nvue-reference/Set-and-Unset-Commands/
//     QoS.md, "nv set qos roce ..."). The DSCP values, the priorities, the ECN band and the
//     schedulers are fixed by the mode (RoCE guide 5.9/5.12/5.14, "Default RoCE
//     Configuration"), so a policy could only ever be RoCE's defaults.
//   - NVIDIA documents changing RoCE mode's settings with the ordinary QoS objects once it is
//     on ("You can adjust RoCE settings using NVUE after you enable RoCE": traffic-pool
//     memory, egress-queue-mapping, mapping trust and DSCP, the PFC switch priority; RoCE guide,
//     "Change RoCE Configuration"), and NVUE's rule for a PFC profile is met by RoCE lossless
//     mode itself ("pfc profile requires traffic pool default-lossless/roce-lossless or roce
//     mode lossless to be configured", schema-qos-pfc-qos-pfc-constraints of the NVUE OpenAPI
//     5.3 spec, static/cumulus-linux-53/api/openapi.json).
//
// So in lossless mode the resource writes its mapping, egress-scheduler, PFC and
// congestion-control profiles bound to its ports, as with RoCE off, and leaves `qos roce` as it
// is: destroy removes the profiles and RoCE mode stays on. It writes no traffic pool: the spec
// refuses the default-lossless pool under RoCE lossless mode ("default-lossless pool cannot be
// configured with roce mode lossless", schema-roce-qos-roce-mode-lossless-constraints), and the
// mode's own lossless pool ("Switch priority 3 allocated to RoCE lossless traffic pool")
// already holds the lossless priority's buffer. In lossy mode no PFC profile can exist: the
// spec refuses both lossless pools with it (schema-roce-qos-roce-mode-lossy-constraints) and
// the PFC rule above then has nothing to stand on; the plan refuses it.

// The modes of `qos roce mode` on 5.9 to 5.14 (lossless-single-ipool from 5.12, lossy-multi-tc,
// the packet trimming profile, in 5.14).
const (
	roceLossless = "lossless"
	roceLossy    = "lossy"
	// RoCE's fixed lossless priority (RoCE guide, Default RoCE Configuration: "Switch
	// priority 3 to traffic class 3 (RoCE)", "Switch priority 3 allocated to RoCE lossless
	// traffic pool").
	rocePriority = 3
)

// roceMode is the switch's RoCE mode from the applied `qos roce`: "" when it is off or not
// configured, else its mode, lossless when none is set ("NVUE defaults to RoCE lossless. The
// command nv set qos roce and nv set qos roce mode lossless are equivalent", RoCE guide). An
// object without `enable` counts as on, as the spec's defs read it (schema-roce-qos-is-roce-*-def).
func roceMode(qos nvue.Tree) string {
	r := nvue.Object(qos, "roce")
	if r == nil || r["enable"] == "off" {
		return ""
	}
	if mode, _ := r["mode"].(string); mode != "" {
		return mode
	}
	return roceLossless
}

// roceLosslessMode reports whether mode turns PFC on: lossless and lossless-single-ipool (one
// shared ingress pool, still "lossless": RoCE guide 5.12, Single Shared Buffer Pool). lossy and
// the packet trimming profile lossy-multi-tc do not ("Enable PFC on switch priority 3 (RoCE)":
// NO in lossy mode).
func roceLosslessMode(mode string) bool {
	return mode == roceLossless || mode == "lossless-single-ipool"
}

// classList names the lossless classes beside the default one with their priorities.
func classList(p switchcfg.Policy) string {
	parts := make([]string, len(p.Lossless))
	for i, c := range p.Lossless {
		parts[i] = fmt.Sprintf("%s on priority %d", c.Name, c.Priority)
	}
	return strings.Join(parts, ", ")
}

// roceChecks are the plan's violations about RoCE mode: a refusal in a lossy mode, in
// lossless mode a refusal of lossless classes beside the default one, and a warning where
// the policy's lossless priority is not RoCE's.
//
// RoCE lossless mode has one lossless priority: nv show qos roce has one pfc pfc-priority and
// its pool config one roce-reserved egress traffic class (RoCE guide 5.14, Default RoCE Configuration and Verify RoCE Configuration,
// CumulusNetworks/docs content/cumulus-linux-514/Layer-1-and-Switch-Ports/Quality-of-Service/
// RDMA-over-Converged-Ethernet-RoCE.md at 1ffba627). Its Change RoCE Configuration section
// moves that one priority (pfc switch-priority 3 to 2) and never adds a second, and the mode
// refuses the default-lossless pool a second lossless priority would be buffered in
// (schema-roce-qos-roce-mode-lossless-constraints). So a second lossless class is refused on it
// rather than written into buffers nothing documents.
func roceChecks(mode string, p switchcfg.Policy) violation.List {
	switch {
	case mode == "":
		return nil
	case !roceLosslessMode(mode):
		return violation.List{switchcfg.ErrorAt(switchcfg.FieldPFC, "Cumulus RoCE Mode Is Lossy", func(n violation.Names) string {
			return fmt.Sprintf("The switch runs Cumulus' RoCE mode %s (nv show qos roce), in which NVUE takes no PFC profile: a PFC profile needs the default-lossless or roce-lossless traffic pool or RoCE lossless mode, and RoCE %s refuses both pools. "+
				"%s asks for PFC on switch priority %d. Switch RoCE to lossless (nv set qos roce mode lossless; nv config apply) or off (nv unset qos roce; nv config apply), then plan again.",
				mode, mode, n(switchcfg.FieldPFC), p.Class.Priority)
		})}
	case len(p.Lossless) > 0:
		return violation.List{switchcfg.ErrorAt(fabric.FieldLossless, "Lossless Classes Beside Cumulus RoCE Mode", func(n violation.Names) string {
			return fmt.Sprintf("The switch runs Cumulus' RoCE mode %s (nv show qos roce), which buffers one switch priority losslessly: its pfc-priority (%d by default) in the roce-reserved pools, and it refuses the default-lossless pool that more lossless priorities would need. "+
				"%s lists %d lossless %s (%s) beside it, which NVIDIA documents no way to add in RoCE mode: its priorities would be paused into lossy buffer. "+
				"Turn RoCE mode off (nv unset qos roce; nv config apply), and the provider gives every lossless priority the default-lossless pool, or remove %s for this switch.",
				mode, rocePriority, n(fabric.FieldLossless), len(p.Lossless), map[bool]string{true: "class", false: "classes"}[len(p.Lossless) == 1], classList(p), n(fabric.FieldLossless))
		})}
	case p.Class.Priority != rocePriority:
		return violation.List{switchcfg.WarningAt(fabric.FieldRDMAPriority, "Lossless Priority Differs from Cumulus RoCE Mode", func(violation.Names) string {
			return fmt.Sprintf("The switch runs Cumulus' RoCE mode %s, which gives switch priority %d its lossless pool; this resource makes priority %d lossless on its ports with its own PFC profile. "+
				"NVIDIA's way of moving RoCE's lossless priority changes only the PFC, DSCP and egress queue mappings, as this resource does: after the apply, check that priority %d is in the roce-reserved pools (nv show qos roce pool-map), or use priority %d.",
				mode, rocePriority, p.Class.Priority, p.Class.Priority, rocePriority)
		})}
	}
	return nil
}
