package ssh

import (
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh/knownhosts"
)

// TestWriteFileNeverExposesTheTemporaryFile: with an sftp-server whose umask
// would create files 0644, no file of a 0600 write is ever readable by group
// or others, from the temporary file's creation on: whoever opened it then
// could read the secret written into it later.
//
// The client reaches sshd through a gate that checks the target directory
// before it passes on each chunk the server sends. sftp-server creates the
// file before it answers, and the client sends its next request (the chmod)
// only once it has the answer, so the check sees the file as it was created,
// every time.
func TestWriteFileNeverExposesTheTemporaryFile(t *testing.T) {
	f := newSudoFixture(t, false)
	f.srv.setSFTPFlags(t, "-u 022")
	var watch exposureWatch
	gate := startGate(t, f.srv.addr, watch.check)
	cfg := f.cfg
	cfg.Become = Become{Password: sudoPassword}
	cfg.KnownHostsFile = knownHostsFile(t, knownhosts.Line([]string{gate}, f.srv.hostKey.PublicKey()))
	c := newTestPool(t, cfg).Client(gate)

	for _, wp := range writePaths {
		t.Run(wp.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "secret")
			secret := []byte("password=hunter2\n")
			watch.start(dir)
			err := c.WriteFile(testContext(t), path, secret, 0o600, "", wp.sudo)
			exposed, temps := watch.stop()
			if err != nil {
				t.Fatalf("WriteFile: %v", err)
			}
			for _, e := range exposed {
				t.Errorf("readable by group or others while the server answered: %s", e)
			}
			// The shell writes without waiting for the client; only SFTP is in step with it.
			if !wp.sudo && temps == 0 {
				t.Error("the gate never saw the temporary file: the check did not run")
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != string(secret) {
				t.Errorf("file = %q, %v", got, err)
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode() != 0o600 {
				t.Errorf("mode = %v, %v; want 0600", fi.Mode(), err)
			}
			assertNoTemp(t, dir)
		})
	}
}

// setSFTPFlags restarts s with its sftp subsystem started as
// "internal-sftp FLAGS".
func (s *testServer) setSFTPFlags(t *testing.T, flags string) {
	t.Helper()
	cfg, err := os.ReadFile(s.cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	const line = "Subsystem sftp internal-sftp\n"
	if !strings.Contains(string(cfg), line) {
		t.Fatalf("%s has no line %q", s.cfgPath, line)
	}
	writeFile(t, s.cfgPath, []byte(strings.Replace(string(cfg), line, "Subsystem sftp internal-sftp "+flags+"\n", 1)), 0o600)
	s.kill()
	s.start()
}

// exposureWatch records the files under a directory that group or others can
// read each time check runs.
type exposureWatch struct {
	mu      sync.Mutex
	root    string
	temps   int // checks that found a temporary file or staging directory
	exposed []string
}

func (w *exposureWatch) start(root string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.root, w.temps, w.exposed = root, 0, nil
}

func (w *exposureWatch) stop() (exposed []string, temps int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.root = ""
	return w.exposed, w.temps
}

func (w *exposureWatch) check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.root == "" {
		return
	}
	sawTemp := false
	// Entries vanish while the server renames: errors are skipped.
	_ = filepath.WalkDir(w.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil //nolint:nilerr // an entry renamed away mid-walk is skipped, not a failure
		}
		sawTemp = sawTemp || strings.Contains(d.Name(), ".tmp-")
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			if chain, ok := readableByOthers(w.root, p, fi.Mode()); ok {
				w.exposed = append(w.exposed, chain)
			}
		}
		return nil
	})
	if sawTemp {
		w.temps++
	}
}

// readableByOthers reports whether group or others can read the file p of
// mode: read permission on it and search permission on every directory from
// root down to it. The string shows the modes on the way.
func readableByOthers(root, p string, mode os.FileMode) (string, bool) {
	chain := fmt.Sprintf("%s %v", p, mode)
	for _, class := range []struct{ read, search os.FileMode }{{0o040, 0o010}, {0o004, 0o001}} {
		ok := mode&class.read != 0
		for d := filepath.Dir(p); ok; d = filepath.Dir(d) {
			fi, err := os.Lstat(d)
			if err != nil {
				return "", false
			}
			ok = fi.Mode()&class.search != 0
			chain += fmt.Sprintf(" in %s %v", d, fi.Mode())
			if d == root {
				break
			}
		}
		if ok {
			return chain, true
		}
	}
	return "", false
}

// startGate starts a TCP proxy to addr that calls check before it passes on
// each chunk the server sends, and returns its address.
func startGate(t *testing.T, addr string, check func()) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu     sync.Mutex
		conns  []net.Conn
		closed bool
		wg     sync.WaitGroup
	)
	keep := func(c ...net.Conn) bool {
		mu.Lock()
		defer mu.Unlock()
		conns = append(conns, c...)
		return !closed
	}
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		closed = true
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			client, err := l.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", addr)
			if err != nil {
				_ = client.Close()
				continue
			}
			if !keep(client, server) {
				_ = client.Close()
				_ = server.Close()
				return
			}
			wg.Add(2)
			go func() {
				defer wg.Done()
				_, _ = io.Copy(server, client)
				_ = server.Close()
			}()
			go func() {
				defer wg.Done()
				defer client.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := server.Read(buf)
					if n > 0 {
						check()
						if _, werr := client.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}
