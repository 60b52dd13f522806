package provider

import (
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

// settings is the provider configuration after environment fallbacks and defaults, in plain
// Go types, ready to be handed to the transports.
type settings struct {
	SSH  sshSettings
	GNMI gnmiSettings
	NVUE nvueSettings
}

type nvueSettings struct {
	Username     string
	Password     string
	CAFile       string
	ServerName   string
	Insecure     bool
	Port         int
	ApplyTimeout time.Duration
}

type sshSettings struct {
	User                  string
	PrivateKey            string
	PrivateKeyFile        string
	PrivateKeyPassphrase  string
	CertificateFile       string
	Password              string
	UseAgent              bool
	KnownHostsFile        string
	HostKey               string
	InsecureIgnoreHostKey bool
	Port                  int
	ConnectTimeout        time.Duration
	KeepAlive             time.Duration
	MaxSessions           int
	Bastion               *bastionSettings
	Become                becomeSettings
}

type bastionSettings struct {
	Host           string
	Port           int
	User           string
	PrivateKey     string
	PrivateKeyFile string
	HostKey        string
}

type becomeSettings struct {
	Enabled  bool
	User     string
	Password string
}

type gnmiSettings struct {
	Username   string
	Password   string
	CAFile     string
	CertFile   string
	KeyFile    string
	ServerName string
	Insecure   bool
	Port       int // 0: every address must carry its own port
	SetTimeout time.Duration
	Retries    int
}

const (
	defaultSSHUser        = "root"
	defaultSSHPort        = 22
	defaultConnectTimeout = 30 * time.Second
	defaultKeepAlive      = 30 * time.Second
	defaultMaxSessions    = 8
	sshdMaxSessions       = 10
	defaultSetTimeout     = 10 * time.Minute
	defaultGNMIRetries    = 3
)

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
	checkSSH(r, s.SSH)
	if sshInUse(m.SSH, getenv) {
		checkSSHCredentials(r, m.SSH, s.SSH)
	}
	checkGNMI(r, s.GNMI)
	return s, r.diags
}

func resolveSSH(r *resolver, m *sshModel) sshSettings {
	if m == nil {
		m = &sshModel{}
	}
	root := path.Root("ssh")
	s := sshSettings{
		User:                  r.str(m.User, envSSHUser, defaultSSHUser),
		PrivateKey:            r.str(m.PrivateKey, envSSHPrivateKey, ""),
		PrivateKeyFile:        r.str(m.PrivateKeyFile, envSSHPrivateKeyFile, ""),
		PrivateKeyPassphrase:  r.str(m.PrivateKeyPassphrase, envSSHPrivateKeyPassphrase, ""),
		CertificateFile:       r.str(m.CertificateFile, envSSHCertificateFile, ""),
		Password:              r.str(m.Password, envSSHPassword, ""),
		UseAgent:              r.boolean(m.UseAgent, root.AtName("use_agent"), envSSHUseAgent, r.getenv(envAgentSocket) != ""),
		KnownHostsFile:        r.str(m.KnownHostsFile, envSSHKnownHostsFile, ""),
		HostKey:               r.str(m.HostKey, envSSHHostKey, ""),
		InsecureIgnoreHostKey: r.boolean(m.InsecureIgnoreHostKey, root.AtName("insecure_ignore_host_key"), envSSHInsecure, false),
		Port:                  r.port(m.Port, root.AtName("port"), envSSHPort, defaultSSHPort),
		ConnectTimeout:        r.duration(m.ConnectTimeout, root.AtName("connect_timeout"), envSSHConnectTimeout, defaultConnectTimeout),
		KeepAlive:             r.duration(m.KeepAliveInterval, root.AtName("keepalive_interval"), envSSHKeepAliveInterval, defaultKeepAlive),
		MaxSessions:           r.integer(m.MaxSessions, root.AtName("max_sessions"), envSSHMaxSessions, defaultMaxSessions, 1, 64),
		Bastion:               resolveBastion(r, m.Bastion),
	}
	s.Become = resolveBecome(r, m.Become, s.User)
	return s
}

func resolveBastion(r *resolver, m *bastionModel) *bastionSettings {
	if m == nil {
		m = &bastionModel{}
	}
	root := path.Root("ssh").AtName("bastion")
	host := r.str(m.Host, envSSHBastionHost, "")
	if host == "" {
		if m.Port.ValueInt64() != 0 || m.User.ValueString() != "" || m.PrivateKey.ValueString() != "" ||
			m.PrivateKeyFile.ValueString() != "" || m.HostKey.ValueString() != "" {
			r.attrError(root.AtName("host"), "Missing Bastion Host",
				"ssh.bastion sets credentials but no host. Set ssh.bastion.host (or "+envSSHBastionHost+") to the jump host's address, or remove the bastion block.")
		}
		return nil
	}
	return &bastionSettings{
		Host:           host,
		Port:           r.port(m.Port, root.AtName("port"), envSSHBastionPort, defaultSSHPort),
		User:           r.str(m.User, envSSHBastionUser, ""),
		PrivateKey:     r.str(m.PrivateKey, envSSHBastionPrivateKey, ""),
		PrivateKeyFile: r.str(m.PrivateKeyFile, envSSHBastionPrivateKeyFile, ""),
		HostKey:        r.str(m.HostKey, envSSHBastionHostKey, ""),
	}
}

func resolveBecome(r *resolver, m *becomeModel, loginUser string) becomeSettings {
	if m == nil {
		m = &becomeModel{}
	}
	root := path.Root("ssh").AtName("become")
	return becomeSettings{
		Enabled:  r.boolean(m.Enabled, root.AtName("enabled"), envSSHBecome, loginUser != "root"),
		User:     r.str(m.User, envSSHBecomeUser, "root"),
		Password: r.str(m.Password, envSSHBecomePassword, ""),
	}
}

func resolveNVUE(r *resolver, m *nvueModel) nvueSettings {
	if m == nil {
		m = &nvueModel{}
	}
	root := path.Root("nvue")
	s := nvueSettings{
		Username:     r.str(m.Username, envNVUEUsername, ""),
		Password:     r.str(m.Password, envNVUEPassword, ""),
		CAFile:       r.str(m.CAFile, envNVUECAFile, ""),
		ServerName:   r.str(m.ServerName, envNVUEServerName, ""),
		Insecure:     r.boolean(m.Insecure, root.AtName("insecure"), envNVUEInsecure, false),
		Port:         r.port(m.Port, root.AtName("port"), envNVUEPort, nvue.DefaultPort),
		ApplyTimeout: r.duration(m.ApplyTimeout, root.AtName("apply_timeout"), envNVUEApplyTimeout, nvue.DefaultApplyTimeout),
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
		Username:   r.str(m.Username, envGNMIUsername, ""),
		Password:   r.str(m.Password, envGNMIPassword, ""),
		CAFile:     r.str(m.CAFile, envGNMICAFile, ""),
		CertFile:   r.str(m.CertFile, envGNMICertFile, ""),
		KeyFile:    r.str(m.KeyFile, envGNMIKeyFile, ""),
		ServerName: r.str(m.ServerName, envGNMIServerName, ""),
		Insecure:   r.boolean(m.Insecure, root.AtName("insecure"), envGNMIInsecure, false),
		Port:       r.port(m.Port, root.AtName("port"), envGNMIPort, 0),
		SetTimeout: r.duration(m.SetTimeout, root.AtName("set_timeout"), envGNMISetTimeout, defaultSetTimeout),
		Retries:    r.integer(m.Retries, root.AtName("retries"), envGNMIRetries, defaultGNMIRetries, 0, 10),
	}
}

func checkSSH(r *resolver, s sshSettings) {
	root := path.Root("ssh")
	if s.PrivateKey != "" && s.PrivateKeyFile != "" {
		r.attrError(root.AtName("private_key"), "Conflicting SSH Keys",
			"Both ssh.private_key and ssh.private_key_file are set (in the configuration or through "+
				envSSHPrivateKey+"/"+envSSHPrivateKeyFile+"). Keep one of them.")
	}
	if s.CertificateFile != "" && s.PrivateKey == "" && s.PrivateKeyFile == "" && !s.UseAgent {
		r.attrError(root.AtName("certificate_file"), "SSH Certificate Without Key",
			"ssh.certificate_file is set but there is no private key to sign with. Set ssh.private_key_file "+
				"(or ssh.private_key) to the key the certificate was issued for, or enable ssh.use_agent.")
	}
	if s.HostKey != "" && s.InsecureIgnoreHostKey {
		r.attrError(root.AtName("insecure_ignore_host_key"), "Conflicting Host Key Settings",
			"ssh.host_key pins a host key while ssh.insecure_ignore_host_key turns verification off. Remove one of them.")
	}
	if s.HostKey != "" && s.KnownHostsFile != "" {
		r.attrError(root.AtName("host_key"), "Conflicting Host Key Settings",
			"ssh.host_key and ssh.known_hosts_file are both set. Pin one key for every host with host_key, or list the hosts in known_hosts_file, not both.")
	}
	if s.InsecureIgnoreHostKey {
		r.diags.AddAttributeWarning(root.AtName("insecure_ignore_host_key"), "SSH Host Keys Are Not Verified",
			"ssh.insecure_ignore_host_key is true: any machine answering on a host's address receives the SSH "+
				"credentials and the sudo password. Use known_hosts_file or host_key outside throwaway test rigs.")
	}
	if s.MaxSessions > sshdMaxSessions {
		r.diags.AddAttributeWarning(root.AtName("max_sessions"), "SSH Sessions Above sshd's Default",
			"ssh.max_sessions is above 10, OpenSSH's default MaxSessions; hosts that keep the default refuse the extra sessions. Lower it or raise MaxSessions in sshd_config.")
	}
	if s.Become.Password != "" && !s.Become.Enabled {
		r.attrError(root.AtName("become").AtName("password"), "sudo Password Without become",
			"ssh.become.password is set while ssh.become.enabled is false. Set enabled = true, or drop the password.")
	}
	if strings.ContainsAny(s.Become.Password, "\r\n") {
		r.attrError(root.AtName("become").AtName("password"), "Invalid sudo Password",
			"ssh.become.password (or "+envSSHBecomePassword+") contains a line break; sudo reads the password as one line. Remove the line break.")
	}
	if s.InsecureIgnoreHostKey && s.KnownHostsFile != "" {
		r.attrError(root.AtName("insecure_ignore_host_key"), "Conflicting Host Key Settings",
			"ssh.insecure_ignore_host_key turns host key verification off while ssh.known_hosts_file names the keys to verify against. Remove one of them.")
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
