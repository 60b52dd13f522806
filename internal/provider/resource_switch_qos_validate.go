package provider

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
)

// switchQoSRenames maps the fabric package's names of the ratio window onto this resource's
// attributes, in finding paths and text.
var switchQoSRenames = map[string]string{
	"ratio_window.min":    "pfc.ratio_min",
	"ratio_window.max":    "pfc.ratio_max",
	"ratio_window.target": "pfc.ratio_target",
}

// validate applies every rule that needs neither the switch nor the provider's settings: the
// policy, the port speed override, the SONiC release and the resource's own gnmi settings.
func (m *switchQoSModel) validate() fabric.Findings {
	fs := m.policy().Validate(m.ratioWindow())
	if v := m.PortSpeedGbps; !v.IsNull() && !v.IsUnknown() {
		fs = append(fs, fabric.CheckSpeed("port_speed_gbps", v.ValueInt64())...)
	}
	if v := m.OS.ValueString(); isSet(m.OS) && v != switchcfg.OSSONiC && v != switchcfg.OSCumulus {
		fs = append(fs, fabric.Finding{Severity: fabric.SeverityError, Path: "os", Summary: "Unknown Switch Operating System",
			Detail: fmt.Sprintf("os is %q; use \"sonic\" (gNMI) or \"cumulus\" (NVUE).", v)})
	}
	if m.os() != switchcfg.OSCumulus && m.NVUE != nil {
		fs = append(fs, fabric.Finding{Severity: fabric.SeverityError, Path: "nvue", Summary: "Cumulus Setting on a SONiC Switch",
			Detail: "nvue is set, but os is \"sonic\": it applies to Cumulus switches only. Remove it, or set os = \"cumulus\"."})
	}
	if m.os() == switchcfg.OSCumulus {
		for attr, set := range map[string]bool{"sonic_release": isSet(m.SONiCRelease), "gnmi": m.GNMI != nil} {
			if set {
				fs = append(fs, fabric.Finding{Severity: fabric.SeverityError, Path: attr, Summary: "SONiC Setting on a Cumulus Switch",
					Detail: fmt.Sprintf("%s is set, but os is \"cumulus\": it applies to SONiC switches only. Remove it; Cumulus switches use the provider's nvue block.", attr)})
			}
		}
	}
	if v := m.SONiCRelease; !v.IsNull() && !v.IsUnknown() {
		if _, err := sonic.ParseRelease(v.ValueString()); err != nil {
			fs = append(fs, fabric.Finding{Severity: fabric.SeverityError, Path: "sonic_release", Summary: "Invalid SONiC Release",
				Detail: fmt.Sprintf("sonic_release %q: %v. Use the release branch, such as \"202411\", \"202505\" or \"master\", or leave it unset to read it from the switch.", v.ValueString(), err)})
		}
	}
	if o := m.GNMI; o != nil && isSet(o.Insecure) && o.Insecure.ValueBool() {
		if tls := o.tlsSettings(); len(tls) > 0 {
			fs = append(fs, fabric.Finding{Severity: fabric.SeverityError, Path: "gnmi.insecure", Summary: "Conflicting gNMI TLS Settings",
				Detail: fmt.Sprintf("gnmi.insecure = true turns TLS off for this switch, yet %s is set: insecure (plaintext) excludes ca_file, cert_file, key_file and server_name. Remove insecure to use TLS, or remove the TLS settings.",
					strings.Join(tls, ", "))})
		}
	}
	return fs
}

// tlsSettings names the TLS attributes the override sets, as gnmi.<attribute>.
func (o *gnmiLoginModel) tlsSettings() []string {
	var out []string
	for _, a := range []struct {
		name string
		v    types.String
	}{{"ca_file", o.CAFile}, {"cert_file", o.CertFile}, {"key_file", o.KeyFile}, {"server_name", o.ServerName}} {
		if a.v.ValueString() != "" {
			out = append(out, "gnmi."+a.name)
		}
	}
	return out
}

// checkConnection refuses what the resource's gnmi settings leave incomplete once merged
// with the provider's, on the resource attribute that needs the fix. Settings the provider
// block gets wrong on its own are refused when the provider is configured.
func (m *switchQoSModel) checkConnection(s gnmiSettings, diags *diag.Diagnostics) bool {
	o := m.GNMI
	if o == nil {
		return true
	}
	root, errs, merged := path.Root("gnmi"), diags.ErrorsCount(), o.over(s.Config)
	pair := func(a, b string, av, bv types.String, mergedA, mergedB, envA, envB string) {
		switch {
		case mergedA != "" && mergedB == "" && av.ValueString() != "":
			diags.AddAttributeError(root.AtName(a), "Incomplete gNMI Settings",
				fmt.Sprintf("gnmi.%s is set for this switch but there is no %s: set gnmi.%s here, or in the provider's gnmi block (or %s). %s and %s must be set together.", a, b, b, envB, a, b))
		case mergedB != "" && mergedA == "" && bv.ValueString() != "":
			diags.AddAttributeError(root.AtName(b), "Incomplete gNMI Settings",
				fmt.Sprintf("gnmi.%s is set for this switch but there is no %s: set gnmi.%s here, or in the provider's gnmi block (or %s). %s and %s must be set together.", b, a, a, envA, a, b))
		}
	}
	pair("username", "password", o.Username, o.Password, merged.Username, merged.Password, envGNMIUsername, envGNMIPassword)
	pair("cert_file", "key_file", o.CertFile, o.KeyFile, merged.CertFile, merged.KeyFile, envGNMICertFile, envGNMIKeyFile)
	// insecure = true in the resource itself with TLS settings is refused at validate.
	if tls := o.tlsSettings(); s.Insecure && !isSet(o.Insecure) && len(tls) > 0 {
		diags.AddAttributeError(root.AtName(strings.TrimPrefix(tls[0], "gnmi.")), "Conflicting gNMI TLS Settings",
			fmt.Sprintf("This switch sets %s, but the provider's gnmi.insecure = true turns TLS off: set gnmi.insecure = false for this switch to use TLS, or remove %s.",
				strings.Join(tls, ", "), strings.Join(tls, ", ")))
	}
	return diags.ErrorsCount() == errs
}

// speedList is the port speeds the headroom model knows, for documentation: `10`, `25`, ...
func speedList() string {
	var parts []string
	for _, s := range fabric.SupportedSpeedsGbps() {
		parts = append(parts, "`"+strconv.Itoa(s)+"`")
	}
	return strings.Join(parts, ", ")
}
