package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
)

// sshProblem words a failed check of the SSH configuration for the attribute to fix: where
// the value came from, what is wrong with it and how to fix it. f names the attributes behind
// the fields of the Config (or, for the bastion, of its hop).
func sshProblem(e *ssh.ConfigError, f func(field string) setting) (at path.Path, summary, detail string) {
	field := f(e.Field)
	at, bastion := field.path, e.Scope > 0
	switch {
	case e.Rule == ssh.RuleUser && !bastion:
		return at, "Missing SSH User",
			"ssh.user is empty. Set it to the login user of the hosts, or leave it unset for " + ssh.DefaultUser + " (or set " + envSSHUser + ")."
	case e.Rule == ssh.RuleOneKey:
		k := f("PrivateKeyFile")
		return at, "Conflicting SSH Keys",
			fmt.Sprintf("Both %s%s and %s%s are set. Keep one of them.", field.name(), field.from(), k.name(), k.from())
	case e.Rule == ssh.RuleAuth && !bastion:
		return at, "No SSH Authentication",
			"The ssh settings give no way to log in to the hosts. Set ssh.private_key_file (or " + envSSHPrivateKeyFile + "), ssh.private_key, " +
				"or ssh.password, or run an SSH agent (" + envAgentSocket + "). If the provider manages switches only, remove the ssh block and the ROCE_SSH_* variables."
	case e.Rule == ssh.RuleAuth:
		return at, "No Bastion Credentials",
			"ssh.bastion has no key of its own, and the provider offers a jump host only its own credentials, never the hosts' key or password. " +
				"Set ssh.bastion.private_key_file (or " + envSSHBastionPrivateKeyFile + ") or ssh.bastion.private_key, or enable ssh.use_agent with the bastion's key in the agent."
	case e.Rule == ssh.RulePrivateKey && !bastion:
		return at, "Invalid SSH Private Key",
			fmt.Sprintf("ssh.private_key%s is not a private key SSH can use: %v. Give the key itself in PEM or OpenSSH format "+
				"(\"-----BEGIN OPENSSH PRIVATE KEY-----...\"), with ssh.private_key_passphrase when it is encrypted, or its path in ssh.private_key_file.",
				field.from(), e.Err)
	case e.Rule == ssh.RulePrivateKey:
		return at, "Invalid SSH Private Key",
			fmt.Sprintf("ssh.bastion.private_key%s is not an unencrypted private key SSH can use: %v. Give the key itself in PEM or OpenSSH format, or its path in ssh.bastion.private_key_file.",
				field.from(), e.Err)
	case e.Rule == ssh.RuleCertificateKey && !bastion:
		return at, "SSH Certificate Without Key",
			fmt.Sprintf("ssh.certificate_file%s is set but there is no private key to sign with. Set ssh.private_key_file "+
				"(or ssh.private_key) to the key the certificate was issued for, or enable ssh.use_agent.", field.from())
	case e.Rule == ssh.RuleHostKeyInsecure && !bastion:
		k := f("HostKey")
		return at, "Conflicting Host Key Settings",
			fmt.Sprintf("%s%s pins a host key while %s%s turns verification off. Remove one of them.", k.name(), k.from(), field.name(), field.from())
	case e.Rule == ssh.RuleHostKeyKnownHosts && !bastion:
		k := f("KnownHostsFile")
		return at, "Conflicting Host Key Settings",
			fmt.Sprintf("%s%s and %s%s are both set. Pin one key for every host with host_key, or list the hosts in known_hosts_file, not both.",
				field.name(), field.from(), k.name(), k.from())
	case e.Rule == ssh.RuleKnownHostsInsecure && !bastion:
		k := f("KnownHostsFile")
		return at, "Conflicting Host Key Settings",
			fmt.Sprintf("%s%s turns host key verification off while %s%s names the keys to verify against. Remove one of them.",
				field.name(), field.from(), k.name(), k.from())
	case e.Rule == ssh.RuleHostKey && !bastion:
		return at, "Invalid SSH Host Key",
			fmt.Sprintf("ssh.host_key%s is not a host key: %v. Give one line in authorized_keys format, such as the host's "+
				"/etc/ssh/ssh_host_ed25519_key.pub (\"ssh-ed25519 AAAA...\"), or \"cert-authority ssh-ed25519 AAAA...\" for the CA that signs the host certificates.",
				field.from(), e.Err)
	case e.Rule == ssh.RuleHostKey:
		return at, "Invalid SSH Host Key",
			fmt.Sprintf("ssh.bastion.host_key%s is not a host key: %v. Give the jump host's key as one line in authorized_keys format (\"ssh-ed25519 AAAA...\").",
				field.from(), e.Err)
	case e.Rule == ssh.RuleBecomePassword && !bastion:
		return at, "Invalid sudo Password",
			fmt.Sprintf("ssh.become.password%s contains a line break; sudo reads the password as one line. Remove the line break.", field.from())
	case e.Rule == ssh.RuleAddress:
		var cause any = "it is empty"
		if e.Err != nil {
			cause = e.Err
		}
		return at, "Invalid Bastion Host",
			fmt.Sprintf("ssh.bastion.host%s is not an address SSH can dial: %v. Write it as host or host:port (\"jump.example.com\", \"10.0.0.1:2222\") with a port from 1 to 65535.",
				field.from(), cause)
	default:
		// Checks the attributes' own validation already covers (ports, durations).
		return at, "Invalid SSH Settings",
			fmt.Sprintf("%s%s is refused by the SSH transport: %v. Change %s.", field.name(), field.from(), e, field.name())
	}
}
