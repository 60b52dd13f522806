package ssh

import (
	"fmt"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/configcheck"
)

// A Rule is one of the checks of [Config.Check].
type Rule int

// The rules of [Config.Check]. Those marked (hop) apply to each [Hop] too.
const (
	// RuleUser: User is empty.
	RuleUser Rule = iota + 1
	// RuleOneKey: PrivateKey and PrivateKeyFile are both set (hop).
	RuleOneKey
	// RuleAuth: there is no PrivateKey, PrivateKeyFile, Password or UseAgent (hop: no
	// PrivateKey, PrivateKeyFile or the Config's UseAgent: a jump host is never offered the
	// hosts' key or password).
	RuleAuth
	// RulePrivateKey: PrivateKey does not parse, or Passphrase does not decrypt it (hop: a
	// hop's key has no passphrase).
	RulePrivateKey
	// RuleCertificateKey: CertificateFile is set without a key or the agent to sign with.
	RuleCertificateKey
	// RuleHostKeyInsecure: HostKey pins a key while InsecureIgnoreHostKey turns
	// verification off.
	RuleHostKeyInsecure
	// RuleHostKeyKnownHosts: HostKey and KnownHostsFile are both set (hop).
	RuleHostKeyKnownHosts
	// RuleHostKey: HostKey is not a key in authorized_keys format (hop).
	RuleHostKey
	// RuleKnownHostsInsecure: KnownHostsFile names the keys to verify against while
	// InsecureIgnoreHostKey turns verification off.
	RuleKnownHostsInsecure
	// RulePort: Port is outside 0-65535.
	RulePort
	// RuleConnectTimeout: ConnectTimeout is negative.
	RuleConnectTimeout
	// RuleMaxSessions: MaxSessions is negative.
	RuleMaxSessions
	// RuleBecomePassword: Become.Password has a line break, and sudo reads one line.
	RuleBecomePassword
	// RuleAddress: a hop's Address is empty or not host or host:port (hop only).
	RuleAddress
)

// ConfigError is one problem that [Config.Check] found: the rule, the field to fix and
// every field the rule read. Its Scope is the 1-based index of the [Hop] in Config.Jumps, 0
// for the Config itself; its text then starts with "jump N: ". Err is the cause when a value
// does not parse ([RulePrivateKey], [RuleHostKey], [RuleAddress]); nil otherwise. Field is
// empty when the rule is about the settings as a whole ([RuleAuth]).
type ConfigError = configcheck.Problem[Rule]

// Validate checks c as [Config.Check] does and joins the problems into one error; nil when
// there are none. [NewPool] refuses a Config that does not validate.
func (c Config) Validate() error { return configcheck.Join(c.Check()) }

// Check returns every problem of c, in a stable order, without touching the network or
// the file system: it parses inline keys and pinned host keys, and reads no file. The zero
// value of a field with a default (Port, ConnectTimeout, MaxSessions) is valid.
func (c Config) Check() []*ConfigError {
	var k checker
	if c.User == "" {
		k.Add(RuleUser, "User", nil, "user is required")
	}
	k.keys(c.PrivateKey, c.PrivateKeyFile, c.Passphrase, "Passphrase")
	if c.PrivateKey == "" && c.PrivateKeyFile == "" && !c.UseAgent && c.Password == "" {
		k.Add(RuleAuth, "", nil, "no authentication method: set a private key, a private key file, a password or use the agent",
			"PrivateKey", "PrivateKeyFile", "Password", "UseAgent")
	}
	if c.CertificateFile != "" && c.PrivateKey == "" && c.PrivateKeyFile == "" && !c.UseAgent {
		k.Add(RuleCertificateKey, "CertificateFile", nil, "a certificate file needs a private key, a private key file or the agent",
			"PrivateKey", "PrivateKeyFile", "UseAgent")
	}
	if c.HostKey != "" && c.InsecureIgnoreHostKey {
		k.Add(RuleHostKeyInsecure, "InsecureIgnoreHostKey", nil, "host key and insecure ignore host key are mutually exclusive", "HostKey")
	}
	k.hostKey(c.HostKey, c.KnownHostsFile)
	if c.InsecureIgnoreHostKey && c.KnownHostsFile != "" {
		k.Add(RuleKnownHostsInsecure, "InsecureIgnoreHostKey", nil, "known hosts file and insecure ignore host key are mutually exclusive", "KnownHostsFile")
	}
	if c.Port < 0 || c.Port > 65535 {
		k.Add(RulePort, "Port", nil, fmt.Sprintf("port %d out of range 1-65535", c.Port))
	}
	if c.ConnectTimeout < 0 {
		k.Add(RuleConnectTimeout, "ConnectTimeout", nil, "connect timeout must not be negative")
	}
	if c.MaxSessions < 0 {
		k.Add(RuleMaxSessions, "MaxSessions", nil, "max sessions must not be negative")
	}
	if strings.ContainsAny(c.Become.Password, "\r\n") {
		k.Add(RuleBecomePassword, "Become.Password", nil, "become password must not contain a line break")
	}
	for i, h := range c.Jumps {
		k.In("jump", i+1)
		h.check(&k)
		if h.PrivateKey == "" && h.PrivateKeyFile == "" && !c.UseAgent {
			k.Add(RuleAuth, "PrivateKeyFile", nil, "no credentials of its own: set its private key or private key file, or use the agent "+
				"(the hosts' key and password are not offered to a jump host)", "PrivateKey", "UseAgent")
		}
	}
	return k.Problems
}

func (h Hop) check(k *checker) {
	if h.Address == "" {
		k.Add(RuleAddress, "Address", nil, "address is required")
	} else if _, err := hostPort(h.Address, DefaultPort); err != nil {
		k.Add(RuleAddress, "Address", err, err.Error())
	}
	k.keys(h.PrivateKey, h.PrivateKeyFile, "", "")
	k.hostKey(h.HostKey, h.KnownHostsFile)
}

// checker collects the problems of a Config and of its hops.
type checker struct{ configcheck.List[Rule] }

// keys checks an inline key and a key file, decrypting the key with passphrase (the field
// named passphraseField, empty when there is none).
func (k *checker) keys(key, file, passphrase, passphraseField string) {
	if key != "" && file != "" {
		k.Add(RuleOneKey, "PrivateKey", nil, "set only one of private key and private key file", "PrivateKeyFile")
	}
	if key == "" {
		return
	}
	if _, err := parseSigner([]byte(key), passphrase); err != nil {
		var read []string
		if passphraseField != "" {
			read = []string{passphraseField}
		}
		k.Add(RulePrivateKey, "PrivateKey", err, "private key: "+err.Error(), read...)
	}
}

// hostKey checks a pinned host key and its conflict with a known_hosts file.
func (k *checker) hostKey(key, knownHosts string) {
	if key == "" {
		return
	}
	if knownHosts != "" {
		k.Add(RuleHostKeyKnownHosts, "HostKey", nil, "host key and known hosts file are mutually exclusive", "KnownHostsFile")
	}
	if _, err := parsePinnedKey(key); err != nil {
		k.Add(RuleHostKey, "HostKey", err, "host key: "+err.Error())
	}
}
