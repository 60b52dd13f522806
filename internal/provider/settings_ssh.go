package provider

import (
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
)

// sshEnv are the environment variables that configure SSH.
var sshEnv = []string{
	envSSHUser, envSSHPrivateKey, envSSHPrivateKeyFile, envSSHPrivateKeyPassphrase, envSSHCertificateFile,
	envSSHPassword, envSSHUseAgent, envSSHKnownHostsFile, envSSHHostKey, envSSHInsecure, envSSHPort,
	envSSHConnectTimeout, envSSHKeepAliveInterval, envSSHMaxSessions, envSSHBastionHost, envSSHBastionPort, envSSHBastionUser,
	envSSHBastionPrivateKey, envSSHBastionPrivateKeyFile, envSSHBastionHostKey, envSSHBecome,
	envSSHBecomeUser, envSSHBecomePassword,
}

// sshInUse reports whether the provider block has an ssh block or a ROCE_SSH_* variable is
// set. Without either the provider may serve switches alone, and needs no SSH credentials.
func sshInUse(m *sshModel, getenv func(string) string) bool {
	return m != nil || slices.ContainsFunc(sshEnv, func(env string) bool { return getenv(env) != "" })
}

// resolveSSH turns the ssh block into the transport's configuration: each attribute, else its
// environment variable, else the transport's default. A value not known yet resolves as if
// unset (checkSSH leaves the checks that read it alone).
func resolveSSH(r *resolver, m *sshModel) ssh.Config {
	if m == nil {
		m = &sshModel{}
	}
	root := path.Root("ssh")
	cfg := ssh.Config{
		User:                  r.str(m.User, envSSHUser, ssh.DefaultUser),
		PrivateKey:            r.str(m.PrivateKey, envSSHPrivateKey, ""),
		PrivateKeyFile:        r.str(m.PrivateKeyFile, envSSHPrivateKeyFile, ""),
		Passphrase:            r.str(m.PrivateKeyPassphrase, envSSHPrivateKeyPassphrase, ""),
		CertificateFile:       r.str(m.CertificateFile, envSSHCertificateFile, ""),
		Password:              r.str(m.Password, envSSHPassword, ""),
		UseAgent:              r.boolean(m.UseAgent, root.AtName("use_agent"), envSSHUseAgent, r.getenv(envAgentSocket) != ""),
		KnownHostsFile:        r.str(m.KnownHostsFile, envSSHKnownHostsFile, ""),
		HostKey:               r.str(m.HostKey, envSSHHostKey, ""),
		InsecureIgnoreHostKey: r.boolean(m.InsecureIgnoreHostKey, root.AtName("insecure_ignore_host_key"), envSSHInsecure, false),
		Port:                  r.port(m.Port, root.AtName("port"), envSSHPort, ssh.DefaultPort),
		ConnectTimeout:        r.duration(m.ConnectTimeout, root.AtName("connect_timeout"), envSSHConnectTimeout, ssh.DefaultConnectTimeout),
		KeepAlive:             r.duration(m.KeepAliveInterval, root.AtName("keepalive_interval"), envSSHKeepAliveInterval, ssh.DefaultKeepAlive),
		MaxSessions:           r.integer(m.MaxSessions, root.AtName("max_sessions"), envSSHMaxSessions, ssh.DefaultMaxSessions, 1, 64),
	}
	if hop, ok := resolveBastion(r, m.Bastion); ok {
		cfg.Jumps = []ssh.Hop{hop}
	}
	cfg.Become = resolveBecome(r, m.Become, cfg.User)
	return cfg
}

// resolveBastion is the jump host of ssh.bastion, if it names one.
func resolveBastion(r *resolver, m *bastionModel) (ssh.Hop, bool) {
	if m == nil {
		m = &bastionModel{}
	}
	root := path.Root("ssh").AtName("bastion")
	host := r.str(m.Host, envSSHBastionHost, "")
	if host == "" {
		if !m.Host.IsUnknown() && (m.Port.ValueInt64() != 0 || m.User.ValueString() != "" || m.PrivateKey.ValueString() != "" ||
			m.PrivateKeyFile.ValueString() != "" || m.HostKey.ValueString() != "") {
			r.attrError(root.AtName("host"), "Missing Bastion Host",
				"ssh.bastion sets credentials but no host. Set ssh.bastion.host (or "+envSSHBastionHost+") to the jump host's address, or remove the bastion block.")
		}
		return ssh.Hop{}, false
	}
	port := r.port(m.Port, root.AtName("port"), envSSHBastionPort, ssh.DefaultPort)
	return ssh.Hop{
		Address:        joinDefaultPort(host, port),
		User:           r.str(m.User, envSSHBastionUser, ""),
		PrivateKey:     r.str(m.PrivateKey, envSSHBastionPrivateKey, ""),
		PrivateKeyFile: r.str(m.PrivateKeyFile, envSSHBastionPrivateKeyFile, ""),
		HostKey:        r.str(m.HostKey, envSSHBastionHostKey, ""),
	}, true
}

// resolveBecome is ssh.become: sudo unless the hosts are logged in to as root.
func resolveBecome(r *resolver, m *becomeModel, loginUser string) ssh.Become {
	if m == nil {
		m = &becomeModel{}
	}
	root := path.Root("ssh").AtName("become")
	return ssh.Become{
		Enabled:  r.boolean(m.Enabled, root.AtName("enabled"), envSSHBecome, loginUser != "root"),
		User:     r.str(m.User, envSSHBecomeUser, ""),
		Password: r.str(m.Password, envSSHBecomePassword, ""),
	}
}

// checkSSH refuses, once when the provider is configured, what the SSH transport would
// otherwise refuse on every host resource and data source ([ssh.Config.Check], each problem
// put on the attribute to fix), and what only the provider knows to be wrong: a sudo password
// that become never uses, an agent without a socket. Files are not read here (they may be
// written later in the same run); a check that reads a value not known yet is left to the
// apply.
func checkSSH(r *resolver, m *sshModel, cfg ssh.Config) {
	if m == nil {
		m = &sshModel{}
	}
	placement[ssh.Rule]{attrs: func(jump int) attributes { return sshFields(m, jump) }, word: sshProblem}.place(r, cfg.Check())
	root := path.Root("ssh")
	become := m.Become
	if become == nil {
		become = &becomeModel{}
	}
	if cfg.Become.Password != "" && !cfg.Become.Enabled && !anyUnknown(become.Enabled, become.Password) {
		r.attrError(root.AtName("become").AtName("password"), "sudo Password Without become",
			"ssh.become.password is set while ssh.become.enabled is false. Set enabled = true, or drop the password.")
	}
	if cfg.UseAgent && r.getenv(envAgentSocket) == "" && !m.UseAgent.IsUnknown() {
		r.attrError(root.AtName("use_agent"), "SSH Agent Not Running",
			"ssh.use_agent is true but "+envAgentSocket+" is not set, so there is no agent to ask for keys. Start ssh-agent (eval $(ssh-agent); ssh-add), or set use_agent = false and give a key.")
	}
	if cfg.Insecure() {
		r.diags.AddAttributeWarning(root.AtName("insecure_ignore_host_key"), "SSH Host Keys Are Not Verified",
			"ssh.insecure_ignore_host_key is true: any machine answering on a host's address receives the SSH "+
				"credentials and the sudo password. Use known_hosts_file or host_key outside throwaway test rigs.")
	}
	if cfg.MaxSessions > ssh.SSHDMaxSessions {
		r.diags.AddAttributeWarning(root.AtName("max_sessions"), "SSH Sessions Above sshd's Default",
			fmt.Sprintf("ssh.max_sessions is above %d, OpenSSH's default MaxSessions; hosts that keep the default refuse the extra sessions. Lower it or raise MaxSessions in sshd_config.", ssh.SSHDMaxSessions))
	}
}

// sshFields returns the attribute behind each field, by its Go name, of the Config (jump 0)
// or of its jump host (the bastion).
func sshFields(m *sshModel, jump int) attributes {
	root := path.Root("ssh")
	var fields map[string]setting
	if jump > 0 {
		root = root.AtName("bastion")
		b := m.Bastion
		if b == nil {
			b = &bastionModel{}
		}
		fields = map[string]setting{
			"Address":        {root.AtName("host"), envSSHBastionHost, b.Host},
			"User":           {root.AtName("user"), envSSHBastionUser, b.User},
			"PrivateKey":     {root.AtName("private_key"), envSSHBastionPrivateKey, b.PrivateKey},
			"PrivateKeyFile": {root.AtName("private_key_file"), envSSHBastionPrivateKeyFile, b.PrivateKeyFile},
			"HostKey":        {root.AtName("host_key"), envSSHBastionHostKey, b.HostKey},
		}
	} else {
		become, bp := m.Become, root.AtName("become")
		if become == nil {
			become = &becomeModel{}
		}
		fields = map[string]setting{
			"User":                  {root.AtName("user"), envSSHUser, m.User},
			"PrivateKey":            {root.AtName("private_key"), envSSHPrivateKey, m.PrivateKey},
			"PrivateKeyFile":        {root.AtName("private_key_file"), envSSHPrivateKeyFile, m.PrivateKeyFile},
			"Passphrase":            {root.AtName("private_key_passphrase"), envSSHPrivateKeyPassphrase, m.PrivateKeyPassphrase},
			"CertificateFile":       {root.AtName("certificate_file"), envSSHCertificateFile, m.CertificateFile},
			"Password":              {root.AtName("password"), envSSHPassword, m.Password},
			"UseAgent":              {root.AtName("use_agent"), envSSHUseAgent, m.UseAgent},
			"KnownHostsFile":        {root.AtName("known_hosts_file"), envSSHKnownHostsFile, m.KnownHostsFile},
			"HostKey":               {root.AtName("host_key"), envSSHHostKey, m.HostKey},
			"InsecureIgnoreHostKey": {root.AtName("insecure_ignore_host_key"), envSSHInsecure, m.InsecureIgnoreHostKey},
			"Port":                  {root.AtName("port"), envSSHPort, m.Port},
			"ConnectTimeout":        {root.AtName("connect_timeout"), envSSHConnectTimeout, m.ConnectTimeout},
			"KeepAlive":             {root.AtName("keepalive_interval"), envSSHKeepAliveInterval, m.KeepAliveInterval},
			"MaxSessions":           {root.AtName("max_sessions"), envSSHMaxSessions, m.MaxSessions},
			"Become.Enabled":        {bp.AtName("enabled"), envSSHBecome, become.Enabled},
			"Become.User":           {bp.AtName("user"), envSSHBecomeUser, become.User},
			"Become.Password":       {bp.AtName("password"), envSSHBecomePassword, become.Password},
		}
	}
	return attributes{root, fields}
}
