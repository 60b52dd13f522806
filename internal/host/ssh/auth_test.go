package ssh

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

func TestAuthMethods(t *testing.T) {
	user := currentUser(t)
	keyed, keyPEM := newKey(t)
	encPEM, encPub := newEncryptedKey(t, "correct horse")
	certKey, certKeyPEM := newKey(t)
	userCA, _ := newKey(t)
	certFile := filepath.Join(t.TempDir(), "id-cert.pub")
	writeFile(t, certFile, xssh.MarshalAuthorizedKey(signCert(t, userCA, certKey.PublicKey(), xssh.UserCert, []string{user})), 0o644)
	keyFile := filepath.Join(t.TempDir(), "id_ed25519")
	writeFile(t, keyFile, keyPEM, 0o600)
	agentKey, agentSock := startAgent(t)

	srv := startServer(t, serverOptions{
		authorizedKeys: []xssh.PublicKey{keyed.PublicKey(), encPub, agentKey},
		userCA:         userCA.PublicKey(),
	})
	known := knownHostsFile(t, srv.knownLine())

	tests := []struct {
		name string
		cfg  Config
	}{
		{"inline key", Config{PrivateKey: string(keyPEM)}},
		{"key file", Config{PrivateKeyFile: keyFile}},
		{"encrypted key with passphrase", Config{PrivateKey: string(encPEM), Passphrase: "correct horse"}},
		{"user certificate", Config{PrivateKey: string(certKeyPEM), CertificateFile: certFile}},
		{"agent", Config{UseAgent: true, AgentSocket: agentSock}},
		{"agent from SSH_AUTH_SOCK", Config{UseAgent: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("SSH_AUTH_SOCK", agentSock)
			cfg := tt.cfg
			cfg.User, cfg.KnownHostsFile = user, known
			got := mustRun(t, newTestPool(t, cfg).Client(srv.addr), "echo ok")
			if string(got.Stdout) != "ok\n" {
				t.Errorf("Stdout = %q, want ok", got.Stdout)
			}
		})
	}
}

func TestAuthFailureIsNotRetried(t *testing.T) {
	f := newFixture(t, serverOptions{})
	_, otherPEM := newKey(t)
	f.cfg.PrivateKey = string(otherPEM)
	f.cfg.Retries = 5
	p := newTestPool(t, f.cfg)
	_, err := p.Client(f.srv.addr).Run(testContext(t), "true", RunOptions{})
	var ce *ConnectError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "unable to authenticate") {
		t.Fatalf("Run = %v, want a *ConnectError for an authentication failure", err)
	}
	if got := hostCount(p, f.srv.addr); got.Dials != 1 || got.DialFailures != 1 {
		t.Errorf("Stats = %+v, want exactly 1 failed dial", got)
	}
}

func TestNewPoolKeyErrors(t *testing.T) {
	encPEM, _ := newEncryptedKey(t, "secret")
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"encrypted key without passphrase", Config{User: "u", PrivateKey: string(encPEM)}, "encrypted and no passphrase"},
		{"wrong passphrase", Config{User: "u", PrivateKey: string(encPEM), Passphrase: "nope"}, "decrypt with the passphrase"},
		{"missing key file", Config{User: "u", PrivateKeyFile: "/nonexistent/id"}, "private key file"},
		{"agent without socket", Config{User: "u", UseAgent: true}, "SSH_AUTH_SOCK"},
		{"certificate for another key", Config{User: "u", PrivateKey: string(mustKeyPEM(t)), CertificateFile: certFileFor(t, mustKey(t))}, "does not certify"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("SSH_AUTH_SOCK", "")
			p, err := NewPool(tt.cfg)
			if err == nil {
				p.Close()
				t.Fatalf("NewPool succeeded, want an error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewPool error = %q, want it to contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "nope") {
				t.Errorf("error %q leaks the passphrase", err)
			}
		})
	}
}

// TestPasswordAuth needs a local user with a known password: it creates one
// with useradd (root only) and removes it afterwards.
func TestPasswordAuth(t *testing.T) {
	name, password := testUser(t)
	tests := []struct {
		name string
		opts serverOptions
	}{
		{"password", serverOptions{password: true}},
		{"keyboard-interactive through PAM", serverOptions{pam: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startServer(t, tt.opts)
			cfg := Config{User: name, Password: password, KnownHostsFile: knownHostsFile(t, srv.knownLine())}
			got := mustRun(t, newTestPool(t, cfg).Client(srv.addr), "id -un")
			if strings.TrimSpace(string(got.Stdout)) != name {
				t.Errorf("id -un = %q, want %q", got.Stdout, name)
			}

			cfg.Password = "wrong"
			_, err := newTestPool(t, cfg).Client(srv.addr).Run(testContext(t), "true", RunOptions{})
			if err == nil || !strings.Contains(err.Error(), "unable to authenticate") {
				t.Errorf("Run with a wrong password = %v, want an authentication error", err)
			}
		})
	}
}

// testUser creates a throwaway local user with a random password.
func testUser(t *testing.T) (name, password string) {
	t.Helper()
	password = rand.Text()
	return localUser(t, password), password
}

// localUser creates a throwaway local user with password (useradd, chpasswd: root only)
// and removes it when the test ends.
func localUser(t *testing.T, password string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs root: left out of the fast tier (-short, make unit); make test runs it")
	}
	if os.Geteuid() != 0 {
		t.Fatal("password authentication needs a local user with a known password: creating one needs root (useradd, chpasswd); run the tests as root")
	}
	for _, tool := range []string{"useradd", "userdel", "chpasswd"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("password authentication needs a local user with a known password: %s is not available (package passwd)", tool)
		}
	}
	name := "rocessh" + strings.ToLower(rand.Text()[:6])
	if out, err := exec.Command("useradd", "-M", "-d", "/nonexistent", "-s", "/bin/sh", name).CombinedOutput(); err != nil {
		t.Fatalf("useradd: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("userdel", name).CombinedOutput(); err != nil {
			t.Errorf("userdel %s: %v: %s", name, err, out)
		}
	})
	cmd := exec.Command("chpasswd")
	cmd.Stdin = strings.NewReader(name + ":" + password + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chpasswd: %v: %s", err, out)
	}
	return name
}

// TestJumpHostGetsOnlyItsOwnCredentials: a bastion is offered its own key and the agent,
// never the key or the password meant for the hosts, even when it would accept them.
func TestJumpHostGetsOnlyItsOwnCredentials(t *testing.T) {
	t.Run("the hosts' key", func(t *testing.T) {
		hostKey, hostPEM := newKey(t)
		bastion := startServer(t, serverOptions{authorizedKeys: []xssh.PublicKey{hostKey.PublicKey()}, forwarding: true})
		target := startServer(t, serverOptions{authorizedKeys: []xssh.PublicKey{hostKey.PublicKey()}})
		cfg := Config{
			User: currentUser(t), PrivateKey: string(hostPEM), KnownHostsFile: knownHostsFile(t, target.knownLine()),
			Jumps: []Hop{{Address: bastion.addr, HostKey: bastion.authorizedKey()}},
		}
		p, err := NewPool(cfg)
		if err == nil {
			defer p.Close()
			_, runErr := p.Client(target.addr).Run(testContext(t), "true", RunOptions{})
			t.Fatalf("NewPool with a key-less jump host succeeded (a Run through it: %v), want an error: the bastion must not get the hosts' key", runErr)
		}
		for _, want := range []string{"jump 1", "no credentials of its own"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("NewPool error %q does not mention %q", err, want)
			}
		}
	})

	// The bastion takes the hosts' password; the agent holds a key that it refuses.
	name, password := testUser(t)
	agentKey, agentSock := startAgent(t)
	for _, tt := range []struct {
		name         string
		agentAllowed bool   // the bastion authorizes the agent's key
		hopUser      string // empty: the hosts' user
	}{
		{"the hosts' password", false, ""},
		// As root: sshd reads the test servers' authorized_keys as the user logging in.
		{"the agent, which works", true, currentUser(t)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := serverOptions{password: true, forwarding: true}
			if tt.agentAllowed {
				opts.authorizedKeys = []xssh.PublicKey{agentKey}
			}
			bastion := startServer(t, opts)
			target := startServer(t, serverOptions{password: true})
			cfg := Config{
				User: name, Password: password, UseAgent: true, AgentSocket: agentSock,
				KnownHostsFile: knownHostsFile(t, target.knownLine(), bastion.knownLine()),
				Jumps:          []Hop{{Address: bastion.addr, User: tt.hopUser}},
			}
			res, err := newTestPool(t, cfg).Client(target.addr).Run(testContext(t), "echo via", RunOptions{})
			if tt.agentAllowed {
				if err != nil || string(res.Stdout) != "via\n" {
					t.Fatalf("Run through the bastion = %q, %v; want via", res.Stdout, err)
				}
			} else {
				var ce *ConnectError
				if !errors.As(err, &ce) || ce.Via != bastion.addr || !strings.Contains(err.Error(), "unable to authenticate") {
					t.Fatalf("Run = %v, want a *ConnectError: the bastion refuses the agent's key and must not be sent the password", err)
				}
			}
			if log := bastion.log.String(); strings.Contains(log, "password for") {
				t.Errorf("the bastion was sent the hosts' password:\n%s", log)
			}
		})
	}
}

// TestKeyboardInteractiveAnswersOnlyPasswordPrompts: the password answers the prompts that
// ask for it, unechoed, and nothing else; any other prompt fails the authentication.
func TestKeyboardInteractiveAnswersOnlyPasswordPrompts(t *testing.T) {
	const pw = "pw-7f3c-secret"
	methods, done, err := (&auth{password: pw}).methods(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	var challenge xssh.KeyboardInteractiveChallenge
	for _, m := range methods {
		if c, ok := m.(xssh.KeyboardInteractiveChallenge); ok {
			challenge = c
		}
	}
	if challenge == nil {
		t.Fatal("no keyboard-interactive method with a password")
	}
	tests := []struct {
		name      string
		questions []string
		echos     []bool
		want      []string // nil: an error
	}{
		{"PAM's password prompt", []string{"Password: "}, []bool{false}, []string{pw}},
		{"sshd's own", []string{"rocessh@host's password: "}, []bool{false}, []string{pw}},
		{"any case", []string{"PASSWORD:"}, []bool{false}, []string{pw}},
		{"informational round", []string{}, []bool{}, []string{}},
		{"one-time code", []string{"Verification code: "}, []bool{false}, nil},
		{"password, then a one-time code", []string{"Password: ", "OTP: "}, []bool{false, false}, nil},
		{"echoed", []string{"Password (will be shown): "}, []bool{true}, nil},
		{"a question", []string{"Do you accept the terms? "}, []bool{true}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := challenge("", "", tt.questions, tt.echos)
			if tt.want == nil {
				if err == nil {
					t.Fatalf("answers = %q, want an error: the prompt does not ask for the password", got)
				}
				if strings.Contains(err.Error(), pw) {
					t.Errorf("error %q contains the password", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("challenge: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("answers (-want +got):\n%s", diff)
			}
		})
	}
}

func newEncryptedKey(t *testing.T, passphrase string) ([]byte, xssh.PublicKey) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := xssh.MarshalPrivateKeyWithPassphrase(priv, "enc", []byte(passphrase))
	if err != nil {
		t.Fatal(err)
	}
	s, err := xssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(block), s.PublicKey()
}

func mustKey(t *testing.T) xssh.Signer { s, _ := newKey(t); return s }

func mustKeyPEM(t *testing.T) []byte { _, p := newKey(t); return p }

// certFileFor writes a user certificate for key, signed by a fresh CA.
func certFileFor(t *testing.T, key xssh.Signer) string {
	ca, _ := newKey(t)
	path := filepath.Join(t.TempDir(), "cert.pub")
	writeFile(t, path, xssh.MarshalAuthorizedKey(signCert(t, ca, key.PublicKey(), xssh.UserCert, []string{"u"})), 0o644)
	return path
}

// startAgent serves an in-memory ssh-agent holding one fresh key on a unix
// socket, until the test ends.
func startAgent(t *testing.T) (xssh.PublicKey, string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keyring := agent.NewKeyring()
	if err := keyring.Add(agent.AddedKey{PrivateKey: priv}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				_ = agent.ServeAgent(keyring, c)
			}()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		wg.Wait()
	})
	signer, err := xssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return signer.PublicKey(), sock
}

// TestCheckKeys: Check parses inline keys (decrypting them with the passphrase) and pinned
// host keys as NewPool does, and says so without repeating the key.
func TestCheckKeys(t *testing.T) {
	plain := string(mustKeyPEM(t))
	encrypted, pub := newEncryptedKey(t, "s3cret")
	for _, tt := range []struct {
		name, key, passphrase string
		wantErr               string
	}{
		{"plain", plain, "", ""},
		{"encrypted", string(encrypted), "s3cret", ""},
		{"no passphrase", string(encrypted), "", "no passphrase is set"},
		{"not a key", "not a key", "", "no key found"},
	} {
		errs := Config{User: "u", PrivateKey: tt.key, Passphrase: tt.passphrase}.Check()
		if tt.wantErr == "" {
			if len(errs) != 0 {
				t.Errorf("%s: Check = %v, want nothing", tt.name, errs)
			}
			continue
		}
		if len(errs) != 1 || errs[0].Rule != RulePrivateKey || errs[0].Field != "PrivateKey" ||
			errs[0].Err == nil || !strings.Contains(errs[0].Err.Error(), tt.wantErr) {
			t.Errorf("%s: Check = %v, want one RulePrivateKey error with %q", tt.name, errs, tt.wantErr)
			continue
		}
		if strings.Contains(errs[0].Error(), tt.key) {
			t.Errorf("%s: the error repeats the key: %v", tt.name, errs[0])
		}
	}
	line := strings.TrimSpace(string(xssh.MarshalAuthorizedKey(pub)))
	for key, ok := range map[string]bool{line: true, "cert-authority " + line: true, "ssh-ed25519 AAAAC3Nz": false} {
		errs := Config{User: "u", Password: "pw", HostKey: key}.Check()
		if got := len(errs) == 0; got != ok || !ok && (errs[0].Rule != RuleHostKey || errs[0].Err == nil) {
			t.Errorf("Check with HostKey %q = %v", key, errs)
		}
	}
}
