package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	xssh "golang.org/x/crypto/ssh"
)

func TestConfigValidate(t *testing.T) {
	_, keyPEM := newKey(t)
	key := string(keyPEM)
	encPEM, _ := newEncryptedKey(t, "pw")
	hostKey := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"
	base := Config{User: "root", PrivateKey: key}

	tests := []struct {
		name string
		edit func(*Config)
		want []string // substrings of the error; nil: valid
	}{
		{"minimal", func(*Config) {}, nil},
		{"agent only", func(c *Config) { c.PrivateKey, c.UseAgent = "", true }, nil},
		{"password only", func(c *Config) { c.PrivateKey, c.Password = "", "pw" }, nil},
		{"pinned key", func(c *Config) { c.HostKey = hostKey }, nil},
		{"pinned CA", func(c *Config) { c.HostKey = "cert-authority " + hostKey }, nil},
		{"full jump", func(c *Config) {
			c.Jumps = []Hop{{Address: "bastion", PrivateKey: key, HostKey: hostKey}, {Address: "[2001:db8::1]:2222", PrivateKeyFile: "/jump2_ed25519"}}
		}, nil},
		{"no user", func(c *Config) { c.User = "" }, []string{"user is required"}},
		{"no auth", func(c *Config) { c.PrivateKey = "" }, []string{"no authentication method"}},
		{"two keys", func(c *Config) { c.PrivateKeyFile = "/k" }, []string{"only one of private key and private key file"}},
		{"bad key", func(c *Config) { c.PrivateKey = "-----BEGIN NOTHING-----" }, []string{"private key:"}},
		{"encrypted key without passphrase", func(c *Config) { c.PrivateKey = string(encPEM) }, []string{"no passphrase"}},
		{"encrypted key with passphrase", func(c *Config) { c.PrivateKey, c.Passphrase = string(encPEM), "pw" }, nil},
		{"certificate without key", func(c *Config) { c.PrivateKey, c.Password, c.CertificateFile = "", "pw", "/c" }, []string{"certificate file needs"}},
		{"pinned and insecure", func(c *Config) { c.HostKey, c.InsecureIgnoreHostKey = hostKey, true }, []string{"mutually exclusive"}},
		{"pinned and known_hosts", func(c *Config) { c.HostKey, c.KnownHostsFile = hostKey, "/k" }, []string{"mutually exclusive"}},
		{"known_hosts and insecure", func(c *Config) { c.KnownHostsFile, c.InsecureIgnoreHostKey = "/k", true }, []string{"mutually exclusive"}},
		{"bad pinned key", func(c *Config) { c.HostKey = "ssh-ed25519 nope" }, []string{"host key: not in authorized_keys format"}},
		{"port", func(c *Config) { c.Port = 70000 }, []string{"port 70000 out of range"}},
		{"negatives", func(c *Config) { c.ConnectTimeout, c.MaxSessions = -1, -1 }, []string{"connect timeout", "max sessions"}},
		{"become password with newline", func(c *Config) { c.Become.Password = "a\nb" }, []string{"line break"}},
		{"jump without address", func(c *Config) { c.Jumps = []Hop{{}} }, []string{"jump 1: address is required"}},
		{"jump with bad port", func(c *Config) { c.Jumps = []Hop{{Address: "b:99999"}} }, []string{"jump 1:", "invalid port"}},
		{"jump without credentials of its own", func(c *Config) { c.Jumps = []Hop{{Address: "b"}} }, []string{"jump 1: no credentials of its own"}},
		{"jump through the agent", func(c *Config) { c.UseAgent, c.Jumps = true, []Hop{{Address: "b"}} }, nil},
		{"several errors at once", func(c *Config) { c.User, c.Port = "", -1 }, []string{"user is required", "port -1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := base
			tt.edit(&cfg)
			err := cfg.Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want an error with %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %q, want it to contain %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "BEGIN") || (cfg.Passphrase != "" && strings.Contains(err.Error(), cfg.Passphrase)) {
				t.Errorf("Validate() = %q leaks key material", err)
			}
		})
	}
}

// TestConfigCheckNamesFields: each problem names its rule, the field to fix and the fields
// the rule read, so callers can put it on their own setting (or skip it while an input is
// not known yet).
func TestConfigCheckNamesFields(t *testing.T) {
	_, keyPEM := newKey(t)
	hostKey := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"
	tests := []struct {
		name string
		cfg  Config
		want []ConfigError
	}{
		{"valid", Config{User: "u", PrivateKey: string(keyPEM)}, nil},
		{"no user, no way in", Config{}, []ConfigError{
			{Rule: RuleUser, Field: "User", Fields: []string{"User"}},
			{Rule: RuleAuth, Fields: []string{"PrivateKey", "PrivateKeyFile", "Password", "UseAgent"}},
		}},
		{"two keys, neither parses", Config{User: "u", PrivateKey: "nope", PrivateKeyFile: "/k"}, []ConfigError{
			{Rule: RuleOneKey, Field: "PrivateKey", Fields: []string{"PrivateKey", "PrivateKeyFile"}},
			{Rule: RulePrivateKey, Field: "PrivateKey", Fields: []string{"PrivateKey", "Passphrase"}},
		}},
		{"certificate without key", Config{User: "u", Password: "pw", CertificateFile: "/c"}, []ConfigError{
			{Rule: RuleCertificateKey, Field: "CertificateFile", Fields: []string{"CertificateFile", "PrivateKey", "PrivateKeyFile", "UseAgent"}},
		}},
		{"every host key setting", Config{User: "u", UseAgent: true, HostKey: hostKey, KnownHostsFile: "/kh", InsecureIgnoreHostKey: true}, []ConfigError{
			{Rule: RuleHostKeyInsecure, Field: "InsecureIgnoreHostKey", Fields: []string{"InsecureIgnoreHostKey", "HostKey"}},
			{Rule: RuleHostKeyKnownHosts, Field: "HostKey", Fields: []string{"HostKey", "KnownHostsFile"}},
			{Rule: RuleKnownHostsInsecure, Field: "InsecureIgnoreHostKey", Fields: []string{"InsecureIgnoreHostKey", "KnownHostsFile"}},
		}},
		{"sudo password on two lines", Config{User: "u", UseAgent: true, Become: Become{Password: "a\nb"}}, []ConfigError{
			{Rule: RuleBecomePassword, Field: "Become.Password", Fields: []string{"Become.Password"}},
		}},
		{"second jump", Config{User: "u", UseAgent: true, Jumps: []Hop{{Address: "a"}, {Address: "b", PrivateKey: "nope", PrivateKeyFile: "/k", HostKey: "x"}}}, []ConfigError{
			{Scope: 2, Rule: RuleOneKey, Field: "PrivateKey", Fields: []string{"PrivateKey", "PrivateKeyFile"}},
			{Scope: 2, Rule: RulePrivateKey, Field: "PrivateKey", Fields: []string{"PrivateKey"}},
			{Scope: 2, Rule: RuleHostKey, Field: "HostKey", Fields: []string{"HostKey"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []ConfigError
			for _, e := range tt.cfg.Check() {
				if (e.Err != nil) != (e.Rule == RulePrivateKey || e.Rule == RuleHostKey || e.Rule == RuleAddress) {
					t.Errorf("%v: cause %v", e.Rule, e.Err)
				}
				got = append(got, ConfigError{Scope: e.Scope, Rule: e.Rule, Field: e.Field, Fields: e.Fields})
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(ConfigError{})); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigDefaultsAndInsecure(t *testing.T) {
	got := Config{Retries: -1}.withDefaults()
	want := Config{Port: 22, ConnectTimeout: 30 * time.Second, KeepAlive: 30 * time.Second, MaxSessions: 8, Retries: 0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("withDefaults mismatch (-want +got):\n%s", diff)
	}
	if got := (Config{}).withDefaults().Retries; got != DefaultRetries {
		t.Errorf("default Retries = %d, want %d", got, DefaultRetries)
	}
	if (Config{}).Insecure() || !(Config{InsecureIgnoreHostKey: true}).Insecure() {
		t.Error("Insecure() does not follow InsecureIgnoreHostKey")
	}
}

func TestHostPort(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"10.0.0.5", "10.0.0.5:22", ""},
		{"gpu-01.example.com:2222", "gpu-01.example.com:2222", ""},
		{"2001:db8::1", "[2001:db8::1]:22", ""},
		{"[2001:db8::1]", "[2001:db8::1]:22", ""},
		{"[2001:db8::1]:2200", "[2001:db8::1]:2200", ""},
		{"", "", "empty"},
		{"host:0", "", "invalid port"},
		{"host name", "", "not host or host:port"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := hostPort(tt.in, 22)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("hostPort(%q) = %q, %v, want error %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("hostPort(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestRetryable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"refused", &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, true},
		{"reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"handshake EOF", fmt.Errorf("ssh: handshake failed: %w", io.EOF), true},
		{"timeout", fmt.Errorf("timed out: %w", context.DeadlineExceeded), true},
		{"jump host cannot reach yet", &xssh.OpenChannelError{Reason: xssh.ConnectionFailed}, true},
		{"jump host forbids forwarding", &xssh.OpenChannelError{Reason: xssh.Prohibited}, false},
		{"authentication", errors.New("ssh: handshake failed: ssh: unable to authenticate, attempted methods [none publickey], no supported methods remain"), false},
		{"host key", fmt.Errorf("ssh: handshake failed: %w", &HostKeyError{Err: io.EOF}), false},
		{"cancelled", fmt.Errorf("x: %w", context.Canceled), false},
		{"closed pool", ErrClosed, false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := retryable(tt.err); got != tt.want {
				t.Errorf("retryable(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	for attempt := range 20 {
		d := backoff(attempt)
		full := min(backoffBase<<min(attempt, 16), backoffMax)
		if d < full/2 || d > full {
			t.Errorf("backoff(%d) = %s, want within [%s, %s]", attempt, d, full/2, full)
		}
	}
}

func TestPIDWriter(t *testing.T) {
	tests := []struct {
		name    string
		chunks  []string
		wantOut string
		wantPID int
	}{
		{"pid line stripped", []string{"1234\nhello\n"}, "hello\n", 1234},
		{"pid split across writes", []string{"12", "34", "\nhel", "lo"}, "hello", 1234},
		{"no output after pid", []string{"99\n"}, "", 99},
		{"not a pid line", []string{"hello\nworld\n"}, "hello\nworld\n", 0},
		{"partial line without newline", []string{"abc"}, "abc", 0},
		{"long first line", []string{strings.Repeat("x", 40), "\n"}, strings.Repeat("x", 40) + "\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := &pidWriter{w: &buf}
			for _, c := range tt.chunks {
				if n, err := w.Write([]byte(c)); err != nil || n != len(c) {
					t.Fatalf("Write(%q) = %d, %v", c, n, err)
				}
			}
			w.flush()
			if diff := cmp.Diff(tt.wantOut, buf.String()); diff != "" {
				t.Errorf("output mismatch (-want +got):\n%s", diff)
			}
			if got := w.pid(); got != tt.wantPID {
				t.Errorf("pid = %d, want %d", got, tt.wantPID)
			}
		})
	}
}

func TestErrorMessages(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{
			"command error",
			&CommandError{Host: "10.0.0.5:22", Command: "mlnx_qos -i eth0", ExitStatus: 3, Stderr: []byte("  no such device\n")},
			`run "mlnx_qos -i eth0" on 10.0.0.5:22: exit status 3: no such device`,
		},
		{
			"killed by signal",
			&CommandError{Host: "h:22", Command: "x", ExitStatus: -1, Signal: "KILL"},
			`run "x" on h:22: killed by signal KILL`,
		},
		{
			"lost connection",
			&CommandError{Host: "h:22", Command: "x", ExitStatus: -1, Err: io.EOF},
			`run "x" on h:22: no exit status (the command may have run): EOF`,
		},
		{"connect error", &ConnectError{Host: "h:22", Err: io.EOF}, "connect to h:22: EOF"},
		{"connect error via jump", &ConnectError{Host: "h:22", Via: "b:22", Err: io.EOF}, "connect to h:22 via jump host b:22: EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.err.Error()); diff != "" {
				t.Errorf("Error() mismatch (-want +got):\n%s", diff)
			}
		})
	}
	long := &CommandError{Host: "h:22", Command: strings.Repeat("c", 1000), ExitStatus: 1}
	if n := len(long.Error()); n > 300 {
		t.Errorf("Error() of a long command is %d bytes, want it shortened", n)
	}
}
