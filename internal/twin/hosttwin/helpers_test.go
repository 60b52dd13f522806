package hosttwin

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// requireTwins fails the test where twins cannot run (not Linux, not root, no sshd), with
// the reason: the suite is meant to run as root after `make tools` installed sshd.
func requireTwins(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs host twins: left out of the fast tier (-short, make unit); make test runs it")
	}
	if err := preflight(); err != nil {
		t.Fatalf("host twins cannot run here: %v (run the tests as root after make tools)", err)
	}
}

// startFleet starts a fleet for the test and stops it at cleanup.
func startFleet(t *testing.T, opts Options) *Fleet {
	t.Helper()
	requireTwins(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := f.Stop(context.Background()); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return f
}

// clientConfig is how a careful client connects to h: its key, and host
// keys checked against its known_hosts file.
func clientConfig(t *testing.T, h Host) *ssh.ClientConfig {
	t.Helper()
	pem, err := os.ReadFile(h.PrivateKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(pem)
	if err != nil {
		t.Fatalf("parse %s: %v", h.PrivateKeyFile, err)
	}
	check, err := knownhosts.New(h.KnownHostsFile)
	if err != nil {
		t.Fatalf("known_hosts %s: %v", h.KnownHostsFile, err)
	}
	return &ssh.ClientConfig{
		User:              h.User,
		Auth:              []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback:   check,
		HostKeyAlgorithms: []string{ssh.KeyAlgoED25519},
		Timeout:           5 * time.Second,
	}
}

// dial connects to h as a careful client would.
func dial(t *testing.T, h Host) *ssh.Client {
	t.Helper()
	c, err := ssh.Dial("tcp", h.Address, clientConfig(t, h))
	if err != nil {
		t.Fatalf("dial %s at %s: %v", h.Name, h.Address, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// sshRun runs cmd in a new session on c and returns its stdout; it fails
// the test on error.
func sshRun(t *testing.T, c *ssh.Client, cmd string) string {
	t.Helper()
	out, err := sshOutput(c, cmd)
	if err != nil {
		t.Fatalf("run %q: %v", cmd, err)
	}
	return out
}

// sshOutput runs cmd in a new session on c.
func sshOutput(c *ssh.Client, cmd string) (string, error) {
	s, err := c.NewSession()
	if err != nil {
		return "", err
	}
	defer s.Close()
	var stdout, stderr bytes.Buffer
	s.Stdout, s.Stderr = &stdout, &stderr
	if err := s.Run(cmd); err != nil {
		return stdout.String(), errors.Join(err, errors.New(stderr.String()))
	}
	return stdout.String(), nil
}

// leftovers describes what of a stopped fleet is still on the machine:
// processes with the recorded PIDs or whose mount table has one of the
// fleet's root overlays, mounts of those overlays or under the state
// directory in any process's mount table, and the state directory itself.
type leftovers struct {
	processes []string
	mounts    []string
	stateDir  bool
}

// snapshot is what a running fleet looks like from outside, recorded
// before Stop to check against afterwards. Namespace numbers are not in
// it: a later twin may get the same number.
type snapshot struct {
	stateDir string
	pids     map[int]uint64 // pid → start time
	markers  []string       // sources of the root overlays
}

func takeSnapshot(t *testing.T, f *Fleet) snapshot {
	t.Helper()
	s := snapshot{stateDir: f.StateDir(), pids: map[int]uint64{}}
	for _, tw := range f.twins {
		tw.mu.Lock()
		if tw.pid != 0 {
			s.pids[tw.pid] = tw.start
			s.markers = append(s.markers, tw.marker)
		}
		tw.mu.Unlock()
	}
	return s
}

func (s snapshot) leftovers(t *testing.T) leftovers {
	t.Helper()
	var l leftovers
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		desc := e.Name() + " " + strings.TrimSpace(string(comm))
		if start, ok := s.pids[pid]; ok && sameProcess(pid, start) {
			l.processes = append(l.processes, desc+" (recorded pid)")
		}
		mi, err := os.ReadFile(filepath.Join("/proc", e.Name(), "mountinfo"))
		if err != nil {
			continue
		}
		for _, m := range s.markers {
			if hasMountSource(mi, m) {
				l.processes = append(l.processes, desc+" (sees "+m+")")
			}
		}
		for _, line := range strings.Split(string(mi), "\n") {
			if strings.Contains(line, s.stateDir) {
				l.mounts = append(l.mounts, "pid "+e.Name()+": "+line)
			}
		}
	}
	_, err = os.Stat(s.stateDir)
	l.stateDir = err == nil
	return l
}

// requireClean fails the test if anything of the fleet is left.
func (s snapshot) requireClean(t *testing.T, wantStateDir bool) {
	t.Helper()
	l := s.leftovers(t)
	if len(l.processes) > 0 {
		t.Errorf("processes left after Stop:\n%s", strings.Join(l.processes, "\n"))
	}
	if len(l.mounts) > 0 {
		t.Errorf("mounts left after Stop:\n%s", strings.Join(l.mounts, "\n"))
	}
	if l.stateDir != wantStateDir {
		t.Errorf("state dir %s exists = %v after Stop, want %v", s.stateDir, l.stateDir, wantStateDir)
	}
}

// listenLoopback listens on 127.0.0.1:port.
func listenLoopback(port int) (net.Listener, error) {
	return net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
}

// fakeAddr is a net.Addr for host key callbacks.
type fakeAddr string

func (a fakeAddr) Network() string { return "tcp" }
func (a fakeAddr) String() string  { return string(a) }
