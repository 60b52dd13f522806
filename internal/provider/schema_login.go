package provider

import (
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// loginAttr is one attribute of a switch login (gnmiLoginModel, nvueLoginModel), which the
// provider's gnmi or nvue block holds for every switch and a roce_switch_qos resource's block
// for its own switch. Both blocks' schemas are built from these, so the two descriptions of an
// attribute cannot drift apart: text words it for the provider's block (provider true) or
// the resource's.
type loginAttr struct {
	name            string
	boolean, secret bool
	text            func(provider bool) string
	// env and def are the provider block's ROCE_* fallback and default; a resource's unset
	// attribute is the provider's.
	env, def string
}

// either is all in the provider's block, which applies to every switch, and one in a
// resource's, which applies to its switch.
func either(provider bool, all, one string) string {
	if provider {
		return all
	}
	return one
}

func fixedText(s string) func(bool) string { return func(bool) string { return s } }

// certsText names the certificates a block's CA bundle verifies.
func certsText(p bool) string {
	return either(p, "the switches' certificates", "this switch's certificate")
}

// serverNameText is server_name's text, the same for gNMI and NVUE.
func serverNameText(p bool) string {
	return "Name expected in " + either(p, "the switch certificate", "this switch's certificate") + ", when it differs from the address."
}

func pinText(p bool) string {
	return "Trust " + either(p, "a switch's certificate", "this switch's certificate") + " by its key: `sha256//<base64>`, the SHA-256 of its " +
		"SubjectPublicKeyInfo as curl's `--pinnedpubkey` takes it (`openssl s_client -connect ADDRESS </dev/null | openssl x509 -pubkey -noout | " +
		"openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`). With `ca_file` the chain must verify too; without, the pin alone " +
		"is the trust (for a self-signed certificate), and the system roots are not consulted."
}

// gnmiLoginAttrs are gnmiLoginModel's attributes, in its order.
var gnmiLoginAttrs = []loginAttr{
	{name: "username", text: fixedText("Username sent as gRPC metadata."), env: envGNMIUsername},
	{name: "password", secret: true, text: fixedText("Password sent as gRPC metadata."), env: envGNMIPassword},
	{name: "ca_file", text: func(p bool) string { return "PEM bundle of the CAs that sign " + certsText(p) + "." },
		env: envGNMICAFile, def: "the system roots"},
	{name: "cert_file", text: fixedText("Client certificate for mTLS (SONiC role `gnmi_config_db_readwrite`). Requires `key_file`."),
		env: envGNMICertFile},
	{name: "key_file", text: fixedText("Private key of `cert_file`."), env: envGNMIKeyFile},
	{name: "server_name", text: serverNameText, env: envGNMIServerName, def: "the address host"},
	{name: "insecure", boolean: true, text: func(p bool) string {
		return "Plaintext gRPC without TLS" + either(p, "", " to this switch") + ". Credentials then travel in clear" +
			either(p, "; every plan warns while it is set.", ".")
	}, env: envGNMIInsecure, def: "`false`"},
	{name: "certificate_pin", text: pinText, env: envGNMICertPin},
}

// nvueLoginAttrs are nvueLoginModel's attributes, in its order.
var nvueLoginAttrs = []loginAttr{
	{name: "username", text: func(p bool) string {
		return "User on " + either(p, "the switches", "this switch") + " (group `nvapply` may change the configuration)."
	}, env: envNVUEUsername},
	{name: "password", secret: true,
		text: fixedText("Password of `username`. From Cumulus 5.6 the default `cumulus` password must have been changed, or the API answers 403."),
		env:  envNVUEPassword},
	{name: "ca_file", text: func(p bool) string {
		return "PEM bundle of the CAs that sign " + certsText(p) +
			" (Cumulus makes a self-signed one at first boot: import your own with `nv action import system security certificate`)."
	}, env: envNVUECAFile, def: "the system roots"},
	{name: "server_name", text: serverNameText, env: envNVUEServerName, def: "the address host"},
	{name: "insecure", boolean: true, text: func(p bool) string {
		return "Skip certificate verification" + either(p, ". Every plan warns while it is set.", " for this switch.")
	}, env: envNVUEInsecure, def: "`false`"},
	{name: "certificate_pin", text: pinText, env: envNVUECertPin},
	{name: "assume_yes", boolean: true, text: assumeYesText, env: envNVUEAssumeYes, def: "`false`"},
}

// assumeYesText is assume_yes's text: what answering NVUE's apply prompt overrides.
func assumeYesText(p bool) string {
	return "Answer yes to the \"are you sure\" prompts NVUE raises when it applies a change" + either(p, "", " to this switch") +
		" (`auto-prompt` `ays_yes`, as `nv config apply --assume-yes`). NVUE prompts when a file it manages was edited by hand " +
		"outside NVUE (for QoS `/etc/cumulus/datapath/qos/qos_features.conf`, `/etc/mlx/datapath/qos/qos_infra.conf`, " +
		"`/etc/cumulus/switchd.d/qos.conf`); answering yes overwrites that edit. Left `false`, the provider answers no: " +
		"such an apply fails with NVUE's prompt, nothing is applied, and its revision is dropped."
}

// providerLoginAttrs is the provider block's schema of attrs, with their fallbacks and defaults.
func providerLoginAttrs(attrs []loginAttr) map[string]pschema.Attribute {
	m := make(map[string]pschema.Attribute, len(attrs))
	for _, a := range attrs {
		desc := describe(a.text(true), a.env, a.def)
		if a.boolean {
			m[a.name] = pschema.BoolAttribute{Optional: true, MarkdownDescription: desc}
		} else {
			m[a.name] = pschema.StringAttribute{Optional: true, Sensitive: a.secret, MarkdownDescription: desc}
		}
	}
	return m
}

// resourceLoginAttrs is a roce_switch_qos block's schema of attrs.
func resourceLoginAttrs(attrs []loginAttr) map[string]rschema.Attribute {
	m := make(map[string]rschema.Attribute, len(attrs))
	for _, a := range attrs {
		desc := a.text(false)
		if a.boolean {
			m[a.name] = rschema.BoolAttribute{Optional: true, MarkdownDescription: desc}
		} else {
			m[a.name] = rschema.StringAttribute{Optional: true, Sensitive: a.secret, MarkdownDescription: desc}
		}
	}
	return m
}
