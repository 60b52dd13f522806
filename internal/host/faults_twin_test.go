package host_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/host/tasks"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin/hosttwintest"
)

// Faults in the middle of an apply: the host's sshd dies, or its network goes away. Each
// test holds the twin's modprobe (the stand-in waits) so the fault strikes while a command
// of the apply is in flight, between a file already written and one still to come.

// faultHost starts a fleet of one host in its own network namespace and a pool that gives up
// on a silent connection within a second.
func faultHost(t *testing.T, name string) (*hosttwin.Fleet, host.Engine, string) {
	t.Helper()
	f := hosttwintest.Start(t, hosttwin.Options{Hosts: []hosttwin.HostSpec{{Name: name, Profile: "cx7"}}, Network: true})
	h, _ := f.Host(name)
	pool, err := ssh.NewPool(ssh.Config{
		User: h.User, PrivateKeyFile: h.PrivateKeyFile, KnownHostsFile: h.KnownHostsFile,
		// 2 s: two missed keepalives end a connection, and on a loaded machine a 300 ms
		// interval ended healthy ones during the 2 MiB write, before any fault.
		KeepAlive: 2 * time.Second, ConnectTimeout: 2 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return f, host.Engine{Runner: host.SSH(pool.Client(h.Address))}, h.Address
}

// faultTasks write a big file, load nvidia-peermem (held), then write a second file.
func faultTasks() ([]host.Task, map[string][]byte) {
	first := bytes.Repeat([]byte("first file of the apply, written whole or not at all\n"), 40000) // ~2 MiB
	second := []byte("written after modprobe\n")
	files := map[string][]byte{"/etc/roce-fault/first.conf": first, "/etc/roce-fault/second.conf": second}
	return []host.Task{
		tasks.File{Path: "/etc/roce-fault/first.conf", Content: string(first), Mode: 0o644},
		tasks.ModuleLoaded{Module: "nvidia-peermem", Persist: true},
		tasks.File{Path: "/etc/roce-fault/second.conf", Content: string(second), Mode: 0o644},
	}, files
}

// applyWithFault runs the apply, waits until modprobe is held, strikes, releases the tool and
// returns the apply's error and how long the apply took after the fault.
func applyWithFault(t *testing.T, f *hosttwin.Fleet, e host.Engine, name string, todo []host.Task, strike func() error) (time.Duration, error) {
	t.Helper()
	if err := f.HoldTool(name, "modprobe"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := e.Apply(ctx, todo)
		done <- err
	}()
	held := make(chan error, 1)
	go func() { held <- f.WaitHeld(ctx, name, "modprobe") }()
	select {
	case err := <-held:
		if err != nil {
			t.Fatal(err)
		}
	case err := <-done:
		// The apply ended before it reached modprobe: say why, rather than wait for the hold.
		t.Fatalf("apply ended before modprobe was held: %v", err)
	}
	if err := strike(); err != nil {
		t.Fatal(err)
	}
	struck := time.Now()
	if err := f.ReleaseTool(name, "modprobe"); err != nil {
		t.Fatal(err)
	}
	err := <-done
	t.Logf("apply after the fault: %v", err)
	return time.Since(struck), err
}

// checkWhole fails unless every file of want on the host is either absent or complete, and
// returns the ones present.
func checkWhole(t *testing.T, f *hosttwin.Fleet, name string, want map[string][]byte) []string {
	t.Helper()
	root, err := f.Root(name)
	if err != nil {
		t.Fatal(err)
	}
	var present []string
	for p, content := range want {
		got, err := os.ReadFile(filepath.Join(root, p))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, content) {
			t.Errorf("%s is partly written: %d of %d bytes", p, len(got), len(content))
		}
		present = append(present, p)
	}
	return present
}

// converges applies again and requires an empty plan afterwards.
func converges(t *testing.T, e host.Engine, todo []host.Task) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.Apply(ctx, todo); err != nil {
		t.Fatalf("apply after the fault: %v", err)
	}
	rep, err := e.Plan(ctx, todo)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Changed() {
		t.Errorf("plan after converging has changes: %+v", rep.Tasks)
	}
}

func TestSSHDKilledMidApply(t *testing.T) {
	f, e, addr := faultHost(t, "midkill")
	todo, files := faultTasks()
	_, err := applyWithFault(t, f, e, "midkill", todo, func() error {
		return f.KillSSHD(context.Background(), "midkill")
	})
	if err == nil || !strings.Contains(err.Error(), addr) {
		t.Fatalf("apply with sshd killed: %v; want an error naming %s", err, addr)
	}
	var lost *host.ConnectionLostError
	if !errors.As(err, &lost) || !strings.Contains(err.Error(), "may or may not have been made") {
		t.Errorf("apply with sshd killed: %v; want a ConnectionLostError saying what the loss means", err)
	}
	if err := f.RestartSSHD(context.Background(), "midkill"); err != nil {
		t.Fatal(err)
	}
	present := checkWhole(t, f, "midkill", files)
	if len(present) != 1 || present[0] != "/etc/roce-fault/first.conf" {
		t.Errorf("files after the kill: %v; want only the one written before modprobe", present)
	}
	converges(t, e, todo)
	checkWhole(t, f, "midkill", files)
}

func TestPartitionMidApply(t *testing.T) {
	f, e, addr := faultHost(t, "partition")
	todo, files := faultTasks()
	ctx := context.Background()
	took, err := applyWithFault(t, f, e, "partition", todo, func() error {
		return f.LinkDown(ctx, "partition")
	})
	if err == nil || !strings.Contains(err.Error(), addr) {
		t.Fatalf("apply across a partition: %v; want an error naming %s", err, addr)
	}
	// Keepalives (2 s, two missed) notice the silent link in about 4-6 s.
	if took > 20*time.Second {
		t.Errorf("the apply noticed the partition after %v", took)
	}
	if err := f.LinkUp(ctx, "partition"); err != nil {
		t.Fatal(err)
	}
	present := checkWhole(t, f, "partition", files)
	for _, p := range present {
		if p == "/etc/roce-fault/second.conf" {
			t.Errorf("the apply went on past the partition: %s was written", p)
		}
	}
	converges(t, e, todo)
	checkWhole(t, f, "partition", files)
}
