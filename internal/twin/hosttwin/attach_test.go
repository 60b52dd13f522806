package hosttwin

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
)

func TestAttachAndStopFromSecondFleet(t *testing.T) {
	requireTwins(t)
	dir := t.TempDir()
	ctx := context.Background()
	custom, _ := hostprofile.Lookup("cx8")
	custom.Name, custom.DownPorts = "cx8-port0-down", []int{0}
	first, err := Start(ctx, Options{StateDir: dir, Hosts: []HostSpec{{Name: "up-a", Custom: &custom}, {Name: "up-b"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := first.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	if _, err := Start(ctx, Options{StateDir: dir, Hosts: []HostSpec{{Name: "up-a"}}}); err == nil || !strings.Contains(err.Error(), "running") {
		t.Errorf("second Start in a running state dir: err = %v, want refusal", err)
	}
	second, err := Attach(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first.Hosts(), second.Hosts()); diff != "" {
		t.Errorf("attached hosts differ (-started +attached):\n%s", diff)
	}
	h, _ := second.Host("up-b")
	sshRun(t, dial(t, h), "true")
	// The attached fleet can act on hosts it did not start.
	if err := second.RestartSSHD(ctx, "up-b"); err != nil {
		t.Fatalf("RestartSSHD from the attached fleet: %v", err)
	}
	if n, err := second.ConnectionCount("up-b"); err != nil || n != 1 {
		t.Errorf("ConnectionCount = %d, %v; want 1", n, err)
	}
	// Reboot needs the host's profile, custom ones included: fleet.json
	// keeps it.
	if err := second.Reboot(ctx, "up-a"); err != nil {
		t.Fatalf("Reboot from the attached fleet: %v", err)
	}
	a, _ := second.Host("up-a")
	if a.Profile != "cx8-port0-down" {
		t.Errorf("up-a profile = %q, want the custom one", a.Profile)
	}
	if got := sshRun(t, dial(t, a), "cat /sys/class/net/*/carrier | head -n 1"); got != "0\n" {
		t.Errorf("first port's carrier after Reboot = %q, want 0 (down in the custom profile)", got)
	}
	snap := takeSnapshot(t, second)
	if err := second.Stop(ctx); err != nil {
		t.Fatalf("Stop from the attached fleet: %v", err)
	}
	snap.requireClean(t, true)
	// The first fleet value finds nothing left to do.
	if err := first.Stop(ctx); err != nil {
		t.Errorf("Stop of the original fleet after the attached Stop: %v", err)
	}
	if _, err := Attach(dir); err == nil {
		t.Error("Attach after Stop succeeded")
	}
}
