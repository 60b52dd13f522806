package hosttwin

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestStopLeavesNothingBehind(t *testing.T) {
	requireTwins(t)
	ctx := context.Background()
	f, err := Start(ctx, Options{Hosts: []HostSpec{{Name: "stop-a"}, {Name: "stop-b"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Stop(ctx); err != nil {
			t.Errorf("Stop at cleanup: %v", err)
		}
	})
	// A session command runs in a session of its own, outside sshd's
	// process group: Stop must find it through the namespace.
	for _, h := range f.Hosts() {
		s, err := dial(t, h).NewSession()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Start("sleep 600"); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
	}
	waitFor(t, "sleep inside the twins", func() bool {
		n := 0
		for _, tw := range f.twins {
			pids, _, _ := nsMembers(tw.ns, tw.pid, tw.start, tw.marker)
			n += len(pids)
		}
		return n >= 2*3 // listener, connection, sleep per host
	})
	snap := takeSnapshot(t, f)
	if l := snap.leftovers(t); len(l.processes) == 0 || !l.stateDir {
		t.Fatalf("the check sees nothing of a running fleet: %+v", l)
	}
	began := time.Now()
	err = f.Stop(ctx)
	t.Logf("Stop of 2 hosts with sessions took %v", time.Since(began))
	if err != nil {
		t.Fatalf("Stop: %v", err)
	}
	snap.requireClean(t, false)
	if err := f.Stop(ctx); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

func TestStopKeepsGivenStateDir(t *testing.T) {
	requireTwins(t)
	dir := t.TempDir()
	logs := t.TempDir()
	f, err := Start(context.Background(), Options{StateDir: dir, LogDir: logs, Hosts: []HostSpec{{Name: "keep"}}})
	if err != nil {
		t.Fatal(err)
	}
	snap := takeSnapshot(t, f)
	if err := f.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	snap.requireClean(t, true)
	if _, err := os.Stat(stateFilePath(dir)); !os.IsNotExist(err) {
		t.Errorf("fleet.json still there after Stop: %v", err)
	}
	log, err := os.ReadFile(logs + "/keep.sshd.log")
	if err != nil || !strings.Contains(string(log), "Server listening") {
		t.Errorf("log in LogDir = %q, %v", log, err)
	}
}

func TestStartFailureCleansUp(t *testing.T) {
	requireTwins(t)
	// Hold a port so that sshd cannot bind it.
	ports, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	l, err := listenLoopback(ports[0])
	if err != nil {
		t.Fatalf("cannot hold port %d: %v", ports[0], err)
	}
	defer l.Close()
	dir := t.TempDir()
	_, err = Start(context.Background(), Options{StateDir: dir, BasePort: ports[0], Hosts: []HostSpec{{Name: "busy"}}})
	if err == nil || !strings.Contains(err.Error(), "host busy") || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("Start on a busy port: err = %v, want host busy ... in use", err)
	}
	snap := snapshot{stateDir: dir}
	snap.requireClean(t, true)
	if _, err := os.Stat(stateFilePath(dir)); !os.IsNotExist(err) {
		t.Errorf("fleet.json after failed Start: %v", err)
	}
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func TestStartReclaimsStateDirOfCrashedFleet(t *testing.T) {
	requireTwins(t)
	ctx := context.Background()
	dir := t.TempDir()
	old, err := Start(ctx, Options{StateDir: dir, Hosts: []HostSpec{{Name: "re"}}})
	if err != nil {
		t.Fatal(err)
	}
	h, _ := old.Host("re")
	s, err := dial(t, h).NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Start("sleep 600"); err != nil {
		t.Fatal(err)
	}
	snap := takeSnapshot(t, old)
	tw := old.twins[0]
	waitFor(t, "the session's sleep", func() bool {
		pids, _, _ := nsMembers(tw.ns, tw.pid, tw.start, tw.marker)
		return len(pids) >= 3
	})
	// A crash: the listener dies, the connection and its command live on
	// in the twin's namespace, and nobody calls Stop.
	if err := syscall.Kill(tw.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-tw.proc.done
	if l := snap.leftovers(t); len(l.processes) == 0 {
		t.Fatal("nothing survived the listener; the test proves nothing")
	} else {
		t.Logf("survivors: %v", l.processes)
	}
	f := startFleet(t, Options{StateDir: dir, Hosts: []HostSpec{{Name: "re"}}})
	if l := snap.leftovers(t); len(l.processes) > 0 {
		t.Errorf("processes of the crashed fleet left after a new Start:\n%s", strings.Join(l.processes, "\n"))
	}
	t.Logf("old namespace %s, new %s", tw.ns, f.twins[0].ns)
	// The crashed fleet's value is stale now; stopping it harms nothing
	// of the new fleet, which may even have the old namespace's number.
	if err := old.Stop(ctx); err != nil {
		t.Fatalf("Stop of the stale fleet: %v", err)
	}
	h, _ = f.Host("re")
	sshRun(t, dial(t, h), "true")
	if _, err := Attach(dir); err != nil {
		t.Errorf("the stale fleet's Stop removed the new fleet.json: %v", err)
	}
}
