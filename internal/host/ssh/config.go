package ssh

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	xssh "golang.org/x/crypto/ssh"
)

// Defaults applied by [NewPool] to zero fields of a [Config].
const (
	DefaultPort           = 22
	DefaultMaxSessions    = 8
	DefaultConnectTimeout = 30 * time.Second
	DefaultKeepAlive      = 30 * time.Second
	DefaultRetries        = 3
	// DefaultCommandTimeout bounds one command when [RunOptions.Timeout] is
	// zero, and the commands of WriteFile and ReadFile. Fact
	// gathering takes seconds, but the same Run installs packages: an apt or
	// dnf transaction that downloads DOCA-OFED and builds its DKMS kernel
	// modules (then the NVIDIA driver's) takes tens of minutes on a slow
	// mirror. The bound is there so that a hung command ends, not to police
	// slow ones; callers that know better pass RunOptions.Timeout.
	DefaultCommandTimeout = 30 * time.Minute
	// DefaultFinishTimeout bounds a [RunOptions.Finish] command when its
	// Timeout is zero. Stopping a package transaction or a firmware write
	// leaves exactly what Finish is there to avoid, so its bound only ends a
	// command that hangs: a DKMS build for every installed kernel fits.
	DefaultFinishTimeout = 2 * time.Hour
	// DefaultMaxOutput caps each of a command's standard output and standard
	// error, in bytes, when [RunOptions.MaxOutput] is zero: the 64 MiB the
	// NVUE client reads of one answer (package nvue). Facts are kilobytes:
	// what passes the cap is a runaway command, not a result.
	DefaultMaxOutput = 64 << 20
)

const (
	// DefaultUser is the login user for a caller to put in [Config.User] when its own
	// configuration names none. Config.User itself has no default: a Config says whom it
	// logs in as.
	DefaultUser = "root"
	// SSHDMaxSessions is OpenSSH's default MaxSessions: hosts that keep it refuse the
	// sessions of a [Config.MaxSessions] above it, so callers should warn.
	SSHDMaxSessions = 10
)

// Config says how to reach and authenticate to every host of a [Pool].
//
// Secrets (PrivateKey, Passphrase, Password, Become.Password) are only used
// for authentication: they never appear in a command line, an error or a log.
type Config struct {
	// User is the login user. Required.
	User string
	// PrivateKey is an inline private key in PEM or OpenSSH format.
	PrivateKey string
	// PrivateKeyFile is the path of a private key file on the machine
	// running the provider; a leading ~ or ~user is expanded, as OpenSSH does
	// (so are KnownHostsFile's, CertificateFile's and the jump hosts'). Set at
	// most one of PrivateKey and PrivateKeyFile.
	PrivateKeyFile string
	// Passphrase decrypts an encrypted PrivateKey or PrivateKeyFile.
	Passphrase string
	// CertificateFile is an OpenSSH user certificate (id_ed25519-cert.pub)
	// for the private key or for a key held by the agent.
	CertificateFile string
	// Password enables password and keyboard-interactive authentication.
	Password string
	// UseAgent authenticates with the keys of an ssh-agent.
	UseAgent bool
	// AgentSocket is the agent's socket; empty means $SSH_AUTH_SOCK.
	AgentSocket string

	// KnownHostsFile is the known_hosts file used to verify host keys. Empty
	// means ~/.ssh/known_hosts plus /etc/ssh/ssh_known_hosts when present.
	// Hashed host names and @cert-authority and @revoked lines are honoured.
	KnownHostsFile string
	// HostKey pins the host key in authorized_keys format
	// ("ssh-ed25519 AAAA..."). With the cert-authority option
	// ("cert-authority ssh-ed25519 AAAA...") it pins the CA that signs the
	// host certificates instead. A pinned key replaces known_hosts.
	HostKey string
	// InsecureIgnoreHostKey disables host key verification for the hosts
	// and for jump hosts without their own HostKey. It is an explicit,
	// dangerous opt-out: callers must warn when [Config.Insecure] is true.
	InsecureIgnoreHostKey bool

	// Port is the SSH port used when a host address has none; 0 means 22.
	Port int
	// ConnectTimeout bounds one connection attempt (TCP connect and SSH
	// handshake, each jump included); 0 means 30 s.
	ConnectTimeout time.Duration
	// KeepAlive is the interval of keepalive requests on idle and busy
	// connections; a connection that does not answer within two intervals is
	// dropped and redialled on next use. 0 means 30 s; negative disables.
	KeepAlive time.Duration
	// MaxSessions caps the concurrent sessions (commands, SFTP) on one
	// connection. Keep it below sshd's MaxSessions (10 by default): the
	// difference is the headroom used to terminate cancelled commands. 0
	// means 8.
	MaxSessions int
	// Retries is the number of extra connection attempts after a connection
	// error (refused, reset, timeout, handshake EOF). 0 means 3; a negative
	// value disables retries. Authentication and host key errors are never
	// retried.
	Retries int

	// Jumps are the bastions to go through, in order, as with ssh -J.
	Jumps []Hop
	// Become configures sudo.
	Become Become
	// Events, when set, hears of the pool's connections (for logs); it must not block.
	Events ConnEvents
}

// Hop is one jump host (bastion) of a [Config].
type Hop struct {
	// Address is "host" or "host:port" (port 22 when absent).
	Address string
	// User is the login user on the jump host; empty means Config.User.
	User string
	// PrivateKey is an inline private key for the jump host. A jump host is
	// offered only its own key and, with Config.UseAgent, the agent's keys:
	// never the Config's key or password, which are for the hosts. With
	// neither a key nor the agent, NewPool fails.
	PrivateKey string
	// PrivateKeyFile is a private key file for the jump host.
	PrivateKeyFile string
	// HostKey pins the jump host's key (or, with the cert-authority option,
	// its CA), as [Config.HostKey] does.
	HostKey string
	// KnownHostsFile verifies the jump host's key; empty means the Config's
	// known_hosts (or its InsecureIgnoreHostKey).
	KnownHostsFile string
}

// Become configures privilege escalation with sudo.
type Become struct {
	// Enabled runs every command and file operation through sudo, as
	// Ansible's become: yes. Without it sudo is used only when a call asks.
	Enabled bool
	// User is the target user (sudo -u); empty means root.
	User string
	// Password is the sudo password. It is written to sudo's standard input
	// when sudo prompts for it, and only then; it is never put on the
	// command line.
	Password string
}

// Insecure reports whether host key verification is disabled for the hosts
// or any jump host. Callers should warn loudly when it is true.
func (c Config) Insecure() bool {
	return c.InsecureIgnoreHostKey
}

// withDefaults returns c with zero fields replaced by the defaults.
func (c Config) withDefaults() Config {
	c = c.expandHomes()
	if c.Port == 0 {
		c.Port = DefaultPort
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	if c.KeepAlive == 0 {
		c.KeepAlive = DefaultKeepAlive
	}
	if c.MaxSessions == 0 {
		c.MaxSessions = DefaultMaxSessions
	}
	switch {
	case c.Retries == 0:
		c.Retries = DefaultRetries
	case c.Retries < 0:
		c.Retries = 0
	}
	return c
}

// hostPort returns address as host:port, adding port when it has none. IPv6
// literals may be written bare or in brackets.
func hostPort(address string, port int) (string, error) {
	if address == "" {
		return "", errors.New("empty host address")
	}
	if h, p, err := net.SplitHostPort(address); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 || h == "" {
			return "", fmt.Errorf("host address %q: invalid port or host", address)
		}
		return net.JoinHostPort(h, p), nil
	}
	h := strings.TrimSuffix(strings.TrimPrefix(address, "["), "]")
	if strings.ContainsAny(h, "[]/ \t\n") {
		return "", fmt.Errorf("host address %q is not host or host:port", address)
	}
	return net.JoinHostPort(h, strconv.Itoa(port)), nil
}

// pinnedKey is a parsed HostKey: a host key, or a CA with the cert-authority
// option.
type pinnedKey struct {
	key xssh.PublicKey
	ca  bool
}

func parsePinnedKey(s string) (pinnedKey, error) {
	key, _, options, _, err := xssh.ParseAuthorizedKey([]byte(s))
	if err != nil {
		return pinnedKey{}, fmt.Errorf("not in authorized_keys format: %w", err)
	}
	var pk pinnedKey
	pk.key = key
	for _, o := range options {
		if strings.EqualFold(o, "cert-authority") {
			pk.ca = true
		}
	}
	if _, isCert := key.(*xssh.Certificate); isCert {
		return pinnedKey{}, errors.New("pin the host key or its CA, not a certificate")
	}
	return pk, nil
}
