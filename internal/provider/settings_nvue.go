package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

// resolveNVUE turns the nvue block into every Cumulus switch's NVUE configuration but its
// address: each attribute, else its environment variable, else the transport's default. A
// value not known yet resolves as if unset (checkNVUE leaves the checks that read it alone).
func resolveNVUE(r *resolver, m *nvueModel) nvueSettings {
	if m == nil {
		m = &nvueModel{}
	}
	root := path.Root("nvue")
	return nvueSettings{
		Config: nvue.Config{
			Username:       r.str(m.Username, envNVUEUsername, ""),
			Password:       r.str(m.Password, envNVUEPassword, ""),
			CAFile:         r.str(m.CAFile, envNVUECAFile, ""),
			ServerName:     r.str(m.ServerName, envNVUEServerName, ""),
			CertificatePin: r.str(m.CertificatePin, envNVUECertPin, ""),
			Insecure:       r.boolean(m.Insecure, root.AtName("insecure"), envNVUEInsecure, false),
			ApplyTimeout:   r.duration(m.ApplyTimeout, root.AtName("apply_timeout"), envNVUEApplyTimeout, nvue.DefaultApplyTimeout),
			AssumeYes:      r.boolean(m.AssumeYes, root.AtName("assume_yes"), envNVUEAssumeYes, false),
		},
		Port: r.port(m.Port, root.AtName("port"), envNVUEPort, nvue.DefaultPort),
	}
}

// checkNVUE refuses, once when the provider is configured, what the NVUE transport would
// refuse on every Cumulus switch ([nvue.Config.Check], each problem on the attribute to fix),
// and warns about unverified certificates. The address is each resource's own, and a login
// the provider leaves out entirely may come from each resource's nvue block: both are
// checked when a resource connects. A check that reads a value not known yet is left to the
// apply.
func checkNVUE(r *resolver, m *nvueModel, cfg nvue.Config) {
	if m == nil {
		m = &nvueModel{}
	}
	placement[nvue.Rule]{
		attrs: func(int) attributes { return attributes{path.Root("nvue"), nvueLoginFields(&m.nvueLoginModel)} },
		leave: func(e *nvue.ConfigError) bool { return e.Rule == nvue.RuleAddress || e.Field == "" },
		word:  nvueProblem,
	}.place(r, cfg.Check())
	if cfg.Insecure {
		r.diags.AddAttributeWarning(path.Root("nvue").AtName("insecure"), "NVUE Certificates Are Not Verified",
			"nvue.insecure is true: any server on the switch's address gets the NVUE password. Give the switches' CA in nvue.ca_file outside test rigs.")
	}
}

// nvueLoginFields returns the attributes of an nvue block, the provider's or a resource's,
// behind the login fields of nvue.Config, with the environment variable of the provider's
// attribute.
func nvueLoginFields(m *nvueLoginModel) map[string]setting {
	root := path.Root("nvue")
	return map[string]setting{
		"Username":       {root.AtName("username"), envNVUEUsername, m.Username},
		"Password":       {root.AtName("password"), envNVUEPassword, m.Password},
		"CAFile":         {root.AtName("ca_file"), envNVUECAFile, m.CAFile},
		"ServerName":     {root.AtName("server_name"), envNVUEServerName, m.ServerName},
		"Insecure":       {root.AtName("insecure"), envNVUEInsecure, m.Insecure},
		"CertificatePin": {root.AtName("certificate_pin"), envNVUECertPin, m.CertificatePin},
	}
}

// nvueProblem words a failed check of the provider's nvue block for the attribute to fix.
func nvueProblem(e *nvue.ConfigError, f func(field string) setting) (at path.Path, summary, detail string) {
	field := f(e.Field)
	switch e.Rule {
	case nvue.RuleLogin:
		return field.path, "Incomplete NVUE Login",
			fmt.Sprintf("NVUE basic authentication needs both nvue.username and nvue.password (or %s and %s); only %s%s is set. Set %s too, or remove %s.",
				envNVUEUsername, envNVUEPassword, field.name(), field.from(), f(e.Fields[1]).name(), field.name())
	case nvue.RuleInsecureCA:
		with := f(e.Fields[1])
		return field.path, "Conflicting NVUE TLS Settings",
			fmt.Sprintf("nvue.insecure = true%s skips certificate verification, yet %s%s is set. Remove insecure to verify the certificate with %s.",
				field.from(), with.name(), with.from(), strings.TrimPrefix(with.name(), "nvue."))
	case nvue.RulePin:
		return field.path, "Invalid Certificate Pin",
			fmt.Sprintf("%s%s: %v. Give the SHA-256 of the switch's public key as sha256//<base64> (the attribute's description shows the openssl command).", field.name(), field.from(), e.Err)
	default:
		return path.Root("nvue"), "Invalid NVUE Settings", fmt.Sprintf("The nvue block is refused by the NVUE transport: %v.", e)
	}
}

// switchNVUEProblem words a failed check of a Cumulus switch's NVUE configuration, the
// resource's nvue block over the provider's, for the resource's attribute to fix; own names
// the resource's attributes. It reports false for a problem the resource's block takes no
// part in (the provider's block alone, the address, a login set nowhere: those are refused
// when the provider is configured or the resource connects).
func switchNVUEProblem(e *nvue.ConfigError, own map[string]setting) (at path.Path, summary, detail string, ok bool) {
	sets := func(field string) bool { return e.Field != "" && isSet(own[field].v) }
	switch {
	case e.Rule == nvue.RuleLogin && sets(e.Field):
		a, b := own[e.Field], own[e.Fields[1]]
		return a.path, "Incomplete NVUE Login",
			fmt.Sprintf("%s is set for this switch but there is no %s: set %s here, or in the provider's nvue block (or %s). NVUE basic authentication needs both.",
				a.name(), b.name(), b.name(), b.env), true
	case e.Rule == nvue.RuleInsecureCA && sets("Insecure"):
		with := own[e.Fields[1]]
		name := "the provider's " + with.name()
		if isSet(with.v) {
			name = with.name()
		}
		return own["Insecure"].path, "Conflicting NVUE TLS Settings",
			fmt.Sprintf("nvue.insecure = true skips certificate verification for this switch, yet %s is set. Remove insecure to verify the certificate with %s.", name, strings.TrimPrefix(with.name(), "nvue.")), true
	case e.Rule == nvue.RuleInsecureCA && isSet(own[e.Fields[1]].v):
		with := own[e.Fields[1]]
		return with.path, "Conflicting NVUE TLS Settings",
			fmt.Sprintf("This switch sets %s, but the provider's nvue.insecure = true skips certificate verification: set nvue.insecure = false for this switch to verify with %s, or remove it.", with.name(), strings.TrimPrefix(with.name(), "nvue.")), true
	case e.Rule == nvue.RulePin && sets("CertificatePin"):
		return own["CertificatePin"].path, "Invalid Certificate Pin",
			fmt.Sprintf("nvue.certificate_pin: %v. Give the SHA-256 of this switch's public key as sha256//<base64>.", e.Err), true
	}
	return at, "", "", false
}
