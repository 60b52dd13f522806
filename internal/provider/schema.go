package provider

import (
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// providerModel mirrors providerSchema.
type providerModel struct {
	SSH  *sshModel  `tfsdk:"ssh"`
	GNMI *gnmiModel `tfsdk:"gnmi"`
	NVUE *nvueModel `tfsdk:"nvue"`
}

// nvueLoginModel is how to log in to a Cumulus switch's NVUE API and verify its certificate:
// the provider's nvue block holds it for every switch, a roce_switch_qos resource's nvue block
// for its own switch, attribute by attribute over the provider's.
type nvueLoginModel struct {
	Username   types.String `tfsdk:"username"`
	Password   types.String `tfsdk:"password"`
	CAFile     types.String `tfsdk:"ca_file"`
	ServerName types.String `tfsdk:"server_name"`
	Insecure   types.Bool   `tfsdk:"insecure"`
	// CertificatePin is the switch's key pin (tlspin): "sha256//<base64>".
	CertificatePin types.String `tfsdk:"certificate_pin"`
	// AssumeYes answers NVUE's apply prompts yes (nvue.Config.AssumeYes).
	AssumeYes types.Bool `tfsdk:"assume_yes"`
}

// nvueModel is the provider's nvue block: every switch's login, and what only the provider
// sets.
type nvueModel struct {
	nvueLoginModel
	Port         types.Int64  `tfsdk:"port"`
	ApplyTimeout types.String `tfsdk:"apply_timeout"`
}

type sshModel struct {
	User                  types.String  `tfsdk:"user"`
	PrivateKey            types.String  `tfsdk:"private_key"`
	PrivateKeyFile        types.String  `tfsdk:"private_key_file"`
	PrivateKeyPassphrase  types.String  `tfsdk:"private_key_passphrase"`
	CertificateFile       types.String  `tfsdk:"certificate_file"`
	Password              types.String  `tfsdk:"password"`
	UseAgent              types.Bool    `tfsdk:"use_agent"`
	KnownHostsFile        types.String  `tfsdk:"known_hosts_file"`
	HostKey               types.String  `tfsdk:"host_key"`
	InsecureIgnoreHostKey types.Bool    `tfsdk:"insecure_ignore_host_key"`
	Port                  types.Int64   `tfsdk:"port"`
	ConnectTimeout        types.String  `tfsdk:"connect_timeout"`
	KeepAliveInterval     types.String  `tfsdk:"keepalive_interval"`
	MaxSessions           types.Int64   `tfsdk:"max_sessions"`
	Bastion               *bastionModel `tfsdk:"bastion"`
	Become                *becomeModel  `tfsdk:"become"`
}

type bastionModel struct {
	Host           types.String `tfsdk:"host"`
	Port           types.Int64  `tfsdk:"port"`
	User           types.String `tfsdk:"user"`
	PrivateKey     types.String `tfsdk:"private_key"`
	PrivateKeyFile types.String `tfsdk:"private_key_file"`
	HostKey        types.String `tfsdk:"host_key"`
}

type becomeModel struct {
	Enabled  types.Bool   `tfsdk:"enabled"`
	User     types.String `tfsdk:"user"`
	Password types.String `tfsdk:"password"`
}

// gnmiLoginModel is how to log in to a SONiC switch's gNMI server and secure the connection:
// the provider's gnmi block holds it for every switch, a roce_switch_qos resource's gnmi block
// for its own switch, attribute by attribute over the provider's.
type gnmiLoginModel struct {
	Username   types.String `tfsdk:"username"`
	Password   types.String `tfsdk:"password"`
	CAFile     types.String `tfsdk:"ca_file"`
	CertFile   types.String `tfsdk:"cert_file"`
	KeyFile    types.String `tfsdk:"key_file"`
	ServerName types.String `tfsdk:"server_name"`
	Insecure   types.Bool   `tfsdk:"insecure"`
	// CertificatePin is the switch's key pin (tlspin): "sha256//<base64>".
	CertificatePin types.String `tfsdk:"certificate_pin"`
}

// gnmiModel is the provider's gnmi block: every switch's login, and what only the provider
// sets.
type gnmiModel struct {
	gnmiLoginModel
	Port       types.Int64  `tfsdk:"port"`
	SetTimeout types.String `tfsdk:"set_timeout"`
	Retries    types.Int64  `tfsdk:"retries"`
}

// describe appends the environment fallback and the default to an attribute's text, so the
// generated documentation states both in the same words everywhere.
func describe(text, env, def string) string {
	if env != "" {
		text += fmt.Sprintf(" Falls back to the `%s` environment variable.", env)
	}
	if def != "" {
		text += " Default: " + def + "."
	}
	return text
}

func providerSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "The `roce` provider programs NVIDIA Spectrum-4 switches (" + driverNames() + ") " +
			"and bootstraps ConnectX-7/8 GPU hosts over SSH so that GPUDirect RDMA over RoCEv2 is lossless and " +
			"consistent end to end. One provider configuration carries the credentials for a whole cluster; each " +
			"resource names its own target (switch or host address), and connections are pooled per target.",
		Attributes: map[string]schema.Attribute{
			"ssh":  sshSchema(),
			"gnmi": gnmiSchema(),
			"nvue": nvueSchema(),
		},
	}
}

func sshSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional:            true,
		MarkdownDescription: "SSH settings for the GPU hosts. Host keys are verified by default.",
		Attributes: map[string]schema.Attribute{
			"user": schema.StringAttribute{Optional: true,
				MarkdownDescription: describe("Login user on the hosts.", envSSHUser, "`root`")},
			"private_key": schema.StringAttribute{Optional: true, Sensitive: true,
				MarkdownDescription: describe("Private key in PEM or OpenSSH format, inline. Conflicts with `private_key_file`.", envSSHPrivateKey, "")},
			"private_key_file": schema.StringAttribute{Optional: true,
				MarkdownDescription: describe("Path to the private key. Conflicts with `private_key`.", envSSHPrivateKeyFile, "")},
			"private_key_passphrase": schema.StringAttribute{Optional: true, Sensitive: true,
				MarkdownDescription: describe("Passphrase of an encrypted private key.", envSSHPrivateKeyPassphrase, "")},
			"certificate_file": schema.StringAttribute{Optional: true,
				MarkdownDescription: describe("Path to an OpenSSH user certificate signed for the private key (`id_*-cert.pub`).", envSSHCertificateFile, "")},
			"password": schema.StringAttribute{Optional: true, Sensitive: true,
				MarkdownDescription: describe("Password authentication, tried after keys and the agent.", envSSHPassword, "")},
			"use_agent": schema.BoolAttribute{Optional: true,
				MarkdownDescription: describe("Offer the keys of the SSH agent at `SSH_AUTH_SOCK`.", envSSHUseAgent, "`true` when `SSH_AUTH_SOCK` is set")},
			"known_hosts_file": schema.StringAttribute{Optional: true,
				MarkdownDescription: describe("known_hosts file used to verify host keys (hashed entries and `@cert-authority` lines are understood).", envSSHKnownHostsFile, "`~/.ssh/known_hosts`")},
			"host_key": schema.StringAttribute{Optional: true,
				MarkdownDescription: describe("A pinned host public key in authorized_keys format (`ssh-ed25519 AAAA...`) that every host must present, instead of `known_hosts_file`.", envSSHHostKey, "")},
			"insecure_ignore_host_key": schema.BoolAttribute{Optional: true,
				MarkdownDescription: describe("Skip host key verification. Exposes the credentials to any machine that answers on the address; every plan warns while it is set.", envSSHInsecure, "`false`")},
			"port": schema.Int64Attribute{Optional: true,
				MarkdownDescription: describe("Port used when a resource's `host` has none.", envSSHPort, "`22`")},
			"connect_timeout": schema.StringAttribute{Optional: true,
				MarkdownDescription: describe("Time allowed to open a connection, as a Go duration (`30s`, `2m`).", envSSHConnectTimeout, "`30s`")},
			"keepalive_interval": schema.StringAttribute{Optional: true,
				MarkdownDescription: describe("How often to check that a host's connection is alive, as a Go duration. A connection that misses two "+
					"replies is dropped and the command on it fails naming the host, so a host cut off mid-apply is noticed within three intervals; "+
					"shorten it where a firewall or NAT drops idle flows sooner.", envSSHKeepAliveInterval, "`30s`")},
			"max_sessions": schema.Int64Attribute{Optional: true,
				MarkdownDescription: describe("Most concurrent sessions on one host's pooled connection. Keep it at or under sshd's `MaxSessions` (10 by default).", envSSHMaxSessions, "`8`")},
			"bastion": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: "Jump host every connection goes through. Its credentials and host key are its own; unset ones fall back to the host settings above.",
				Attributes: map[string]schema.Attribute{
					"host": schema.StringAttribute{Optional: true,
						MarkdownDescription: describe("Bastion address, `host` or `host:port`.", envSSHBastionHost, "")},
					"port": schema.Int64Attribute{Optional: true,
						MarkdownDescription: describe("Bastion port when `host` has none.", envSSHBastionPort, "`22`")},
					"user": schema.StringAttribute{Optional: true,
						MarkdownDescription: describe("Login user on the bastion.", envSSHBastionUser, "the host `user`")},
					"private_key": schema.StringAttribute{Optional: true, Sensitive: true,
						MarkdownDescription: describe("Inline private key for the bastion. The bastion is offered only its own key and, with `use_agent`, the agent's, never the hosts' key or password.", envSSHBastionPrivateKey, "")},
					"private_key_file": schema.StringAttribute{Optional: true,
						MarkdownDescription: describe("Path to the bastion's private key; this, `private_key` or the agent is required.", envSSHBastionPrivateKeyFile, "")},
					"host_key": schema.StringAttribute{Optional: true,
						MarkdownDescription: describe("Pinned public key of the bastion.", envSSHBastionHostKey, "verified through `known_hosts_file`")},
				},
			},
			"become": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: "Privilege escalation with sudo for commands that need root. A password is written to sudo's standard input, never onto a command line.",
				Attributes: map[string]schema.Attribute{
					"enabled": schema.BoolAttribute{Optional: true,
						MarkdownDescription: describe("Run privileged commands through sudo.", envSSHBecome, "`true` when `user` is not `root`")},
					"user": schema.StringAttribute{Optional: true,
						MarkdownDescription: describe("User to become.", envSSHBecomeUser, "`root`")},
					"password": schema.StringAttribute{Optional: true, Sensitive: true,
						MarkdownDescription: describe("sudo password, when sudo asks for one.", envSSHBecomePassword, "")},
				},
			},
		},
	}
}

func nvueSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "NVUE REST API settings for Cumulus Linux switches (`roce_switch_qos` with `os = \"cumulus\"`): HTTPS with basic " +
			"authentication, the certificate verified unless `insecure` is set.",
		Attributes: withAttrs(providerLoginAttrs(nvueLoginAttrs), map[string]schema.Attribute{
			"port": schema.Int64Attribute{Optional: true,
				MarkdownDescription: describe("Port used when a resource's `address` has none.", envNVUEPort, "`8765`")},
			"apply_timeout": schema.StringAttribute{Optional: true,
				MarkdownDescription: describe("Time allowed for a revision to be applied (QoS changes restart switchd).", envNVUEApplyTimeout, "`5m`")},
		}),
	}
}

func gnmiSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "gNMI settings for the switches (SONiC's gnmi service). TLS is required unless `insecure` " +
			"is set; authenticate with a client certificate (mTLS) or with a username and password.",
		Attributes: withAttrs(providerLoginAttrs(gnmiLoginAttrs), map[string]schema.Attribute{
			"port": schema.Int64Attribute{Optional: true,
				MarkdownDescription: describe("Port used when a resource's `address` has none. SONiC images differ (8080 or 50051), so there is no default: set it here or in each address.", envGNMIPort, "")},
			"set_timeout": schema.StringAttribute{Optional: true,
				MarkdownDescription: describe("Time allowed for one SetRequest. SONiC validates and saves each Set, which can take tens of seconds.", envGNMISetTimeout, "`10m`")},
			"retries": schema.Int64Attribute{Optional: true,
				MarkdownDescription: describe("Retries of an RPC that failed with Unavailable, ResourceExhausted, DeadlineExceeded or Aborted.", envGNMIRetries, "`3`")},
		}),
	}
}

// withAttrs adds more to attrs, the attributes only the provider's block has.
func withAttrs(attrs, more map[string]schema.Attribute) map[string]schema.Attribute {
	maps.Copy(attrs, more)
	return attrs
}
