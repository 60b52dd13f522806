package provider

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg/drivers"
	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// thresholdNames are the attributes of the ECN/PFC rule's fields where a schema keeps the
// rule's own names (the ecn_pfc_findings function).
var thresholdNames = fieldNames{
	fabric.FieldECNMin.Name:          attrPath("ecn", "min_threshold_bytes"),
	fabric.FieldECNMax.Name:          attrPath("ecn", "max_threshold_bytes"),
	fabric.FieldPFCPause.Name:        attrPath("pfc", "pause_threshold_bytes"),
	fabric.FieldMarkProbability.Name: attrPath("ecn", "mark_probability_percent"),
	fabric.FieldRatioMin.Name:        attrPath("ratio_window", "min"),
	fabric.FieldRatioMax.Name:        attrPath("ratio_window", "max"),
	fabric.FieldRatioTarget.Name:     attrPath("ratio_window", "target"),
	fabric.FieldRatioTargetBand.Name: attrPath("ratio_window", "target_band"),
}

// switchQoSNames are roce_switch_qos's attributes of the policy's fields; the ratio window is
// part of its pfc block.
var switchQoSNames = thresholdNames.with(fieldNames{
	fabric.FieldRatioMin.Name:             attrPath("pfc", "ratio_min"),
	fabric.FieldRatioMax.Name:             attrPath("pfc", "ratio_max"),
	fabric.FieldRatioTarget.Name:          attrPath("pfc", "ratio_target"),
	fabric.FieldRDMADSCP.Name:             attrPath("rdma", "dscp"),
	fabric.FieldRDMAPriority.Name:         attrPath("rdma", "priority"),
	fabric.FieldECNBits.Name:              attrPath("rdma", "ecn_bits"),
	fabric.FieldCNPDSCP.Name:              attrPath("cnp", "dscp"),
	fabric.FieldCNPPriority.Name:          attrPath("cnp", "priority"),
	fabric.FieldTrust.Name:                path.Root("trust"),
	fabric.FieldPorts.Name:                path.Root("ports"),
	fabric.FieldPerPortReservation.Name:   path.Root("per_port_reservation_bytes"),
	switchcfg.FieldName.Name:              path.Root("name"),
	switchcfg.FieldPorts.Name:             path.Root("ports"),
	switchcfg.FieldCableLength.Name:       path.Root("cable_length_m"),
	switchcfg.FieldECN.Name:               path.Root("ecn"),
	switchcfg.FieldPFC.Name:               path.Root("pfc"),
	switchcfg.FieldRDMASchedulerMode.Name: attrPath("rdma_scheduler", "mode"),
	switchcfg.FieldRDMAWeight.Name:        attrPath("rdma_scheduler", "weight"),
	switchcfg.FieldCNPSchedulerMode.Name:  attrPath("cnp_scheduler", "mode"),
	switchcfg.FieldCNPWeight.Name:         attrPath("cnp_scheduler", "weight"),
	switchcfg.FieldWatchdog.Name:          path.Root("pfc_watchdog"),
	switchcfg.FieldWatchdogAction.Name:    attrPath("pfc_watchdog", "action"),
	switchcfg.FieldWatchdogDetection.Name: attrPath("pfc_watchdog", "detection_time_ms"),
	switchcfg.FieldWatchdogRestore.Name:   attrPath("pfc_watchdog", "restoration_time_ms"),
	switchcfg.FieldOS.Name:                path.Root("os"),
	switchcfg.FieldSpeedOverride.Name:     path.Root("port_speed_gbps"),
	// The lossless classes beside the default one: each class's fields relative to its
	// element of lossless_classes.
	fabric.FieldLossless.Name:                     path.Root("lossless_classes"),
	classField(fabric.FieldClassName):             path.Root("name"),
	classField(fabric.FieldClassDSCP):             path.Root("dscp"),
	classField(fabric.FieldClassPriority):         path.Root("priority"),
	classField(fabric.FieldECNMin):                attrPath("ecn", "min_threshold_bytes"),
	classField(fabric.FieldECNMax):                attrPath("ecn", "max_threshold_bytes"),
	classField(fabric.FieldMarkProbability):       attrPath("ecn", "mark_probability_percent"),
	classField(fabric.FieldPFCPause):              attrPath("pfc", "pause_threshold_bytes"),
	classField(switchcfg.FieldClassMarkProb):      attrPath("ecn", "mark_probability_percent"),
	classField(switchcfg.FieldClassSchedulerMode): attrPath("scheduler", "mode"),
	classField(switchcfg.FieldClassWeight):        attrPath("scheduler", "weight"),
})

// classField is the table key of a field within an element of the lossless classes.
func classField(f violation.Field) string { return fabric.FieldLossless.Name + "." + f.Name }

// validate applies every rule that needs neither the switch nor the provider's settings: the
// policy (its ports as the switch's OS names them), the port speed override, the OS, a pinned
// release and the resource's own login settings, which must be those of the OS's transport.
func (m *switchQoSModel) validate() problems {
	var ps problems
	drv, err := switchDriver(m.os())
	if err != nil {
		ps.errorAt(path.Root("os"), "Unknown Switch Operating System", fmt.Sprintf("os is %q; use one of %s.", m.os(), quoteAll(drivers.OSes())))
		return ps
	}
	about := drv.About()
	ps.add(m.policy().Validate(m.ratioWindow(), drv), switchQoSNames)
	if v := m.PortSpeedGbps; !v.IsNull() && !v.IsUnknown() {
		ps.add(fabric.CheckSpeed(switchcfg.FieldSpeedOverride, v.ValueInt64()), switchQoSNames)
	}
	for attr, t := range map[string]switchcfg.Transport{"gnmi": switchcfg.TransportGNMI, "nvue": switchcfg.TransportNVUE} {
		set := attr == "gnmi" && m.GNMI != nil || attr == "nvue" && m.NVUE != nil
		if set && t != about.Transport {
			ps.errorAt(path.Root(attr), "Login Setting for Another Operating System",
				fmt.Sprintf("%s is set, but os is %q: %s switches are reached with the %s settings. Remove %s, or set the os it belongs to.",
					attr, about.OS, about.Name, about.Transport, attr))
		}
	}
	if v := m.SONiCRelease; !v.IsNull() && !v.IsUnknown() {
		if why := drv.CheckRelease(v.ValueString()); why != "" {
			ps.errorAt(path.Root("sonic_release"), fmt.Sprintf("Invalid %s Release", about.Name),
				fmt.Sprintf("sonic_release %q: %s", v.ValueString(), why))
		}
	}
	if m.GNMI != nil {
		ps = append(ps, m.GNMI.conflicts()...)
	}
	if m.NVUE != nil {
		ps = append(ps, m.NVUE.conflicts()...)
	}
	return ps
}

// conflicts are what a resource's gnmi block gets wrong whatever the provider's block adds:
// insecure = true with TLS settings. A pair it leaves half set may be completed by the
// provider's; checkConnection judges the two together.
func (o *gnmiLoginModel) conflicts() problems {
	return ownErrors(ownProblems(o.over(gnmi.Config{}).Check(), gnmiLoginFields(o), switchGNMIProblem, gnmi.RuleInsecureTLS, gnmi.RulePin))
}

// conflicts are what a resource's nvue block gets wrong whatever the provider's block adds:
// insecure = true with a CA file.
func (o *nvueLoginModel) conflicts() problems {
	return ownErrors(ownProblems(o.over(nvue.Config{}).Check(), nvueLoginFields(o), switchNVUEProblem, nvue.RuleInsecureCA, nvue.RulePin))
}

// ownErrors are problems of the resource's settings as validation reports them.
func ownErrors(own []ownProblem) problems {
	var ps problems
	for _, p := range own {
		ps.errorAt(p.at, p.summary, p.detail)
	}
	return ps
}

// checkConnection refuses what the resource's gnmi or nvue settings get wrong once laid over
// the provider's ([gnmi.Config.Check], [nvue.Config.Check]), on the resource attribute that
// needs the fix. Settings the provider block gets wrong on its own are refused when the
// provider is configured, and the address when the resource connects.
func (m *switchQoSModel) checkConnection(s settings, diags *diag.Diagnostics) bool {
	var ps []ownProblem
	if o := m.GNMI; o != nil {
		ps = ownProblems(o.over(s.GNMI.Config).Check(), gnmiLoginFields(o), switchGNMIProblem)
	}
	if o := m.NVUE; o != nil {
		ps = append(ps, ownProblems(o.over(s.NVUE.Config).Check(), nvueLoginFields(o), switchNVUEProblem)...)
	}
	for _, p := range ps {
		diags.AddAttributeError(p.at, p.summary, p.detail)
	}
	return len(ps) == 0
}

// speedList is the port speeds the headroom model knows, for documentation: `10`, `25`, ...
func speedList() string {
	var parts []string
	for _, s := range fabric.SupportedSpeedsGbps() {
		parts = append(parts, "`"+strconv.Itoa(s)+"`")
	}
	return strings.Join(parts, ", ")
}

// warnInsecure warns, on every plan, when this switch's own settings turn transport security
// off; the provider block's insecure settings warn on their own at configure.
func (m *switchQoSModel) warnInsecure(diags *diag.Diagnostics) {
	addr := m.Address.ValueString()
	if o := m.GNMI; o != nil && o.Insecure.ValueBool() {
		diags.AddAttributeWarning(path.Root("gnmi").AtName("insecure"), "gNMI Without TLS",
			fmt.Sprintf("gnmi.insecure is true for switch %s: its configuration and the gNMI password travel in clear, readable and changeable by anyone on the path. Use TLS with ca_file outside test rigs.", addr))
	}
	if o := m.NVUE; o != nil && o.Insecure.ValueBool() {
		diags.AddAttributeWarning(path.Root("nvue").AtName("insecure"), "NVUE Certificate Not Verified",
			fmt.Sprintf("nvue.insecure is true for switch %s: any server that answers on the address gets the NVUE password and can fake the switch's answers. Import a certificate your CA signs on the switch (nv action import system security certificate) and set ca_file.", addr))
	}
}
