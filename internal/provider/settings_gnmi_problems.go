package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
)

// gnmiProblem words a failed check of the provider's gnmi block for the attribute to fix:
// where the value came from, what is wrong with it and how to fix it.
func gnmiProblem(e *gnmi.ConfigError, f func(field string) setting) (at path.Path, summary, detail string) {
	field := f(e.Field)
	at = field.path
	switch e.Rule {
	case gnmi.RuleCredentials:
		other := f(e.Fields[1])
		return at, "Incomplete gNMI Credentials",
			fmt.Sprintf("%s%s is set, %s is not: gNMI password authentication needs both gnmi.username and gnmi.password (or %s and %s). Set %s, or remove %s.",
				field.name(), field.from(), other.name(), envGNMIUsername, envGNMIPassword, other.name(), field.name())
	case gnmi.RuleClientCertificate:
		other := f(e.Fields[1])
		return at, "Incomplete gNMI Client Certificate",
			fmt.Sprintf("mTLS needs both gnmi.cert_file and gnmi.key_file (or %s and %s); only %s%s is set. Set %s too, or remove %s.",
				envGNMICertFile, envGNMIKeyFile, field.name(), field.from(), other.name(), field.name())
	case gnmi.RuleInsecureTLS:
		var tls []string
		for _, name := range e.Fields[1:] {
			tls = append(tls, f(name).name()+f(name).from())
		}
		return at, "Conflicting gNMI TLS Settings",
			fmt.Sprintf("gnmi.insecure = true%s turns TLS off, yet %s is set. Remove insecure to use TLS, or remove the TLS settings.",
				field.from(), strings.Join(tls, ", "))
	case gnmi.RulePin:
		return at, "Invalid Certificate Pin",
			fmt.Sprintf("%s%s: %v. Give the SHA-256 of the switch's public key as sha256//<base64> (the attribute's description shows the openssl command).", field.name(), field.from(), e.Err)
	default:
		// Checks the attributes' own validation already covers (durations, retries).
		return at, "Invalid gNMI Settings",
			fmt.Sprintf("%s%s is refused by the gNMI transport: %v. Change %s.", field.name(), field.from(), e, field.name())
	}
}

// switchGNMIProblem words a failed check of a switch's gNMI configuration, the resource's
// gnmi block over the provider's, for the resource's attribute to fix; own names the
// resource's attributes. It reports false for a problem that the resource's block takes no
// part in: the provider's block alone is refused when the provider is configured, and the
// address when the resource connects.
func switchGNMIProblem(e *gnmi.ConfigError, own map[string]setting) (at path.Path, summary, detail string, ok bool) {
	sets := func(field string) bool { return isSet(own[field].v) }
	switch e.Rule {
	case gnmi.RulePin:
		if !sets("CertificatePin") {
			return at, "", "", false
		}
		return own["CertificatePin"].path, "Invalid Certificate Pin",
			fmt.Sprintf("gnmi.certificate_pin: %v. Give the SHA-256 of this switch's public key as sha256//<base64>.", e.Err), true
	case gnmi.RuleCredentials, gnmi.RuleClientCertificate:
		if !sets(e.Field) {
			return at, "", "", false
		}
		a, b := own[e.Field], own[e.Fields[1]]
		pair := "username and password"
		if e.Rule == gnmi.RuleClientCertificate {
			pair = "cert_file and key_file"
		}
		return a.path, "Incomplete gNMI Settings",
			fmt.Sprintf("%s is set for this switch but there is no %s: set %s here, or in the provider's gnmi block (or %s). %s must be set together.",
				a.name(), strings.TrimPrefix(b.name(), "gnmi."), b.name(), b.env, pair), true
	case gnmi.RuleInsecureTLS:
		var first string // the first TLS attribute the resource sets
		var mine, theirs []string
		for _, name := range e.Fields[1:] {
			if sets(name) {
				if first == "" {
					first = name
				}
				mine = append(mine, own[name].name())
			} else {
				theirs = append(theirs, "the provider's "+own[name].name())
			}
		}
		switch {
		case sets("Insecure") && len(mine) > 0:
			return own["Insecure"].path, "Conflicting gNMI TLS Settings",
				fmt.Sprintf("gnmi.insecure = true turns TLS off for this switch, yet %s is set: insecure (plaintext) excludes ca_file, cert_file, key_file, server_name and certificate_pin. Remove insecure to use TLS, or remove the TLS settings.",
					strings.Join(append(mine, theirs...), ", ")), true
		case sets("Insecure"):
			return own["Insecure"].path, "Conflicting gNMI TLS Settings",
				fmt.Sprintf("gnmi.insecure = true turns TLS off for this switch, yet %s is set: insecure (plaintext) excludes ca_file, cert_file, key_file, server_name and certificate_pin, and a switch cannot unset what the provider sets. Remove insecure to use TLS, or move the TLS settings from the provider's gnmi block to the switches that use TLS.",
					strings.Join(theirs, ", ")), true
		case len(mine) > 0:
			return own[first].path, "Conflicting gNMI TLS Settings",
				fmt.Sprintf("This switch sets %s, but the provider's gnmi.insecure = true turns TLS off: set gnmi.insecure = false for this switch to use TLS, or remove %s.",
					strings.Join(mine, ", "), strings.Join(mine, ", ")), true
		}
	}
	return at, "", "", false
}
