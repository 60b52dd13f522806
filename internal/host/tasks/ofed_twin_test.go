package tasks

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
)

func TestOFEDPinTwin(t *testing.T) {
	f := ofedFleet(t,
		hosttwin.HostSpec{Name: "inbox", Profile: "inbox"},
		hosttwin.HostSpec{Name: "cx7", Profile: "cx7"},
		hosttwin.HostSpec{Name: "locked", Profile: "inbox"},
		hosttwin.HostSpec{Name: "stale", Profile: "cx7"},
		hosttwin.HostSpec{Name: "mlnx", Profile: "mlnx"},
	)
	t.Run("install on inbox", func(t *testing.T) { testTwinInstall(t, f) })
	t.Run("downgrade and back", func(t *testing.T) { testTwinDowngrade(t, f) })
	t.Run("dpkg lock", func(t *testing.T) { testTwinLock(t, f) })
	t.Run("latest refused", func(t *testing.T) { testTwinLatest(t, f) })
	t.Run("running stack differs", func(t *testing.T) { testTwinStale(t, f) })
	t.Run("MLNX_OFED host", func(t *testing.T) { testTwinMLNX(t, f) })
}

// testTwinInstall installs DOCA-OFED 25.10 on an inbox host from the twin
// repository, pinned and held.
func testTwinInstall(t *testing.T, f *hosttwin.Fleet) {
	e := ofedEngine(t, f, "inbox")
	task := twinPin("doca", doca2510)
	if got, want := task.AptSourceLine(), (hostprofile.Repo{Flavor: "doca", Version: doca2510}).SourceLine(); got != want {
		t.Errorf("source line %q, the twin's own is %q", got, want)
	}
	plan, err := e.Plan(t.Context(), []host.Task{task})
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	want := []string{
		"apt source: create /etc/apt/sources.list.d/roce-ofed.list (" + strconv.Itoa(len(task.aptSource())) + " bytes)",
		"apt pin: create /etc/apt/preferences.d/roce-ofed (" + strconv.Itoa(len(task.AptPreferences())) + " bytes)",
		"read the package lists of file:/srv/twin-apt/doca/25.10-1.7.1",
		"install doca-ofed 25.10-1.7.1",
		"hold doca-ofed (apt-mark hold; installing releases a hold)",
	}
	if got := summariesOf(plan); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plan:\n%s\nwant summaries:\n%s", plan, strings.Join(want, "\n"))
	}
	cmds0, sess0 := twinCounts(t, f, "inbox")
	start := time.Now()
	rep := applied(t, e, task)
	cmds, sess := twinCounts(t, f, "inbox")
	// gather, two file writes, one script (update && install && hold), and
	// the verifying gather.
	if rep.RoundTrips != 5 || cmds-cmds0 != 3 {
		t.Errorf("apply took %d round trips and %d remote commands (%d sessions); want 5 and 3 (2 gathers, 1 script)",
			rep.RoundTrips, cmds-cmds0, sess-sess0)
	}
	t.Logf("install: %d round trips, %d commands, %d sessions, %v", rep.RoundTrips, cmds-cmds0, sess-sess0, time.Since(start).Round(time.Millisecond))

	fs, st := gatherOFED(t, e, task)
	if fs.OFED != run2510 || st.Installed["doca-ofed"] != doca2510 {
		t.Errorf("after apply: running %+v, installed %v", fs.OFED, st.Installed)
	}
	if !isHeld(fs.Packages, "doca-ofed") || !strings.Contains(onTwin(t, f, "inbox", "apt-mark showhold"), "doca-ofed") {
		t.Error("doca-ofed is not held after apply")
	}
	if v, _ := installedVersion(fs.Packages, "rdma-core"); v != "2510mlnx1-1.2510171" {
		t.Errorf("rdma-core %q: the metapackage's dependency was not installed from the repository", v)
	}
	// The twin's ofed_info comes with the metapackage, so the "running"
	// stack follows the install at once: no reboot is reported. (On a real
	// host ofed_info also comes from a package; see OFEDPin.Status.)
	if st.RebootRequired {
		t.Error("RebootRequired after the install; the twin's ofed_info follows the package")
	}
	rep = requireNoChanges(t, e, task)
	if rep.RoundTrips != 1 {
		t.Errorf("second plan took %d round trips, want 1", rep.RoundTrips)
	}
	if err := f.Reboot(t.Context(), "inbox"); err != nil {
		t.Fatalf("Reboot: %v", err)
	}
	requireNoChanges(t, e, task)
	if _, st := gatherOFED(t, e, task); st.RebootRequired {
		t.Error("RebootRequired after a reboot")
	}
	// apt sees the pin: the candidate is the pinned version at 1001.
	policy := onTwin(t, f, "inbox", "apt-cache policy doca-ofed")
	if !strings.Contains(policy, "25.10-1.7.1 1001") {
		t.Errorf("apt-cache policy does not show the pin:\n%s", policy)
	}
}

// testTwinDowngrade pins a DOCA 25.10 host to 25.07 and back.
func testTwinDowngrade(t *testing.T, f *hosttwin.Fleet) {
	e := ofedEngine(t, f, "cx7")
	down := twinPin("doca", doca2507)
	plan, err := e.Plan(t.Context(), []host.Task{down})
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	var install host.Change
	for _, c := range plan.Changes() {
		if strings.Contains(c.Summary, "doca-ofed 25.10-1.7.1 → 25.07-0.9.7") {
			install = c
		}
	}
	if install.Summary != "downgrade doca-ofed 25.10-1.7.1 → 25.07-0.9.7" ||
		!strings.HasSuffix(strings.Join(install.Apply.Lines(), ""), "--allow-downgrades --allow-change-held-packages install doca-ofed=25.07-0.9.7 (as root)") {
		t.Fatalf("no downgrade planned:\n%s", plan)
	}
	applied(t, e, down)
	fs, st := gatherOFED(t, e, down)
	if fs.OFED != run2507 || st.RebootRequired {
		t.Errorf("after the downgrade: running %+v, RebootRequired %v", fs.OFED, st.RebootRequired)
	}
	if v, _ := installedVersion(fs.Packages, "mlnx-ofed-kernel-dkms"); v != "25.07.OFED.25.07.0.9.7.1" {
		t.Errorf("mlnx-ofed-kernel-dkms %q: the exact-version dependency was not downgraded", v)
	}
	requireNoChanges(t, e, down)
	// The hold and the pin are the task's own: pinning back upgrades.
	up := twinPin("doca", doca2510)
	applied(t, e, up)
	if fs, _ := gatherOFED(t, e, up); fs.OFED != run2510 || !isHeld(fs.Packages, "doca-ofed") {
		t.Errorf("after pinning back: running %+v, held %v", fs.OFED, isHeld(fs.Packages, "doca-ofed"))
	}
	requireNoChanges(t, e, up)
}

// testTwinLock holds the dpkg frontend lock as apt and dpkg take it (an
// fcntl lock: flock(1) takes a different kind, which apt does not see) and
// expects the install to wait LockTimeout and then fail clearly.
func testTwinLock(t *testing.T, f *hosttwin.Fleet) {
	e := ofedEngine(t, f, "locked")
	task := twinPin("doca", doca2510)
	task.LockTimeout = 2 * time.Second
	release := holdDpkgLock(t, f, "locked")
	start := time.Now()
	_, err := e.Apply(t.Context(), []host.Task{task})
	waited := time.Since(start)
	release()
	var te *host.TaskError
	if !errors.As(err, &te) || !errors.Is(err, ErrPackageLock) {
		t.Fatalf("Apply with the dpkg lock held: %v; want a *host.TaskError wrapping ErrPackageLock", err)
	}
	for _, part := range []string{
		"apply ofed doca 25.10-1.7.1 on 127.0.0.1:",
		// With a timeout apt reports the holder as progress on standard
		// output only, so the error cannot name it.
		"/var/lib/dpkg/lock-frontend is held by another process",
		"apt waited 2s for it", "installing doca-ofed needs it", "raise lock_timeout",
	} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error lacks %q:\n%v", part, err)
		}
	}
	if waited < 2*time.Second || waited > 30*time.Second {
		t.Errorf("apply failed after %v; want it to wait the 2s lock timeout", waited)
	}
	t.Logf("lock held: failed after %v: %v", waited.Round(time.Millisecond), err)
	// With the lock free the same apply goes through; the files written
	// before the failure are in place, the lists are read again.
	rep := applied(t, e, task)
	if got := summariesOf(rep); len(got) != 3 || !strings.HasPrefix(got[0], "read the package lists") {
		t.Errorf("apply after the lock was released: %q", got)
	}
	requireNoChanges(t, e, task)
}

// holdDpkgLock takes apt's lock on /var/lib/dpkg/lock-frontend in host name
// from this process and returns its release.
func holdDpkgLock(t *testing.T, f *hosttwin.Fleet, name string) func() {
	t.Helper()
	root, err := f.Root(name)
	if err != nil {
		t.Fatalf("Root: %v", err)
	}
	lf, err := os.OpenFile(root+"/var/lib/dpkg/lock-frontend", os.O_RDWR|os.O_CREATE, 0o640)
	if err != nil {
		t.Fatalf("open the dpkg lock: %v", err)
	}
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0}
	if err := syscall.FcntlFlock(lf.Fd(), syscall.F_SETLK, &lk); err != nil {
		t.Fatalf("lock %s: %v", lf.Name(), err)
	}
	return func() {
		if err := lf.Close(); err != nil {
			t.Errorf("release the dpkg lock: %v", err)
		}
	}
}

// testTwinLatest refuses a "latest" repository before touching the host.
func testTwinLatest(t *testing.T, f *hosttwin.Fleet) {
	e := ofedEngine(t, f, "stale")
	task := twinPin("doca", doca2510)
	task.RepoURL = "file:/srv/twin-apt/doca/latest"
	_, err := e.Apply(t.Context(), []host.Task{task})
	if !errors.Is(err, ErrLatestRepo) || !strings.Contains(err.Error(), "plan ofed doca 25.10-1.7.1 on 127.0.0.1:") {
		t.Fatalf("Apply with a latest URL: %v; want a plan error wrapping ErrLatestRepo", err)
	}
	root, err := f.Root("stale")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root + AptSourcePath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the source file was written: %v", err)
	}
}

// testTwinStale makes ofed_info report an older stack than the installed
// package, as a host does between an install and the reboot that loads it.
func testTwinStale(t *testing.T, f *hosttwin.Fleet) {
	e := ofedEngine(t, f, "stale")
	task := twinPin("doca", doca2510)
	applied(t, e, task) // the cx7 twin has the package: files and hold only
	onTwin(t, f, "stale", `cp /usr/bin/ofed_info /tmp/ofed_info.installed && `+
		`printf '#!/bin/sh\necho OFED-internal-25.07-0.9.7:\n' >/usr/bin/ofed_info`)
	rep := requireNoChanges(t, e, task)
	want := "OFED doca 25.10-1.7.1 installed, running DOCA-OFED 25.07-0.9.7: reboot (or restart openibd) to load it"
	if !strings.Contains(rep.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, rep)
	}
	if _, st := gatherOFED(t, e, task); !st.RebootRequired || st.Running != (facts.OFEDInfo{Flavor: facts.OFEDDOCA, Version: doca2507}) {
		t.Errorf("Status = %+v, want RebootRequired with 25.07 running", st)
	}
	// A note is not a pending change: the apply converges and reboots
	// nothing.
	if rep := applied(t, e, task); rep.Changed() || rep.RoundTrips != 1 {
		t.Errorf("apply with only the note: changed %v, %d round trips", rep.Changed(), rep.RoundTrips)
	}
	onTwin(t, f, "stale", "cp /tmp/ofed_info.installed /usr/bin/ofed_info")
	if _, st := gatherOFED(t, e, task); st.RebootRequired {
		t.Error("RebootRequired once ofed_info reports the installed stack")
	}
}

// testTwinMLNX pins the MLNX_OFED a host already runs (files and hold, no
// install) and refuses DOCA-OFED over it.
func testTwinMLNX(t *testing.T, f *hosttwin.Fleet) {
	e := ofedEngine(t, f, "mlnx")
	task := twinPin("mlnx", "24.10-3.2.5.0")
	rep := applied(t, e, task)
	want := []string{
		"apt source: create /etc/apt/sources.list.d/roce-ofed.list (" + strconv.Itoa(len(task.aptSource())) + " bytes)",
		"apt pin: create /etc/apt/preferences.d/roce-ofed (" + strconv.Itoa(len(task.AptPreferences())) + " bytes)",
		"read the package lists of file:/srv/twin-apt/mlnx/24.10-3.2.5.0",
		"hold mlnx-ofed-all (apt-mark hold)",
	}
	if got := summariesOf(rep); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("apply:\n%s\nwant summaries:\n%s", rep, strings.Join(want, "\n"))
	}
	rep = requireNoChanges(t, e, task)
	if !strings.Contains(rep.String(), "the running stack is MLNX_OFED 24.10-3.2.5.0, as pinned") {
		t.Errorf("report:\n%s", rep)
	}
	_, err := e.Plan(t.Context(), []host.Task{twinPin("doca", doca2510)})
	if err == nil || !strings.Contains(err.Error(), "the host has MLNX_OFED 24.10-3.2.5.0 (package mlnx-ofed-all): remove it first") {
		t.Errorf("DOCA over MLNX_OFED: %v", err)
	}
}
