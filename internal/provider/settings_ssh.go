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

// checkSSHCredentials refuses, once when the provider is configured, what the SSH transport
// would otherwise refuse on every host resource and data source: an empty login user, an
// inline key or pinned host key that does not parse, an agent without a socket, and no way
// to log in at all. Files are not read here (they may be written later in the same run); a
// value not known yet is not checked.
func checkSSHCredentials(r *resolver, m *sshModel, s sshSettings) {
	if m == nil {
		m = &sshModel{}
	}
	root := path.Root("ssh")
	if isSet(m.User) && s.User == "" {
		r.attrError(root.AtName("user"), "Missing SSH User",
			"ssh.user is empty. Set it to the login user of the hosts, or leave it unset for "+defaultSSHUser+" (or set "+envSSHUser+").")
	}
	if s.PrivateKey != "" && !m.PrivateKey.IsUnknown() && !m.PrivateKeyPassphrase.IsUnknown() {
		if err := ssh.CheckPrivateKey(s.PrivateKey, s.PrivateKeyPassphrase); err != nil {
			r.attrError(root.AtName("private_key"), "Invalid SSH Private Key",
				fmt.Sprintf("ssh.private_key%s is not a private key SSH can use: %v. Give the key itself in PEM or OpenSSH format "+
					"(\"-----BEGIN OPENSSH PRIVATE KEY-----...\"), with ssh.private_key_passphrase when it is encrypted, or its path in ssh.private_key_file.",
					envNote(m.PrivateKey, envSSHPrivateKey), err))
		}
	}
	if s.HostKey != "" && !m.HostKey.IsUnknown() {
		if err := ssh.CheckHostKey(s.HostKey); err != nil {
			r.attrError(root.AtName("host_key"), "Invalid SSH Host Key",
				fmt.Sprintf("ssh.host_key%s is not a host key: %v. Give one line in authorized_keys format, such as the host's "+
					"/etc/ssh/ssh_host_ed25519_key.pub (\"ssh-ed25519 AAAA...\"), or \"cert-authority ssh-ed25519 AAAA...\" for the CA that signs the host certificates.",
					envNote(m.HostKey, envSSHHostKey), err))
		}
	}
	checkBastionKeys(r, m.Bastion, s.Bastion)
	if s.UseAgent && r.getenv(envAgentSocket) == "" && !m.UseAgent.IsUnknown() {
		r.attrError(root.AtName("use_agent"), "SSH Agent Not Running",
			"ssh.use_agent is true but "+envAgentSocket+" is not set, so there is no agent to ask for keys. Start ssh-agent (eval $(ssh-agent); ssh-add), or set use_agent = false and give a key.")
	}
	if anyUnknown(m.PrivateKey, m.PrivateKeyFile, m.Password, m.UseAgent) {
		return
	}
	if s.PrivateKey == "" && s.PrivateKeyFile == "" && s.Password == "" && !s.UseAgent {
		r.attrError(root, "No SSH Authentication",
			"The ssh settings give no way to log in to the hosts. Set ssh.private_key_file (or "+envSSHPrivateKeyFile+"), ssh.private_key, "+
				"or ssh.password, or run an SSH agent ("+envAgentSocket+"). If the provider manages switches only, remove the ssh block and the ROCE_SSH_* variables.")
	}
}

func checkBastionKeys(r *resolver, m *bastionModel, s *bastionSettings) {
	if s == nil {
		return
	}
	if m == nil {
		m = &bastionModel{}
	}
	root := path.Root("ssh").AtName("bastion")
	if s.PrivateKey != "" && !m.PrivateKey.IsUnknown() {
		if err := ssh.CheckPrivateKey(s.PrivateKey, ""); err != nil {
			r.attrError(root.AtName("private_key"), "Invalid SSH Private Key",
				fmt.Sprintf("ssh.bastion.private_key%s is not an unencrypted private key SSH can use: %v. Give the key itself in PEM or OpenSSH format, or its path in ssh.bastion.private_key_file.",
					envNote(m.PrivateKey, envSSHBastionPrivateKey), err))
		}
	}
	if s.HostKey != "" && !m.HostKey.IsUnknown() {
		if err := ssh.CheckHostKey(s.HostKey); err != nil {
			r.attrError(root.AtName("host_key"), "Invalid SSH Host Key",
				fmt.Sprintf("ssh.bastion.host_key%s is not a host key: %v. Give the jump host's key as one line in authorized_keys format (\"ssh-ed25519 AAAA...\").",
					envNote(m.HostKey, envSSHBastionHostKey), err))
		}
	}
}

// envNote says " (from ENV)" when the configuration leaves v unset, so the value came from the
// environment.
func envNote(v interface{ IsNull() bool }, env string) string {
	if v.IsNull() {
		return " (from " + env + ")"
	}
	return ""
}
