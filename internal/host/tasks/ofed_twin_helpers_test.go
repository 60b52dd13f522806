package tasks

import (
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin/hosttwintest"
)

// Helpers of the twin tests of OFEDPin and GPUDirect. Each test starts its
// own small fleet (about 0.7 s) and stops it, so the package needs no
// TestMain.

// ofedFleet starts twin hosts for one test and stops them when it ends. It
// fails the test (never skips) when twins cannot start.
func ofedFleet(t *testing.T, hosts ...hosttwin.HostSpec) *hosttwin.Fleet {
	t.Helper()
	return hosttwintest.Start(t, hosttwin.Options{Hosts: hosts})
}

// ofedEngine returns an engine on host name of f, over SSH with host key
// checking, as the provider connects.
func ofedEngine(t *testing.T, f *hosttwin.Fleet, name string) host.Engine {
	t.Helper()
	h, ok := f.Host(name)
	if !ok {
		t.Fatalf("no twin host %q", name)
	}
	pool, err := ssh.NewPool(ssh.Config{User: h.User, PrivateKeyFile: h.PrivateKeyFile, KnownHostsFile: h.KnownHostsFile})
	if err != nil {
		t.Fatalf("ssh pool for %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := pool.Close(); err != nil {
			t.Errorf("close pool: %v", err)
		}
	})
	return host.Engine{Runner: host.SSH(pool.Client(h.Address))}
}

// onTwin runs script inside host name, outside SSH, and fails the test on
// error.
func onTwin(t *testing.T, f *hosttwin.Fleet, name, script string) string {
	t.Helper()
	out, err := f.Run(t.Context(), name, script)
	if err != nil {
		t.Fatalf("on twin %s: %q: %v: %s", name, script, err, out)
	}
	return string(out)
}

// twinPin pins flavor and version to the twin's local repository directory.
func twinPin(flavor, version string) OFEDPin {
	return OFEDPin{Flavor: flavor, Version: version, Trusted: true,
		RepoURL: "file:" + hostprofile.Repo{Flavor: flavor, Version: version}.Path()}
}

// gatherOFED reads what an OFEDPin reads, and its status.
func gatherOFED(t *testing.T, e host.Engine, task OFEDPin) (host.Facts, OFEDStatus) {
	t.Helper()
	f, err := host.Gather(t.Context(), e.Runner, task.Needs())
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	st, err := task.Status(f)
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	return f, st
}

// summariesOf lists the summaries of a report's changes.
func summariesOf(r host.Report) []string {
	var out []string
	for _, c := range r.Changes() {
		out = append(out, c.Summary)
	}
	return out
}

// applied applies tasks and fails the test on error.
func applied(t *testing.T, e host.Engine, tasks ...host.Task) host.Report {
	t.Helper()
	rep, err := e.Apply(t.Context(), tasks)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return rep
}

// requireNoChanges fails the test unless a plan of tasks is empty.
func requireNoChanges(t *testing.T, e host.Engine, tasks ...host.Task) host.Report {
	t.Helper()
	rep, err := e.Plan(t.Context(), tasks)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if rep.Changed() {
		t.Fatalf("plan is not empty:\n%s", rep)
	}
	return rep
}

// twinCounts returns the commands and sessions host name has served.
func twinCounts(t *testing.T, f *hosttwin.Fleet, name string) (cmds, sessions int) {
	t.Helper()
	c, err := f.CommandCount(name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.SessionCount(name)
	if err != nil {
		t.Fatal(err)
	}
	return c, s
}
