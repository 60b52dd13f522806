package provider

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin/hosttwintest"
)

// The package's host twins, one per profile, started on first use and stopped by TestMain.
var (
	hostFleetOnce sync.Once
	hostFleet     *hosttwin.Fleet
	hostFleetErr  error
)

// twinHostSpecs are the hosts every host test can use; a test that changes a host gets its
// own entry so tests stay independent.
var twinHostSpecs = []hosttwin.HostSpec{
	{Name: "cx7", Profile: "cx7"},
	{Name: "cx8", Profile: "cx8"},
	{Name: "inbox", Profile: "inbox"},
	{Name: "gid5", Profile: "gid-index-5"},
	{Name: "portdown", Profile: "port-down"},
	{Name: "lockdown", Profile: "lockdown"},
	{Name: "vf", Profile: "vf"},
	{Name: "dmabuf", Profile: "dmabuf"},
	{Name: "wrongorder", Profile: "peermem-wrong-order"},
	{Name: "nccl", Profile: "cx7"},
	{Name: "ncclgid", Profile: "gid-index-5"},
	{Name: "nccl219", Profile: "nccl-2.19"},
	{Name: "rotated", Profile: "cx7"},
	{Name: "counted", Profile: "cx7"},
	{Name: "dcqcn", Profile: "cx7"},
	{Name: "dcqcnnp", Profile: "cx8"},
	{Name: "dcqcnqos", Profile: "cx7"},
	{Name: "dcqcnnotc", Profile: "cx7"},
	{Name: "cutfloor", Profile: "cx7"},
	{Name: "logged", Profile: "cx7"},
	{Name: "bootstrap", Profile: "inbox"},
	{Name: "bootstrapdmabuf", Profile: "dmabuf"},
	{Name: "exdcqcn", Profile: "cx7"},
	{Name: "exbootstrap", Profile: "cx7"},
	{Name: "three", Profile: "cx7"},
	{Name: "crash", Profile: "cx7"},
	{Name: "crowded", Profile: "cx7"},
	{Name: "rocky", Profile: "rocky9-inbox"},
	{Name: "rockyfacts", Profile: "rocky9"},
	{Name: "rockylock", Profile: "rocky9"},
	{Name: "authdeb", Profile: "inbox"},
	{Name: "authrocky", Profile: "rocky9-inbox"},
	{Name: "wodeb", Profile: "inbox"},
	{Name: "worocky", Profile: "rocky9-inbox"},
	{Name: "rockywrong", Profile: "rocky9-peermem-wrong-order"},
}

// hostTwins returns the fleet and the provider block that reaches every host of it (one
// key, one known_hosts file, host keys verified).
func hostTwins(t *testing.T) (*hosttwin.Fleet, string) {
	t.Helper()
	hosttwintest.SkipShort(t)
	hostFleetOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		hostFleet, hostFleetErr = hosttwin.Start(ctx, hosttwin.Options{Hosts: twinHostSpecs})
	})
	if hostFleetErr != nil {
		t.Fatalf("start host twins: %v\nThe host tests need Linux, root and /usr/sbin/sshd (make tools installs it).", hostFleetErr)
	}
	return hostFleet, fmt.Sprintf("provider \"roce\" {\n  ssh = {\n    user             = \"root\"\n    private_key_file = %q\n    known_hosts_file = %q\n  }\n}\n",
		hostFleet.UserKeyFile(), hostFleet.KnownHostsFile())
}

// twinAddress returns the SSH address of a twin host.
func twinAddress(t *testing.T, f *hosttwin.Fleet, name string) string {
	t.Helper()
	h, ok := f.Host(name)
	if !ok {
		t.Fatalf("no twin host %q", name)
	}
	return h.Address
}

// stopHostTwins runs after the package's tests.
func stopHostTwins() int {
	if hostFleet == nil {
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := hostFleet.Stop(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "stop host twins:", err)
		return 1
	}
	return 0
}

// onTwin runs a shell script inside a twin host, outside SSH, and returns its output.
func onTwin(t *testing.T, f *hosttwin.Fleet, name, script string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := f.Run(ctx, name, script)
	if err != nil {
		t.Fatalf("on %s: %s: %v\n%s", name, script, err, out)
	}
	return string(out)
}
