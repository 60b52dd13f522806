package ssh

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// This file starts real OpenSSH servers for the tests: sshd -D -e on
// 127.0.0.1 with a generated configuration, host key and authorized keys, run
// as the current user and killed (with every process it forked) by
// t.Cleanup.

const sshdPath = "/usr/sbin/sshd"

// serverOptions configures one test sshd.
type serverOptions struct {
	authorizedKeys []xssh.PublicKey
	hostCA         xssh.Signer    // signs a host certificate when set
	userCA         xssh.PublicKey // TrustedUserCAKeys when set
	password       bool           // PasswordAuthentication
	pam            bool           // UsePAM with keyboard-interactive
	forwarding     bool           // AllowTcpForwarding (jump host)
	maxSessions    int            // 0: 10
	setEnv         []string       // SetEnv NAME=value (no spaces)
}

// testServer is one running sshd.
type testServer struct {
	t       *testing.T
	dir     string
	port    int
	addr    string
	hostKey xssh.Signer
	cfgPath string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	log  *syncBuffer
}

// syncBuffer is a bytes.Buffer safe for the writer goroutine of exec.Cmd.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServer starts an sshd and registers its cleanup.
func startServer(t *testing.T, opts serverOptions) *testServer {
	t.Helper()
	if testing.Short() {
		t.Skip("starts OpenSSH's sshd: left out of the fast tier (-short, make unit); make test runs it")
	}
	if _, err := os.Stat(sshdPath); err != nil {
		t.Fatalf("OpenSSH server is required for these tests (apt-get install -y openssh-server): %v", err)
	}
	if os.Geteuid() == 0 {
		// sshd running as root needs its privilege separation directory.
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatalf("create /run/sshd: %v", err)
		}
	}
	dir := t.TempDir()
	s := &testServer{t: t, dir: dir, port: freePort(t), log: &syncBuffer{}}
	s.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))

	var hostPEM []byte
	s.hostKey, hostPEM = newKey(t)
	writeFile(t, filepath.Join(dir, "host_key"), hostPEM, 0o600)
	var auth bytes.Buffer
	for _, k := range opts.authorizedKeys {
		auth.Write(xssh.MarshalAuthorizedKey(k))
	}
	writeFile(t, filepath.Join(dir, "authorized_keys"), auth.Bytes(), 0o600)

	maxSessions := opts.maxSessions
	if maxSessions == 0 {
		maxSessions = 10
	}
	lines := []string{
		"ListenAddress " + s.addr,
		"HostKey " + filepath.Join(dir, "host_key"),
		"AuthorizedKeysFile " + filepath.Join(dir, "authorized_keys"),
		"StrictModes no",
		"PidFile none",
		"MaxSessions " + strconv.Itoa(maxSessions),
		"MaxStartups 100:30:200",
		"PermitRootLogin yes",
		"Subsystem sftp internal-sftp",
		"LogLevel VERBOSE",
		"PrintMotd no",
		"AllowAgentForwarding no",
		"X11Forwarding no",
	}
	lines = append(lines, "PasswordAuthentication "+yesNo(opts.password))
	lines = append(lines, "UsePAM "+yesNo(opts.pam), "KbdInteractiveAuthentication "+yesNo(opts.pam))
	lines = append(lines, "AllowTcpForwarding "+yesNo(opts.forwarding))
	if opts.hostCA != nil {
		cert := signCert(t, opts.hostCA, s.hostKey.PublicKey(), xssh.HostCert, []string{"127.0.0.1", "localhost"})
		path := filepath.Join(dir, "host_key-cert.pub")
		writeFile(t, path, xssh.MarshalAuthorizedKey(cert), 0o644)
		lines = append(lines, "HostCertificate "+path)
	}
	if opts.userCA != nil {
		path := filepath.Join(dir, "user_ca.pub")
		writeFile(t, path, xssh.MarshalAuthorizedKey(opts.userCA), 0o644)
		lines = append(lines, "TrustedUserCAKeys "+path)
	}
	if len(opts.setEnv) > 0 {
		// Only the first SetEnv line counts: one line for all.
		lines = append(lines, "SetEnv "+strings.Join(opts.setEnv, " "))
	}
	s.cfgPath = filepath.Join(dir, "sshd_config")
	writeFile(t, s.cfgPath, []byte(strings.Join(lines, "\n")+"\n"), 0o600)

	t.Cleanup(func() {
		s.kill()
		if t.Failed() {
			t.Logf("sshd %s log:\n%s", s.addr, s.log.String())
		}
	})
	s.start()
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// start (re)starts sshd on s.port and waits until it sends its banner.
func (s *testServer) start() {
	s.t.Helper()
	cmd := exec.Command(sshdPath, "-D", "-e", "-f", s.cfgPath)
	if os.Geteuid() == 0 {
		// Root's sessions run its login shell, which reads /root/.bashrc: a machine's hooks
		// there (pyenv, conda) slow every command and, when a test kills a session, leave
		// locks that stall the next ones. sshd gets its own mount namespace with an empty
		// /root, as on a fresh host; unshare and sh exec, so the pid stays sshd's.
		home := filepath.Join(s.dir, "home")
		if err := os.MkdirAll(home, 0o700); err != nil {
			s.t.Fatalf("create %s: %v", home, err)
		}
		cmd = exec.Command("unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
			`mount --bind "$0" /root && exec "$@"`, home, sshdPath, "-D", "-e", "-f", s.cfgPath)
	}
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start sshd: %v", err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()

	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-done:
			s.t.Fatalf("sshd exited at start:\n%s", s.log.String())
		default:
		}
		if banner(s.addr) {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("sshd on %s not ready after 10s:\n%s", s.addr, s.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// banner reports whether an SSH server answers on addr.
func banner(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "SSH-2.0-")
}

// kill kills sshd and every process it forked (connection handlers and
// their commands, which leave sshd's process group), then reaps it.
func (s *testServer) kill() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	pids := append(descendants(cmd.Process.Pid), cmd.Process.Pid)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.t.Errorf("sshd %d did not exit after SIGKILL", cmd.Process.Pid)
	}
}

// descendants returns the pids of all descendants of pid, read from /proc.
func descendants(pid int) []int {
	children := make(map[int][]int)
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may contain spaces and ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		t.Fatalf("free port: listener address %v is not TCP", l.Addr())
	}
	return addr.Port
}

// newKey returns a fresh ed25519 signer and its private key in OpenSSH PEM.
func newKey(t *testing.T) (xssh.Signer, []byte) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := xssh.MarshalPrivateKey(priv, "test")
	if err != nil {
		t.Fatal(err)
	}
	signer, err := xssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return signer, pem.EncodeToMemory(block)
}

// signCert returns a certificate for key signed by ca.
func signCert(t *testing.T, ca xssh.Signer, key xssh.PublicKey, certType uint32, principals []string) *xssh.Certificate {
	t.Helper()
	cert := &xssh.Certificate{
		Key:             key,
		Serial:          1,
		CertType:        certType,
		KeyId:           "test",
		ValidPrincipals: principals,
		ValidAfter:      uint64(time.Now().Add(-time.Hour).Unix()),
		ValidBefore:     xssh.CertTimeInfinity,
	}
	if certType == xssh.UserCert {
		cert.Extensions = map[string]string{"permit-pty": ""}
	}
	if err := cert.SignCert(rand.Reader, ca); err != nil {
		t.Fatalf("sign certificate: %v", err)
	}
	return cert
}

func writeFile(t *testing.T, path string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
}

// knownHostsFile writes lines to a known_hosts file and returns its path.
func knownHostsFile(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "known_hosts")
	writeFile(t, path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	return path
}

// knownLine is the known_hosts line of the server's host key.
func (s *testServer) knownLine() string {
	return knownhosts.Line([]string{s.addr}, s.hostKey.PublicKey())
}

// authorizedKey is the server's host key in authorized_keys format.
func (s *testServer) authorizedKey() string {
	return strings.TrimSpace(string(xssh.MarshalAuthorizedKey(s.hostKey.PublicKey())))
}

func currentUser(t *testing.T) string {
	t.Helper()
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	return u.Username
}

// fixture is a server that accepts one client key, and the Config to reach
// it with a known_hosts file.
type fixture struct {
	srv *testServer
	cfg Config
}

func newFixture(t *testing.T, opts serverOptions) fixture {
	t.Helper()
	signer, keyPEM := newKey(t)
	opts.authorizedKeys = append(opts.authorizedKeys, signer.PublicKey())
	srv := startServer(t, opts)
	return fixture{srv: srv, cfg: Config{
		User:           currentUser(t),
		PrivateKey:     string(keyPEM),
		KnownHostsFile: knownHostsFile(t, srv.knownLine()),
		ConnectTimeout: 10 * time.Second,
	}}
}

func newTestPool(t *testing.T, cfg Config) *Pool {
	t.Helper()
	p, err := NewPool(cfg)
	if err != nil {
		t.Fatalf("NewPool: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func hostCount(p *Pool, addr string) HostStats { return p.Stats()[addr] }

// waitFor polls cond until it holds, failing the test (from any goroutine: it calls t.Error
// and returns) after timeout.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(timeout); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("timed out after %s waiting for %s", timeout, what)
			return
		}
	}
}

func mustRun(t *testing.T, c *Client, cmd string) Result {
	t.Helper()
	res, err := c.Run(testContext(t), cmd, RunOptions{})
	if err != nil {
		t.Fatalf("Run(%q): %v", cmd, err)
	}
	return res
}

// testContext bounds every test's remote calls.
func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestServersGiveRootAnEmptyHome: the test servers do not run the machine's shell start-up
// files, whose hooks would make the tests depend on the machine.
func TestServersGiveRootAnEmptyHome(t *testing.T) {
	if testing.Short() {
		t.Skip("needs root: left out of the fast tier (-short, make unit); make test runs it")
	}
	if os.Geteuid() != 0 {
		t.Fatal("the SSH tests run as root (sshd's privilege separation, sudo)")
	}
	f := newFixture(t, serverOptions{})
	c := newTestPool(t, f.cfg).Client(f.srv.addr)
	if got := string(mustRun(t, c, `ls -A "$HOME" | wc -l`).Stdout); strings.TrimSpace(got) != "0" {
		t.Errorf("root's home in a test session holds %s entries, want none", strings.TrimSpace(got))
	}
}
