package ssh

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	xssh "golang.org/x/crypto/ssh"
)

func TestConcurrentRunsShareOneConnection(t *testing.T) {
	tests := []struct {
		name        string
		sshdMax     int
		poolMax     int
		concurrency int
	}{
		{"default pool limit under sshd's 10", 10, 0, 100},
		{"pool limit equal to sshd's", 10, 10, 100},
		{"small limits", 2, 2, 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, serverOptions{maxSessions: tt.sshdMax})
			f.cfg.MaxSessions = tt.poolMax
			p := newTestPool(t, f.cfg)
			c := p.Client(f.srv.addr)
			ctx := testContext(t)

			var wg sync.WaitGroup
			errs := make([]error, tt.concurrency)
			outs := make([]string, tt.concurrency)
			for i := range tt.concurrency {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, err := c.Run(ctx, fmt.Sprintf("echo %d", i), RunOptions{})
					errs[i], outs[i] = err, string(res.Stdout)
				}()
			}
			wg.Wait()
			for i := range tt.concurrency {
				if errs[i] != nil {
					t.Errorf("Run %d: %v", i, errs[i])
				} else if want := strconv.Itoa(i) + "\n"; outs[i] != want {
					t.Errorf("Run %d output = %q, want %q", i, outs[i], want)
				}
			}
			want := HostStats{Dials: 1, Sessions: int64(tt.concurrency), Connected: true}
			if diff := cmp.Diff(want, hostCount(p, f.srv.addr)); diff != "" {
				t.Errorf("Stats mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRedialAfterServerRestart(t *testing.T) {
	f := newFixture(t, serverOptions{})
	f.cfg.Retries = 20 // ~ backoff up to several seconds: enough for the restart
	p := newTestPool(t, f.cfg)
	c := p.Client(f.srv.addr)
	mustRun(t, c, "true")

	f.srv.kill()
	// The connection is dead; sshd comes back on the same port once the client has failed to
	// redial twice.
	restarted := make(chan struct{})
	go func() {
		defer close(restarted)
		waitFor(t, 20*time.Second, "two failed redials", func() bool { return hostCount(p, f.srv.addr).DialFailures >= 2 })
		f.srv.start()
	}()
	got, err := c.Run(testContext(t), "echo back", RunOptions{})
	<-restarted
	if err != nil {
		t.Fatalf("Run after restart: %v", err)
	}
	if string(got.Stdout) != "back\n" {
		t.Errorf("Stdout = %q", got.Stdout)
	}
	s := hostCount(p, f.srv.addr)
	if s.Dials < 2 || s.Dials-s.DialFailures != 2 {
		t.Errorf("Stats = %+v, want 2 successful dials (first and redial) and retries while sshd was down", s)
	}
}

func TestKeepAliveDropsDeadConnection(t *testing.T) {
	f := newFixture(t, serverOptions{})
	f.cfg.KeepAlive = 100 * time.Millisecond
	p := newTestPool(t, f.cfg)
	c := p.Client(f.srv.addr)
	mustRun(t, c, "true")
	if !hostCount(p, f.srv.addr).Connected {
		t.Fatal("not connected after Run")
	}
	f.srv.kill()
	waitFor(t, 5*time.Second, "the dead connection to leave the pool", func() bool { return !hostCount(p, f.srv.addr).Connected })
	f.srv.start()
	mustRun(t, c, "true")
	if got := hostCount(p, f.srv.addr).Dials; got != 2 {
		t.Errorf("Dials = %d, want 2", got)
	}
}

func TestDialRetriesStopWithContext(t *testing.T) {
	f := newFixture(t, serverOptions{})
	f.srv.kill() // nothing listens on the port any more
	f.cfg.Retries = 1000
	p := newTestPool(t, f.cfg)

	ctx, cancel := context.WithTimeout(testContext(t), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := p.Client(f.srv.addr).Run(ctx, "true", RunOptions{})
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Errorf("Run returned after %s, want about 1.5s", elapsed)
	}
	var ce *ConnectError
	if !errors.As(err, &ce) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run = %v, want a *ConnectError ending with the context", err)
	}
	if !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("error %q does not say why the connection failed", err)
	}
	if got := hostCount(p, f.srv.addr).Dials; got < 2 {
		t.Errorf("Dials = %d, want retries", got)
	}
}

func TestRetriesAreBounded(t *testing.T) {
	f := newFixture(t, serverOptions{})
	f.srv.kill()
	tests := []struct {
		retries   int
		wantDials int64
	}{
		{-1, 1},
		{2, 3},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.retries), func(t *testing.T) {
			cfg := f.cfg
			cfg.Retries = tt.retries
			p := newTestPool(t, cfg)
			if _, err := p.Client(f.srv.addr).Run(testContext(t), "true", RunOptions{}); err == nil {
				t.Fatal("Run succeeded with no server")
			}
			if got := hostCount(p, f.srv.addr).Dials; got != tt.wantDials {
				t.Errorf("Dials = %d, want %d", got, tt.wantDials)
			}
		})
	}
}

func TestConcurrentFirstCallersShareOneFailedDial(t *testing.T) {
	f := newFixture(t, serverOptions{})
	f.srv.kill()
	f.cfg.Retries = -1
	p := newTestPool(t, f.cfg)
	c := p.Client(f.srv.addr)
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Run(testContext(t), "true", RunOptions{}); err == nil {
				t.Error("Run succeeded with no server")
			}
		}()
	}
	wg.Wait()
	// Callers that waited for a dial take its error instead of dialling
	// again; only callers arriving after a failure dial anew.
	if got := hostCount(p, f.srv.addr).Dials; got >= 20 {
		t.Errorf("Dials = %d for 20 concurrent callers, want them to share dials", got)
	}
}

func TestJumpHost(t *testing.T) {
	user := currentUser(t)
	hopKey, hopPEM := newKey(t)
	hostKey, hostPEM := newKey(t)
	bastion := startServer(t, serverOptions{authorizedKeys: []xssh.PublicKey{hopKey.PublicKey()}, forwarding: true})
	bastion2 := startServer(t, serverOptions{authorizedKeys: []xssh.PublicKey{hostKey.PublicKey()}, forwarding: true})
	target := startServer(t, serverOptions{authorizedKeys: []xssh.PublicKey{hostKey.PublicKey()}})
	noForward := startServer(t, serverOptions{authorizedKeys: []xssh.PublicKey{hopKey.PublicKey()}})

	tests := []struct {
		name  string
		jumps []Hop
		want  string // error substring; empty: success
	}{
		{"one bastion with its own key and pinned host key", []Hop{
			{Address: bastion.addr, PrivateKey: string(hopPEM), HostKey: bastion.authorizedKey()},
		}, ""},
		{"two bastions, the second with the hosts' key given as its own and known_hosts", []Hop{
			{Address: bastion.addr, PrivateKey: string(hopPEM), HostKey: bastion.authorizedKey()},
			{Address: bastion2.addr, User: user, PrivateKey: string(hostPEM), KnownHostsFile: knownHostsFile(t, bastion2.knownLine())},
		}, ""},
		{"bastion with a wrong pinned key", []Hop{
			{Address: bastion.addr, PrivateKey: string(hopPEM), HostKey: target.authorizedKey()},
		}, "does not match the pinned host key"},
		{"bastion without forwarding", []Hop{
			{Address: noForward.addr, PrivateKey: string(hopPEM), HostKey: noForward.authorizedKey()},
		}, "administratively prohibited"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{
				User:           user,
				PrivateKey:     string(hostPEM),
				KnownHostsFile: knownHostsFile(t, target.knownLine()),
				Jumps:          tt.jumps,
			}
			p := newTestPool(t, cfg)
			c := p.Client(target.addr)
			var wg sync.WaitGroup
			errs := make([]error, 20)
			for i := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = c.Run(testContext(t), "echo via", RunOptions{})
				}()
			}
			wg.Wait()
			if tt.want != "" {
				var ce *ConnectError
				if !errors.As(errs[0], &ce) || ce.Via != tt.jumps[0].Address || !strings.Contains(errs[0].Error(), tt.want) {
					t.Fatalf("Run = %v, want a *ConnectError via %s containing %q", errs[0], tt.jumps[0].Address, tt.want)
				}
				return
			}
			for i, err := range errs {
				if err != nil {
					t.Fatalf("Run %d: %v", i, err)
				}
			}
			stats := p.Stats()
			for _, hop := range tt.jumps {
				if got := stats[hop.Address].Dials; got != 1 {
					t.Errorf("Dials to jump host %s = %d, want 1", hop.Address, got)
				}
			}
			if got := stats[target.addr]; got.Dials != 1 || got.Sessions != 20 {
				t.Errorf("target stats = %+v, want 1 dial and 20 sessions", got)
			}
		})
	}
}

func TestPoolClose(t *testing.T) {
	f := newFixture(t, serverOptions{})
	p := newTestPool(t, f.cfg)
	c := p.Client(f.srv.addr)
	mustRun(t, c, "true")

	ctx := testContext(t)
	running := make(chan error, 1)
	go func() {
		_, err := c.Run(ctx, "sleep 36", RunOptions{})
		running <- err
	}()
	// The Run is in progress once its session is open (the first was mustRun's).
	waitFor(t, 10*time.Second, "the second session", func() bool { return hostCount(p, f.srv.addr).Sessions >= 2 })
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-running:
		if err == nil {
			t.Error("Run in progress succeeded across Close")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run in progress did not end after Close")
	}
	if _, err := c.Run(ctx, "true", RunOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close = %v, want ErrClosed", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestNoGoroutineLeft(t *testing.T) {
	f := newFixture(t, serverOptions{})
	f.cfg.KeepAlive = 50 * time.Millisecond
	before := runtime.NumGoroutine()

	p, err := NewPool(f.cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := p.Client(f.srv.addr)
	mustRun(t, c, "true")
	ctx, cancel := context.WithTimeout(testContext(t), 200*time.Millisecond)
	_, _ = c.Run(ctx, "sleep 35", RunOptions{})
	cancel()
	if err := c.WriteFile(testContext(t), filepath.Join(t.TempDir(), "f"), []byte("x"), 0o644, "", false); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // a few keepalives
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}

	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines after Close, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
