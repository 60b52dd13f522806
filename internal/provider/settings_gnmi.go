package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
)

// resolveGNMI turns the gnmi block into every SONiC switch's gNMI configuration but its
// address: each attribute, else its environment variable, else the transport's default. A
// value not known yet resolves as if unset (checkGNMI leaves the checks that read it alone).
func resolveGNMI(r *resolver, m *gnmiModel) gnmiSettings {
	if m == nil {
		m = &gnmiModel{}
	}
	root := path.Root("gnmi")
	return gnmiSettings{
		Config: gnmi.Config{
			Username:       r.str(m.Username, envGNMIUsername, ""),
			Password:       r.str(m.Password, envGNMIPassword, ""),
			CAFile:         r.str(m.CAFile, envGNMICAFile, ""),
			CertFile:       r.str(m.CertFile, envGNMICertFile, ""),
			KeyFile:        r.str(m.KeyFile, envGNMIKeyFile, ""),
			ServerName:     r.str(m.ServerName, envGNMIServerName, ""),
			CertificatePin: r.str(m.CertificatePin, envGNMICertPin, ""),
			Insecure:       r.boolean(m.Insecure, root.AtName("insecure"), envGNMIInsecure, false),
			SetTimeout:     r.duration(m.SetTimeout, root.AtName("set_timeout"), envGNMISetTimeout, gnmi.DefaultSetTimeout),
			Retries:        r.integer(m.Retries, root.AtName("retries"), envGNMIRetries, gnmi.DefaultRetries, 0, 10),
		},
		Port: r.port(m.Port, root.AtName("port"), envGNMIPort, 0),
	}
}

// checkGNMI refuses, once when the provider is configured, what the gNMI transport would
// refuse on every switch ([gnmi.Config.Check], each problem put on the attribute to fix),
// and warns about plaintext. The address is each resource's own and is checked when it
// connects; a check that reads a value not known yet is left to the apply.
func checkGNMI(r *resolver, m *gnmiModel, cfg gnmi.Config) {
	if m == nil {
		m = &gnmiModel{}
	}
	placement[gnmi.Rule]{
		attrs: func(int) attributes { return gnmiFields(m) },
		leave: func(e *gnmi.ConfigError) bool { return e.Rule == gnmi.RuleAddress },
		word:  gnmiProblem,
	}.place(r, cfg.Check())
	if cfg.Insecure {
		r.diags.AddAttributeWarning(path.Root("gnmi").AtName("insecure"), "gNMI Without TLS",
			"gnmi.insecure is true: switch configuration and any gNMI password travel in clear. Use TLS with ca_file outside test rigs.")
	}
}

// gnmiFields returns the attribute of the provider's gnmi block behind each field of
// gnmi.Config, by its Go name.
func gnmiFields(m *gnmiModel) attributes {
	root := path.Root("gnmi")
	fields := gnmiLoginFields(&m.gnmiLoginModel)
	fields["SetTimeout"] = setting{root.AtName("set_timeout"), envGNMISetTimeout, m.SetTimeout}
	fields["Retries"] = setting{root.AtName("retries"), envGNMIRetries, m.Retries}
	return attributes{root, fields}
}

// gnmiLoginFields returns the attributes of a gnmi block, the provider's or a resource's,
// behind the login fields of gnmi.Config. Each carries the environment variable of the
// provider's attribute: its fallback in the provider's block, the fallback of the setting a
// resource's attribute overrides.
func gnmiLoginFields(m *gnmiLoginModel) map[string]setting {
	root := path.Root("gnmi")
	return map[string]setting{
		"Username":       {root.AtName("username"), envGNMIUsername, m.Username},
		"Password":       {root.AtName("password"), envGNMIPassword, m.Password},
		"CAFile":         {root.AtName("ca_file"), envGNMICAFile, m.CAFile},
		"CertFile":       {root.AtName("cert_file"), envGNMICertFile, m.CertFile},
		"KeyFile":        {root.AtName("key_file"), envGNMIKeyFile, m.KeyFile},
		"ServerName":     {root.AtName("server_name"), envGNMIServerName, m.ServerName},
		"Insecure":       {root.AtName("insecure"), envGNMIInsecure, m.Insecure},
		"CertificatePin": {root.AtName("certificate_pin"), envGNMICertPin, m.CertificatePin},
	}
}
