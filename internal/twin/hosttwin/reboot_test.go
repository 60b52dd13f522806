package hosttwin

import (
	"context"
	"strings"
	"testing"
)

func TestRebootResetsFakeSysfs(t *testing.T) {
	f := startFleet(t, Options{Hosts: []HostSpec{{Name: "boot"}}})
	h, _ := f.Host("boot")
	c := dial(t, h)
	// Any netdev of the profile with OFED's per-priority ECN switches.
	file := strings.TrimSpace(sshRun(t, c, "ls -d /sys/class/net/*/ecn/roce_np/enable/3 | head -n 1"))
	if file == "" {
		t.Fatal("no /sys/class/net/*/ecn/roce_np/enable/3 in the twin")
	}
	initial := sshRun(t, c, "cat "+file)
	changed := "1\n"
	if initial == changed {
		changed = "0\n"
	}
	sshRun(t, c, "echo "+strings.TrimSpace(changed)+" > "+file)
	if got := sshRun(t, c, "cat "+file); got != changed {
		t.Fatalf("%s = %q after write, want %q", file, got, changed)
	}
	if err := f.Reboot(context.Background(), "boot"); err != nil {
		t.Fatalf("Reboot: %v", err)
	}
	if got := sshRun(t, c, "cat "+file); got != initial {
		t.Errorf("%s = %q after Reboot, want the power-on value %q", file, got, initial)
	}
}

func TestRebootRunsBootScript(t *testing.T) {
	f := startFleet(t, Options{Hosts: []HostSpec{{Name: "boot2"}}})
	h, _ := f.Host("boot2")
	c := dial(t, h)
	if got := sshRun(t, c, "lsmod | grep -c '^nvidia_peermem' || true"); got != "0\n" {
		t.Fatalf("nvidia_peermem loaded before the test: %q", got)
	}
	nvidia := sshRun(t, c, "cat /proc/driver/nvidia/version")
	sshRun(t, c, "echo nvidia-peermem > /etc/modules-load.d/peermem.conf")
	if err := f.Reboot(context.Background(), "boot2"); err != nil {
		t.Fatalf("Reboot: %v", err)
	}
	if got := sshRun(t, c, "lsmod | grep -c '^nvidia_peermem' || true"); got != "1\n" {
		t.Errorf("after Reboot nvidia_peermem is loaded %q times, want once (modules-load.d applied)", got)
	}
	// The bind mount over /proc/driver/nvidia survives the reset.
	if got := sshRun(t, c, "cat /proc/driver/nvidia/version"); got != nvidia || got == "" {
		t.Errorf("/proc/driver/nvidia/version after Reboot = %q, want %q", got, nvidia)
	}
}
