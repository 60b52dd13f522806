package hosttwin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
)

func TestStartTwoHostsServeRealSSH(t *testing.T) {
	f := startFleet(t, Options{Hosts: []HostSpec{{Name: "gpu-a"}, {Name: "gpu-b"}}})
	hosts := f.Hosts()
	if len(hosts) != 2 {
		t.Fatalf("Hosts() = %d hosts, want 2", len(hosts))
	}
	for _, h := range hosts {
		c := dial(t, h)
		if got := sshRun(t, c, "cat /etc/hostname; hostname"); got != h.Name+"\n"+h.Name+"\n" {
			t.Errorf("%s: /etc/hostname = %q, want %q", h.Name, got, h.Name+"\n")
		}
		if got := sshRun(t, c, "id -un"); got != "root\n" {
			t.Errorf("%s: id -un = %q, want root", h.Name, got)
		}
	}
}

func TestWritesStayInsideTheirHost(t *testing.T) {
	f := startFleet(t, Options{Hosts: []HostSpec{{Name: "iso-a"}, {Name: "iso-b"}}})
	a, _ := f.Host("iso-a")
	b, _ := f.Host("iso-b")
	const probe = "/etc/hosttwin-isolation-probe"
	if _, err := os.Stat(probe); err == nil {
		t.Fatalf("%s exists on this machine before the test", probe)
	}
	ca, cb := dial(t, a), dial(t, b)
	sshRun(t, ca, "echo only-a > "+probe)
	if got := sshRun(t, ca, "cat "+probe); got != "only-a\n" {
		t.Errorf("iso-a reads %q from %s, want only-a", got, probe)
	}
	if got := sshRun(t, cb, "if [ -e "+probe+" ]; then echo present; else echo absent; fi"); got != "absent\n" {
		t.Errorf("iso-b sees %s: %q", probe, got)
	}
	if _, err := os.Stat(probe); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s leaked to this machine: stat err = %v", probe, err)
	}
	// Seen from outside through the twin's root, the file is there.
	root, err := f.Root("iso-a")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(root + probe); err != nil || string(got) != "only-a\n" {
		t.Errorf("reading %s through %s = %q, %v", probe, root, got, err)
	}
}

func TestTwinSeesFakeHardware(t *testing.T) {
	f := startFleet(t, Options{Hosts: []HostSpec{{Name: "hw"}}})
	h, _ := f.Host("hw")
	p, _ := hostprofile.Lookup(h.Profile)
	c := dial(t, h)
	netdevs := strings.Fields(sshRun(t, c, "ls /sys/class/net"))
	t.Logf("/sys/class/net: %s", strings.Join(netdevs, " "))
	if len(netdevs) < p.Ports {
		t.Errorf("ls /sys/class/net shows %d netdevs, want the profile's %d", len(netdevs), p.Ports)
	}
	if got := sshRun(t, c, "cat /proc/driver/nvidia/version"); !strings.Contains(got, p.DriverVersion) {
		t.Errorf("/proc/driver/nvidia/version = %q, want driver %s", got, p.DriverVersion)
	}
	// The machine's own /proc is mounted too: the twin's sshd is in it.
	if got := sshRun(t, c, "cat /proc/$PPID/comm"); got != "sshd\n" {
		t.Errorf("/proc/$PPID/comm = %q, want sshd", got)
	}
}

func TestSFTPSubsystemAndCounters(t *testing.T) {
	f := startFleet(t, Options{Hosts: []HostSpec{{Name: "cnt"}}})
	h, _ := f.Host("cnt")
	c1 := dial(t, h)
	c2 := dial(t, h)
	for range 3 {
		sshRun(t, c1, "true")
	}
	sshRun(t, c2, "true")
	s, err := c2.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestSubsystem("sftp"); err != nil {
		t.Errorf("sftp subsystem: %v", err)
	}
	s.Close()
	// sshd logs asynchronously to the client's view; wait briefly.
	want := map[string]int{"connections": 2, "commands": 4, "sessions": 5}
	var got map[string]int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		conns, err1 := f.ConnectionCount("cnt")
		cmds, err2 := f.CommandCount("cnt")
		sess, err3 := f.SessionCount("cnt")
		if err := errors.Join(err1, err2, err3); err != nil {
			t.Fatal(err)
		}
		got = map[string]int{"connections": conns, "commands": cmds, "sessions": sess}
		if got["connections"] == want["connections"] && got["commands"] == want["commands"] && got["sessions"] == want["sessions"] {
			break
		}
	}
	if got["connections"] != want["connections"] || got["commands"] != want["commands"] || got["sessions"] != want["sessions"] {
		t.Errorf("counts = %v, want %v", got, want)
	}
	// Run goes around sshd and is not counted.
	if _, err := f.Run(context.Background(), "cnt", "true"); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.CommandCount("cnt"); n != want["commands"] {
		t.Errorf("after Run, CommandCount = %d, want %d", n, want["commands"])
	}
}

func TestStateDirOnOtherFilesystem(t *testing.T) {
	requireTwins(t)
	// /dev/shm is a tmpfs on most machines: the layers are then not on
	// the root filesystem and / is stacked directly (no rootview).
	if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
		t.Fatalf("no /dev/shm: %v", err)
	}
	t.Setenv("TMPDIR", "/dev/shm")
	state := filepath.Join(t.TempDir(), "state")
	f := startFleet(t, Options{StateDir: state, Hosts: []HostSpec{{Name: "shm"}}})
	// Where /dev/shm is on the root filesystem the fleet stacks a root view instead; the host
	// must work either way.
	h, _ := f.Host("shm")
	if got := sshRun(t, dial(t, h), "cat /etc/hostname"); got != "shm\n" {
		t.Errorf("/etc/hostname = %q", got)
	}
}

func TestMachineHomeAndTmpHidden(t *testing.T) {
	requireTwins(t)
	marker, err := os.CreateTemp("/tmp", "hosttwin-machine-file-")
	if err != nil {
		t.Fatal(err)
	}
	marker.Close()
	defer os.Remove(marker.Name())
	f := startFleet(t, Options{Hosts: []HostSpec{{Name: "clean"}}})
	h, _ := f.Host("clean")
	c := dial(t, h)
	if got := sshRun(t, c, "ls -A /root"); got != "" {
		t.Errorf("/root in the twin holds %q, want the machine's home hidden", got)
	}
	if got := sshRun(t, c, "[ -e "+marker.Name()+" ] && echo visible || echo hidden"); got != "hidden\n" {
		t.Errorf("machine's %s is %s in the twin", marker.Name(), strings.TrimSpace(got))
	}
	if got := sshRun(t, c, "stat -c %a /tmp /var/tmp /root"); got != "1777\n1777\n700\n" {
		t.Errorf("modes of /tmp /var/tmp /root = %q", got)
	}
	// The twin's own writes there work and persist.
	sshRun(t, c, "echo x > /root/.twin && echo y > /tmp/twin")
}

// TestFleetUserKeyReachesEveryHost: one key and one known_hosts file reach the whole fleet,
// as one provider configuration does for a cluster.
func TestFleetUserKeyReachesEveryHost(t *testing.T) {
	requireTwins(t)
	f := startFleet(t, Options{Hosts: []HostSpec{{Name: "k1"}, {Name: "k2"}}})
	for _, h := range f.Hosts() {
		h.PrivateKeyFile, h.KnownHostsFile = f.UserKeyFile(), f.KnownHostsFile()
		if got := sshRun(t, dial(t, h), "hostname"); got != h.Name+"\n" {
			t.Errorf("%s with the fleet key says %q", h.Name, got)
		}
	}
}
