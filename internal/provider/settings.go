package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

// settings is the provider configuration after environment fallbacks and defaults, in plain
// Go types, ready to be handed to the transports.
type settings struct {
	// SSH is the hosts' transport configuration as the pool takes it; Events is left to
	// the pool's owner.
	SSH  ssh.Config
	GNMI gnmiSettings
	NVUE nvueSettings
}

// nvueSettings is the provider's nvue block resolved: every Cumulus switch's NVUE
// configuration but its address, and the port of addresses without one.
type nvueSettings struct {
	nvue.Config // Address: each resource's own
	Port        int
}

// gnmiSettings is the provider's gnmi block resolved: every SONiC switch's gNMI configuration
// but its address, and the port of addresses without one.
type gnmiSettings struct {
	gnmi.Config     // Address: each resource's own
	Port        int // 0: every address must carry its own port
}

// resolveSettings merges the configuration with the environment and the defaults, and checks
// the combinations that no single attribute can: an error names the attribute (and the
// environment variable when that is where the value came from) and the fix.
func resolveSettings(m providerModel, getenv func(string) string) (settings, diag.Diagnostics) {
	r := &resolver{getenv: getenv}
	s := settings{
		SSH:  resolveSSH(r, m.SSH),
		GNMI: resolveGNMI(r, m.GNMI),
		NVUE: resolveNVUE(r, m.NVUE),
	}
	if sshInUse(m.SSH, getenv) {
		checkSSH(r, m.SSH, s.SSH)
	}
	checkGNMI(r, m.GNMI, s.GNMI.Config)
	checkNVUE(r, m.NVUE, s.NVUE.Config)
	return s, r.diags
}

// setting is the attribute behind a field of a transport's configuration (ssh.Config,
// ssh.Hop, gnmi.Config, nvue.Config): where a diagnostic about the field goes, and the
// environment variable it falls back to.
type setting struct {
	path path.Path
	env  string
	v    attr.Value // as configured: null when unset, unknown while not known yet
}

// name is how a diagnostic names the attribute: ssh.private_key, gnmi.username.
func (s setting) name() string { return s.path.String() }

// from says " (from ENV)" when the configuration leaves the attribute unset, so its value
// came from the environment.
func (s setting) from() string {
	if s.v.IsNull() && s.env != "" {
		return " (from " + s.env + ")"
	}
	return ""
}
