package provider

import (
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
	checkGNMI(r, s.GNMI)
	return s, r.diags
}

func resolveNVUE(r *resolver, m *nvueModel) nvueSettings {
	if m == nil {
		m = &nvueModel{}
	}
	root := path.Root("nvue")
	s := nvueSettings{
		Config: nvue.Config{
			Username:     r.str(m.Username, envNVUEUsername, ""),
			Password:     r.str(m.Password, envNVUEPassword, ""),
			CAFile:       r.str(m.CAFile, envNVUECAFile, ""),
			ServerName:   r.str(m.ServerName, envNVUEServerName, ""),
			Insecure:     r.boolean(m.Insecure, root.AtName("insecure"), envNVUEInsecure, false),
			ApplyTimeout: r.duration(m.ApplyTimeout, root.AtName("apply_timeout"), envNVUEApplyTimeout, nvue.DefaultApplyTimeout),
		},
		Port: r.port(m.Port, root.AtName("port"), envNVUEPort, nvue.DefaultPort),
	}
	if (s.Username == "") != (s.Password == "") {
		r.attrError(root, "Incomplete NVUE Login",
			"NVUE basic authentication needs both nvue.username and nvue.password (or "+envNVUEUsername+" and "+envNVUEPassword+").")
	}
	if s.Insecure && s.CAFile != "" {
		r.attrError(root.AtName("insecure"), "Conflicting NVUE TLS Settings",
			"nvue.insecure = true skips certificate verification, yet nvue.ca_file is set. Remove insecure to verify the certificate with ca_file.")
	}
	if s.Insecure {
		r.diags.AddAttributeWarning(root.AtName("insecure"), "NVUE Certificates Are Not Verified",
			"nvue.insecure is true: any server on the switch's address gets the NVUE password. Give the switches' CA in nvue.ca_file outside test rigs.")
	}
	return s
}

func resolveGNMI(r *resolver, m *gnmiModel) gnmiSettings {
	if m == nil {
		m = &gnmiModel{}
	}
	root := path.Root("gnmi")
	return gnmiSettings{
		Config: gnmi.Config{
			Username:   r.str(m.Username, envGNMIUsername, ""),
			Password:   r.str(m.Password, envGNMIPassword, ""),
			CAFile:     r.str(m.CAFile, envGNMICAFile, ""),
			CertFile:   r.str(m.CertFile, envGNMICertFile, ""),
			KeyFile:    r.str(m.KeyFile, envGNMIKeyFile, ""),
			ServerName: r.str(m.ServerName, envGNMIServerName, ""),
			Insecure:   r.boolean(m.Insecure, root.AtName("insecure"), envGNMIInsecure, false),
			SetTimeout: r.duration(m.SetTimeout, root.AtName("set_timeout"), envGNMISetTimeout, gnmi.DefaultSetTimeout),
			Retries:    r.integer(m.Retries, root.AtName("retries"), envGNMIRetries, gnmi.DefaultRetries, 0, 10),
		},
		Port: r.port(m.Port, root.AtName("port"), envGNMIPort, 0),
	}
}

func checkGNMI(r *resolver, s gnmiSettings) {
	root := path.Root("gnmi")
	if (s.CertFile == "") != (s.KeyFile == "") {
		r.attrError(root.AtName("cert_file"), "Incomplete gNMI Client Certificate",
			"mTLS needs both gnmi.cert_file and gnmi.key_file (or "+envGNMICertFile+" and "+envGNMIKeyFile+"); only one is set.")
	}
	if s.Insecure && (s.CAFile != "" || s.CertFile != "" || s.ServerName != "") {
		r.attrError(root.AtName("insecure"), "Conflicting gNMI TLS Settings",
			"gnmi.insecure = true turns TLS off, yet ca_file, cert_file or server_name is set. Remove insecure to use TLS, or remove the TLS settings.")
	}
	if (s.Username == "") != (s.Password == "") {
		r.attrError(root.AtName("username"), "Incomplete gNMI Credentials",
			"gNMI password authentication needs both gnmi.username and gnmi.password (or "+envGNMIUsername+" and "+envGNMIPassword+").")
	}
	if s.Insecure {
		r.diags.AddAttributeWarning(root.AtName("insecure"), "gNMI Without TLS",
			"gnmi.insecure is true: switch configuration and any gNMI password travel in clear. Use TLS with ca_file outside test rigs.")
	}
}
