package host

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// tallyRunner counts what reaches the local "host" and can pose as any address.
type tallyRunner struct {
	localRunner
	addr          string
	runs, writes  *atomic.Int32 // commands, file writes
	holdGathering chan struct{} // when set, a run waits for it to close
}

func newTally(addr string) tallyRunner {
	return tallyRunner{addr: addr, runs: new(atomic.Int32), writes: new(atomic.Int32)}
}

func (r tallyRunner) Address() string { return r.addr }

func (r tallyRunner) Run(ctx context.Context, cmd shell.Runnable, opts ssh.RunOptions) (ssh.Result, error) {
	r.runs.Add(1)
	if r.holdGathering != nil {
		<-r.holdGathering
	}
	return r.localRunner.Run(ctx, cmd, opts)
}

func (r tallyRunner) WriteFile(context.Context, string, []byte, os.FileMode, string, bool) error {
	r.writes.Add(1)
	return nil
}

var (
	kernelOnly    = WantFacts(FactKernel)
	kernelAndFile = WantFacts(FactKernel).WithFiles("/etc/hostname")
)

func cachedEngine(c *GatherCache, r Runner) Engine {
	return Engine{Runner: c.Runner(r), Cache: c}
}

func TestGatherCacheServesCoveredRequestsFromOneGather(t *testing.T) {
	ctx := context.Background()
	c := NewGatherCache(time.Minute)
	r := newTally("h1:22")
	e := cachedEngine(c, r)
	if _, err := e.Read(ctx, kernelAndFile); err != nil {
		t.Fatal(err)
	}
	f, err := e.Read(ctx, kernelOnly)
	if err != nil {
		t.Fatal(err)
	}
	if f.Kernel.Release == "" {
		t.Errorf("cached facts lack the kernel: %+v", f.Kernel)
	}
	if got := r.runs.Load(); got != 1 {
		t.Errorf("two covered reads ran %d commands, want 1", got)
	}
	// A request the cache does not cover gathers again, with what was asked before.
	if _, err := e.Read(ctx, WantFacts(FactKernel).WithFiles("/etc/passwd")); err != nil {
		t.Fatal(err)
	}
	if got := r.runs.Load(); got != 2 {
		t.Errorf("an uncovered read: %d commands in all, want 2", got)
	}
	if _, err := e.Read(ctx, kernelAndFile); err != nil {
		t.Fatal(err)
	}
	if got := r.runs.Load(); got != 2 {
		t.Errorf("the widened gather did not keep the earlier file: %d commands, want 2", got)
	}
}

func TestGatherCacheLearnsWhatOtherHostsNeeded(t *testing.T) {
	ctx := context.Background()
	c := NewGatherCache(time.Minute)
	h1, h2 := newTally("h1:22"), newTally("h2:22")
	if _, err := cachedEngine(c, h1).Read(ctx, kernelAndFile); err != nil {
		t.Fatal(err)
	}
	e2 := cachedEngine(c, h2)
	if _, err := e2.Read(ctx, kernelOnly); err != nil {
		t.Fatal(err)
	}
	if _, err := e2.Read(ctx, kernelAndFile); err != nil {
		t.Fatal(err)
	}
	if got := h2.runs.Load(); got != 1 {
		t.Errorf("host 2: %d gathers, want 1 (its first gather should read what host 1 needed)", got)
	}
}

func TestGatherCacheForgetsWhatAChangeMayHaveChanged(t *testing.T) {
	ctx := context.Background()
	c := NewGatherCache(time.Minute)
	r := newTally("h1:22")
	e := cachedEngine(c, r)
	read := func(want Want, runs int32, after string) Facts {
		t.Helper()
		f, err := e.Read(ctx, want)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.runs.Load(); got != runs {
			t.Errorf("after %s: %d runs in all, want %d", after, got, runs)
		}
		return f
	}
	read(kernelAndFile, 1, "the first read")
	write := func(path string) {
		t.Helper()
		if err := e.Runner.WriteFile(ctx, path, nil, 0o644, "", false); err != nil {
			t.Fatal(err)
		}
	}
	// A write to a file no other fact reads forgets that file only: the kernel still comes from
	// the cache, the file is read again on its own.
	write("/etc/hostname")
	read(kernelOnly, 1, "a write to another file")
	if f := read(kernelAndFile, 2, "a write to the file read"); f.Kernel.Release == "" || !f.Gathered.Covers(kernelAndFile) {
		t.Errorf("facts after a re-read of the file: kernel %q, gathered %s", f.Kernel.Release, f.Gathered)
	}
	read(kernelAndFile, 2, "the file was read again")
	// A write to a file a fact reads (dpkg's database, os-release) forgets the host.
	write("/etc/os-release")
	read(kernelOnly, 3, "a write to /etc/os-release")
	// So does a command.
	if _, err := e.Runner.Run(ctx, shell.New("true"), ssh.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	read(kernelOnly, 5, "a command") // the command itself and a new gather
	now := time.Now()
	c.now = func() time.Time { return now.Add(2 * time.Minute) }
	read(kernelOnly, 6, "maxAge")
	// Another host's changes leave this host's facts alone.
	other := cachedEngine(c, newTally("h2:22"))
	if _, err := other.Runner.Run(ctx, shell.New("true"), ssh.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	read(kernelAndFile, 6, "a command on another host")
}

func TestGatherCacheKeepsNoFileWrittenDuringItsGather(t *testing.T) {
	ctx := context.Background()
	c := NewGatherCache(time.Minute)
	r := newTally("h1:22")
	r.holdGathering = make(chan struct{})
	e := cachedEngine(c, r)
	done := make(chan error)
	go func() {
		_, err := e.Read(ctx, kernelAndFile)
		done <- err
	}()
	for r.runs.Load() == 0 {
		runtime.Gosched()
	}
	// The gather has started: this write lands while it runs, so what it read of the file may
	// be older than the write and must not be kept.
	if err := e.Runner.WriteFile(ctx, "/etc/hostname", nil, 0o644, "", false); err != nil {
		t.Fatal(err)
	}
	close(r.holdGathering)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := e.Read(ctx, kernelOnly); err != nil {
		t.Fatal(err)
	}
	if got := r.runs.Load(); got != 1 {
		t.Errorf("the kernel, read before the write, should come from the cache: %d runs, want 1", got)
	}
	if _, err := e.Read(ctx, kernelAndFile); err != nil {
		t.Fatal(err)
	}
	if got := r.runs.Load(); got != 2 {
		t.Errorf("the file written during the gather should be read again: %d runs, want 2", got)
	}
}

func TestGatherCacheApplyRereadsAfterItsWrites(t *testing.T) {
	ctx := context.Background()
	c := NewGatherCache(time.Minute)
	r := newTally("h1:22")
	e := cachedEngine(c, r)
	if _, err := e.Read(ctx, kernelOnly); err != nil {
		t.Fatal(err)
	}
	rep, err := e.Apply(ctx, []Task{&writeOnce{path: filepath.Join(t.TempDir(), "x")}})
	if err != nil {
		t.Fatal(err)
	}
	// The apply's first gather came from the cache; the write (a command here) made it
	// forget, so the verification gathered again: 2 round trips, 3 commands with the read.
	if rep.RoundTrips != 2 || r.runs.Load() != 3 {
		t.Errorf("apply: %d round trips, %d commands in all; want 2 and 3", rep.RoundTrips, r.runs.Load())
	}
}

// writeOnce plans one write of a file at path (in a directory only the writer can write:
// the write refuses others), then nothing.
type writeOnce struct {
	path  string
	plans int
}

func (w *writeOnce) Name() string { return "write-once" }
func (w *writeOnce) Needs() Want  { return kernelOnly }
func (w *writeOnce) Plan(Facts) ([]Change, error) {
	w.plans++
	if w.plans > 1 {
		return nil, nil
	}
	return []Change{{Summary: "write", Apply: WriteFile{Path: w.path, Content: []byte("x\n"), Mode: 0o644}}}, nil
}

// waiting returns how many requests wait for a gather in flight on host.
func (c *GatherCache) waiting(host string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.hosts[cacheKey{host, false}]; e != nil {
		return e.waiters
	}
	return 0
}

func TestGatherCacheJoinsAGatherInFlight(t *testing.T) {
	ctx := context.Background()
	c := NewGatherCache(time.Minute)
	r := newTally("h1:22")
	r.holdGathering = make(chan struct{})
	e := cachedEngine(c, r)
	var wg sync.WaitGroup
	errs := make([]error, 5)
	for i := range errs {
		wg.Go(func() { _, errs[i] = e.Read(ctx, kernelOnly) })
	}
	// The first read gathers; the others queue behind it.
	for r.runs.Load() == 0 || c.waiting("h1:22") < len(errs)-1 {
		runtime.Gosched()
	}
	close(r.holdGathering)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := r.runs.Load(); got != 1 {
		t.Errorf("5 concurrent reads ran %d gathers, want 1", got)
	}
}

// sourceRecorder keeps where each gather's answer came from.
type sourceRecorder struct {
	mu   sync.Mutex
	from []GatherSource
}

func (s *sourceRecorder) Gathered(_ context.Context, _ string, _ Want, from GatherSource, _ Facts, _ time.Duration, _ error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.from = append(s.from, from)
}

func (s *sourceRecorder) Planned(context.Context, string, string, []TaskReport) {}

func (s *sourceRecorder) take() []GatherSource {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.from
	s.from = nil
	return out
}

func TestGatherCacheTellsWhereAnAnswerCameFrom(t *testing.T) {
	ctx := context.Background()
	c := NewGatherCache(time.Minute)
	r := newTally("h1:22")
	rec := &sourceRecorder{}
	e := cachedEngine(c, r)
	e.Events = rec
	read := func(w Want) {
		t.Helper()
		if _, err := e.Read(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	read(kernelAndFile)
	read(kernelOnly)
	if err := e.Runner.WriteFile(ctx, "/etc/hostname", nil, 0o644, "", false); err != nil {
		t.Fatal(err)
	}
	read(kernelAndFile)
	if got, want := rec.take(), []GatherSource{FromHost, FromCache, FromCacheAndFiles}; !slices.Equal(got, want) {
		t.Errorf("sources = %q, want %q", got, want)
	}

	// Two reads of a host nothing is known of: one gathers, the other waits for it.
	c = NewGatherCache(time.Minute)
	r = newTally("h2:22")
	r.holdGathering = make(chan struct{})
	e = cachedEngine(c, r)
	e.Events = rec
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = e.Read(ctx, kernelOnly) })
	for r.runs.Load() == 0 {
		runtime.Gosched()
	}
	wg.Go(func() { _, _ = e.Read(ctx, kernelOnly) })
	for c.waiting("h2:22") == 0 {
		runtime.Gosched()
	}
	close(r.holdGathering)
	wg.Wait()
	got := rec.take()
	slices.Sort(got)
	if want := []GatherSource{FromGatherInFlight, FromHost}; !slices.Equal(got, want) {
		t.Errorf("concurrent sources = %q, want %q", got, want)
	}
}
