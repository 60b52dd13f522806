package host

import (
	"context"
	"os"
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
	kernelOnly     = NewFactSet(FactKernel)
	kernelAndFile  = NewFactSet(FactKernel).WithFiles("/etc/hostname")
	somethingWrite = WriteFile{Path: "/tmp/x", Content: []byte("x\n"), Mode: 0o644}
)

func cachedEngine(c *FactCache, r Runner) Engine {
	return Engine{Runner: c.Runner(r), Cache: c}
}

func TestFactCacheServesCoveredRequestsFromOneGather(t *testing.T) {
	ctx := context.Background()
	c := NewFactCache(time.Minute)
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
	if _, err := e.Read(ctx, NewFactSet(FactKernel).WithFiles("/etc/passwd")); err != nil {
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

func TestFactCacheLearnsWhatOtherHostsNeeded(t *testing.T) {
	ctx := context.Background()
	c := NewFactCache(time.Minute)
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

func TestFactCacheForgetsAHostOnWriteAndWithAge(t *testing.T) {
	ctx := context.Background()
	c := NewFactCache(time.Minute)
	r := newTally("h1:22")
	e := cachedEngine(c, r)
	read := func() {
		t.Helper()
		if _, err := e.Read(ctx, kernelOnly); err != nil {
			t.Fatal(err)
		}
	}
	read()
	if err := e.Runner.WriteFile(ctx, "/etc/x", nil, 0o644, "", false); err != nil {
		t.Fatal(err)
	}
	read()
	if got := r.runs.Load(); got != 2 {
		t.Errorf("after a file write: %d gathers, want 2", got)
	}
	if _, err := e.Runner.Run(ctx, shell.New("true"), ssh.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	read()
	if got := r.runs.Load(); got != 4 { // the command itself and a new gather
		t.Errorf("after a command: %d runs, want 4", got)
	}
	now := time.Now()
	c.now = func() time.Time { return now.Add(2 * time.Minute) }
	read()
	if got := r.runs.Load(); got != 5 {
		t.Errorf("after maxAge: %d runs, want 5", got)
	}
	// Another host's write leaves this host's facts alone.
	other := cachedEngine(c, newTally("h2:22"))
	if err := other.Runner.WriteFile(ctx, "/etc/x", nil, 0o644, "", false); err != nil {
		t.Fatal(err)
	}
	read()
	if got := r.runs.Load(); got != 5 {
		t.Errorf("a write to another host made this one gather again: %d runs, want 5", got)
	}
}

func TestFactCacheApplyRereadsAfterItsWrites(t *testing.T) {
	ctx := context.Background()
	c := NewFactCache(time.Minute)
	r := newTally("h1:22")
	e := cachedEngine(c, r)
	if _, err := e.Read(ctx, kernelOnly); err != nil {
		t.Fatal(err)
	}
	rep, err := e.Apply(ctx, []Task{&writeOnce{}})
	if err != nil {
		t.Fatal(err)
	}
	// The apply's first gather came from the cache; the write (a command here) made it
	// forget, so the verification gathered again: 2 round trips, 3 commands with the read.
	if rep.RoundTrips != 2 || r.runs.Load() != 3 {
		t.Errorf("apply: %d round trips, %d commands in all; want 2 and 3", rep.RoundTrips, r.runs.Load())
	}
}

// writeOnce plans one file write, then nothing.
type writeOnce struct{ plans int }

func (w *writeOnce) Name() string   { return "write-once" }
func (w *writeOnce) Needs() FactSet { return kernelOnly }
func (w *writeOnce) Plan(Facts) ([]Change, error) {
	w.plans++
	if w.plans > 1 {
		return nil, nil
	}
	return []Change{{Summary: "write", Apply: somethingWrite}}, nil
}

func TestFactCacheJoinsAGatherInFlight(t *testing.T) {
	ctx := context.Background()
	c := NewFactCache(time.Minute)
	r := newTally("h1:22")
	r.holdGathering = make(chan struct{})
	e := cachedEngine(c, r)
	var wg sync.WaitGroup
	errs := make([]error, 5)
	for i := range errs {
		wg.Go(func() { _, errs[i] = e.Read(ctx, kernelOnly) })
	}
	for r.runs.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // let the others queue behind the first
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
