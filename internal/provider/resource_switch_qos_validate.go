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
)

// switchQoSRenames maps the fabric package's names of the ratio window onto this resource's
// attributes, in finding paths and text.
var switchQoSRenames = map[string]string{
	"ratio_window.min":    "pfc.ratio_min",
	"ratio_window.max":    "pfc.ratio_max",
	"ratio_window.target": "pfc.ratio_target",
}

// validate applies every rule that needs neither the switch nor the provider's settings: the
// policy (its ports as the switch's OS names them), the port speed override, the OS, a pinned
// release and the resource's own login settings, which must be those of the OS's transport.
func (m *switchQoSModel) validate() fabric.Findings {
	var fs fabric.Findings
	drv, err := switchDriver(m.os())
	if err != nil {
		return fabric.Findings{{Severity: fabric.SeverityError, Path: "os", Summary: "Unknown Switch Operating System",
			Detail: fmt.Sprintf("os is %q; use one of %s.", m.os(), quoteAll(drivers.OSes()))}}
	}
	about := drv.About()
	fs = append(fs, m.policy().Validate(m.ratioWindow(), drv)...)
	if v := m.PortSpeedGbps; !v.IsNull() && !v.IsUnknown() {
		fs = append(fs, fabric.CheckSpeed("port_speed_gbps", v.ValueInt64())...)
	}
	for attr, t := range map[string]switchcfg.Transport{"gnmi": switchcfg.TransportGNMI, "nvue": switchcfg.TransportNVUE} {
		set := attr == "gnmi" && m.GNMI != nil || attr == "nvue" && m.NVUE != nil
		if set && t != about.Transport {
			fs = append(fs, fabric.Finding{Severity: fabric.SeverityError, Path: attr, Summary: "Login Setting for Another Operating System",
				Detail: fmt.Sprintf("%s is set, but os is %q: %s switches are reached with the %s settings. Remove %s, or set the os it belongs to.",
					attr, about.OS, about.Name, about.Transport, attr)})
		}
	}
	if v := m.SONiCRelease; !v.IsNull() && !v.IsUnknown() {
		if why := drv.CheckRelease(v.ValueString()); why != "" {
			fs = append(fs, fabric.Finding{Severity: fabric.SeverityError, Path: "sonic_release", Summary: fmt.Sprintf("Invalid %s Release", about.Name),
				Detail: fmt.Sprintf("sonic_release %q: %s", v.ValueString(), why)})
		}
	}
	if m.GNMI != nil {
		fs = append(fs, m.GNMI.conflicts()...)
	}
	if m.NVUE != nil {
		fs = append(fs, m.NVUE.conflicts()...)
	}
	return fs
}

// conflicts are what a resource's gnmi block gets wrong whatever the provider's block adds:
// insecure = true with TLS settings. A pair it leaves half set may be completed by the
// provider's; checkConnection judges the two together.
func (o *gnmiLoginModel) conflicts() fabric.Findings {
	return findings(ownProblems(o.over(gnmi.Config{}).Check(), gnmiLoginFields(o), switchGNMIProblem, gnmi.RuleInsecureTLS, gnmi.RulePin))
}

// conflicts are what a resource's nvue block gets wrong whatever the provider's block adds:
// insecure = true with a CA file.
func (o *nvueLoginModel) conflicts() fabric.Findings {
	return findings(ownProblems(o.over(nvue.Config{}).Check(), nvueLoginFields(o), switchNVUEProblem, nvue.RuleInsecureCA, nvue.RulePin))
}

// findings are problems of the resource's settings as validation reports them.
func findings(ps []ownProblem) fabric.Findings {
	var fs fabric.Findings
	for _, p := range ps {
		fs = append(fs, fabric.Finding{Severity: fabric.SeverityError, Path: p.at.String(), Summary: p.summary, Detail: p.detail})
	}
	return fs
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
