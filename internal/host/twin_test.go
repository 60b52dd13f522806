package host_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin/hosttwintest"
)

// twinHosts is the package's fleet: read-only hosts named after their
// profile, and one host per test that changes its host.
var twinHosts = []hosttwin.HostSpec{
	{Name: "cx7", Profile: "cx7"},
	{Name: "cx8", Profile: "cx8"},
	{Name: "inbox", Profile: "inbox"},
	{Name: "gid5", Profile: "gid-index-5"},
	{Name: "lockdown", Profile: "lockdown"},
	{Name: "vf", Profile: "vf"},
	{Name: "dmabuf", Profile: "dmabuf"},
	{Name: "portdown", Profile: "port-down"},
	{Name: "mlnx", Profile: "mlnx"},
	{Name: "check", Profile: "cx7"},
	{Name: "apply", Profile: "cx7"},
	{Name: "reboot", Profile: "cx7"},
	{Name: "wrongorder", Profile: "peermem-wrong-order"},
	{Name: "notconv", Profile: "cx7"},
	{Name: "hostile", Profile: "cx7"},
	{Name: "badparse", Profile: "cx7"},
	{Name: "sudo", Profile: "cx7"},
	{Name: "rdma", Profile: "cx7"},
	{Name: "files", Profile: "cx7"},
}

var (
	fleetOnce sync.Once
	fleet     *hosttwin.Fleet
	fleetErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if fleet != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if err := fleet.Stop(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "stop host twins:", err)
			code = 1
		}
		cancel()
	}
	os.Exit(code)
}

// twin returns the fleet, started on first use, and a client of the named
// host that checks its host key against the host's known_hosts. It fails
// the test (never skips) when twins cannot start.
func twin(t testing.TB, name string) (*hosttwin.Fleet, host.Runner) {
	t.Helper()
	hosttwintest.SkipShort(t)
	fleetOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		fleet, fleetErr = hosttwin.Start(ctx, hosttwin.Options{Hosts: twinHosts})
	})
	if fleetErr != nil {
		t.Fatalf("start host twins: %v\nThese tests need Linux, root and OpenSSH's server "+
			"(/usr/sbin/sshd): run them as root with openssh-server installed.", fleetErr)
	}
	h, ok := fleet.Host(name)
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
	return fleet, host.SSH(pool.Client(h.Address))
}

// twinRun runs script inside host name (outside SSH) and fails the test on
// error.
func twinRun(t *testing.T, f *hosttwin.Fleet, name, script string) string {
	t.Helper()
	out, err := f.Run(context.Background(), name, script)
	if err != nil {
		t.Fatalf("run on twin %s: %q: %v: %s", name, script, err, out)
	}
	return string(out)
}

// commands returns how many commands host name ran through sshd so far.
func commands(t *testing.T, f *hosttwin.Fleet, name string) int {
	t.Helper()
	n, err := f.CommandCount(name)
	if err != nil {
		t.Fatalf("CommandCount(%s): %v", name, err)
	}
	return n
}

// sessions returns how many sessions (commands and SFTP) host name started.
func sessions(t *testing.T, f *hosttwin.Fleet, name string) int {
	t.Helper()
	n, err := f.SessionCount(name)
	if err != nil {
		t.Fatalf("SessionCount(%s): %v", name, err)
	}
	return n
}

// hostFile reads a file of host name from outside, through its root.
func hostFile(t *testing.T, f *hosttwin.Fleet, name, path string) ([]byte, error) {
	t.Helper()
	root, err := f.Root(name)
	if err != nil {
		t.Fatalf("Root(%s): %v", name, err)
	}
	return os.ReadFile(root + path)
}

// contains fails the test unless s contains every part.
func contains(t *testing.T, what, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Errorf("%s does not contain %q:\n%s", what, p, s)
		}
	}
}
