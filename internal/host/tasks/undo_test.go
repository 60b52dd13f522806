package tasks

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// acting keeps the changes that do something.
func acting(cs []host.Change) []change {
	var out []change
	for _, c := range readable(cs) {
		if c.Lines != nil {
			out = append(out, c)
		}
	}
	return out
}

func TestOFEDUnpinDebian(t *testing.T) {
	pin := docaPin(doca2510)
	f := aptFacts(facts.OFEDInfo{}, map[string]host.FileInfo{
		AptSourcePath:      existing(pin.aptSource(), 0o644),
		AptPreferencesPath: existing(pin.AptPreferences(), 0o644),
	}, debPkg("doca-ofed", doca2510, true))
	cs, err := pin.Undo().Plan(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []change{
		{"release the hold on doca-ofed", "held", "not held (still installed)", []string{"run: apt-mark unhold doca-ofed >/dev/null (as root)"}},
		{"remove " + AptSourcePath, "regular file, " + strconv.Itoa(len(pin.aptSource())) + " bytes", "absent", []string{"run: rm -f -- " + AptSourcePath + " (as root)"}},
		{"remove " + AptPreferencesPath, "regular file, " + strconv.Itoa(len(pin.AptPreferences())) + " bytes", "absent", []string{"run: rm -f -- " + AptPreferencesPath + " (as root)"}},
	}
	if diff := cmp.Diff(want, acting(cs)); diff != "" {
		t.Errorf("unpin (-want +got):\n%s", diff)
	}
	// What verify sees after the apply: nothing left to take away.
	after := aptFacts(facts.OFEDInfo{}, nil, debPkg("doca-ofed", doca2510, false))
	cs, err = pin.Undo().Plan(after)
	if err != nil || len(acting(cs)) != 0 {
		t.Errorf("unpin of an unpinned host = %v, %v; want notes only", readable(cs), err)
	}
}

func TestOFEDUnpinRHEL(t *testing.T) {
	pin := rhelPin(doca2510)
	locks := []facts.Hold{{Name: "doca-ofed", Version: doca2510}, {Name: "doca-ofed", Version: doca2507}, {Name: "kernel", Version: "5.14"}}
	cs, err := pin.Undo().Plan(dnfFacts(facts.OFEDInfo{}, pin.DnfRepo(), locks, rpmPkg("doca-ofed", doca2510)))
	if err != nil {
		t.Fatal(err)
	}
	got := acting(cs)
	if len(got) != 2 || got[0].Summary != "remove the version locks of doca-ofed" || got[1].Summary != "remove "+DnfRepoPath {
		t.Fatalf("unpin = %+v", got)
	}
	if l := got[0].Lines[0]; !strings.Contains(l, "versionlock delete doca-ofed (as root)") {
		t.Errorf("lock removal = %q, want only doca-ofed's locks", l)
	}
	cs, err = pin.Undo().Plan(dnfFacts(facts.OFEDInfo{}, "", []facts.Hold{{Name: "kernel", Version: "5.14"}}))
	if err != nil || len(acting(cs)) != 0 {
		t.Errorf("unpin of an unpinned host = %v, %v; want notes only", readable(cs), err)
	}
	noLocks := dnfFacts(facts.OFEDInfo{}, "", nil)
	noLocks.Absent[host.FactDnfLocks.String()] = "exit status 1"
	if _, err := pin.Undo().Plan(noLocks); err == nil || !strings.Contains(err.Error(), "version locks") {
		t.Errorf("unreadable locks: err = %v", err)
	}
}

func TestOFEDUnpinWithoutVersion(t *testing.T) {
	u := OFEDPin{Flavor: "doca", Constraint: ">= 25.04"}.Undo()
	if !u.Needs().Empty() {
		t.Errorf("Needs = %v, want nothing: the pin wrote nothing", u.Needs())
	}
	cs, err := u.Plan(host.Facts{})
	if err != nil || len(cs) != 1 || cs[0].Apply != nil {
		t.Errorf("Plan = %v, %v; want one note", readable(cs), err)
	}
}

func TestPersistenceRemoved(t *testing.T) {
	p := Persistence{ID: "dcqcn"}
	files := func(present ...string) host.Facts {
		f := host.Facts{Host: "h", Gathered: p.Undo().Needs(), Absent: map[string]string{}, Files: map[string]host.FileInfo{}}
		for _, path := range []string{p.ScriptPath(), p.UnitPath(), p.RulePath()} {
			f.Files[path] = host.FileInfo{Path: path}
		}
		for _, path := range present {
			fi := existing("x\n", 0o644)
			fi.Path = path
			f.Files[path] = fi
		}
		return f
	}
	cs, err := p.Undo().Plan(files(p.UnitPath(), p.RulePath()))
	if err != nil {
		t.Fatal(err)
	}
	var summaries []string
	for _, c := range acting(cs) {
		summaries = append(summaries, c.Summary)
	}
	want := []string{
		"disable roce-dcqcn.service at boot",
		"remove " + p.UnitPath(),
		"remove " + p.RulePath(),
		"reload systemd without roce-dcqcn.service",
		"reload the udev rules without " + p.RulePath(),
	}
	if diff := cmp.Diff(want, summaries); diff != "" {
		t.Errorf("removal (-want +got):\n%s", diff)
	}
	cs, err = p.Undo().Plan(files())
	if err != nil || len(acting(cs)) != 0 {
		t.Errorf("removal with nothing there = %v, %v; want notes only", readable(cs), err)
	}
	if _, err := (PersistenceRemoved{ID: "Bad ID"}).Plan(files()); err == nil {
		t.Error("a bad ID was planned")
	}
}

func TestAbsent(t *testing.T) {
	dir := ncclFacts(host.FileInfo{Exists: true, Type: host.FileDirectory})
	if _, err := (Absent{Path: ncclPath}).Plan(dir); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("directory: err = %v", err)
	}
	missing := host.Facts{Absent: map[string]string{"file " + ncclPath: "permission denied"}}
	if _, err := (Absent{Path: ncclPath}).Plan(missing); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("unreadable: err = %v", err)
	}
	if _, err := (Absent{Path: "etc/x"}).Plan(host.Facts{}); err == nil {
		t.Error("a relative path was planned")
	}
}

func TestGPUDirectUndo(t *testing.T) {
	if got := (GPUDirect{}).Undo().Name(); got != "absent /etc/modules-load.d/nvidia_peermem.conf" {
		t.Errorf("Undo = %q", got)
	}
}
