package hosttwin

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// A Network host sees only its own interfaces, every round trip to it
// costs at least the RTT, and LinkDown cuts it off until LinkUp.
func TestNetworkHostIsIsolatedDelayedAndCanBeCutOff(t *testing.T) {
	const rtt = 40 * time.Millisecond
	f := startFleet(t, Options{Hosts: []HostSpec{{Name: "net-0"}, {Name: "net-1"}}, Network: true, RTT: rtt})
	h := f.Hosts()[0]
	c := dial(t, h)

	// /proc/net/dev has one "name:" line per interface of the namespace
	// (the twin's /sys/class/net is the fake NICs' sysfs, not the kernel's).
	ifaces := sshRun(t, c, "cat /proc/net/dev")
	if !strings.Contains(ifaces, linkInsideName+":") || !strings.Contains(ifaces, "lo:") || strings.Count(ifaces, ":") != 2 {
		t.Fatalf("host's interfaces: want only lo and %s, got\n%s", linkInsideName, ifaces)
	}

	// A command costs at least two round trips (open the channel, then run
	// it with a reply), so five in a row cannot beat ten RTTs.
	began := time.Now()
	for range 5 {
		sshRun(t, c, "true")
	}
	if took := time.Since(began); took < 10*rtt {
		t.Errorf("5 commands took %v, want at least %v with RTT %v", took, 10*rtt, rtt)
	}

	ctx := context.Background()
	if err := f.LinkDown(ctx, h.Name); err != nil {
		t.Fatal(err)
	}
	stalled := make(chan error, 1)
	go func() {
		_, err := sshOutput(c, "echo through")
		stalled <- err
	}()
	select {
	case err := <-stalled:
		t.Fatalf("a command went through a link that is down (err %v)", err)
	case <-time.After(1500 * time.Millisecond):
	}
	cfg := clientConfig(t, h)
	cfg.Timeout = 2 * time.Second
	if c2, err := ssh.Dial("tcp", h.Address, cfg); err == nil {
		c2.Close()
		t.Fatal("a new connection reached a host whose link is down")
	}
	other := dial(t, f.Hosts()[1])
	if got := sshRun(t, other, "cat /etc/hostname"); got != "net-1\n" {
		t.Errorf("other host answered %q while net-0 was cut off", got)
	}

	if err := f.LinkUp(ctx, h.Name); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-stalled:
		if err != nil {
			t.Fatalf("stalled command after LinkUp: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the stalled command did not finish after LinkUp")
	}
	if got := sshRun(t, dial(t, h), "cat /etc/hostname"); got != "net-0\n" {
		t.Errorf("after LinkUp: hostname %q", got)
	}
}

// Stop removes a Network host's link with its namespace, and a fleet
// without Network has no link to cut.
func TestNetworkLinksGoWithTheFleet(t *testing.T) {
	requireTwins(t)
	ctx := context.Background()
	f, err := Start(ctx, Options{Hosts: []HostSpec{{Name: "net-2"}}, Network: true})
	if err != nil {
		t.Fatal(err)
	}
	snap := takeSnapshot(t, f)
	link := f.twins[0].link
	if out, err := exec.Command("ip", "link", "show", link).CombinedOutput(); err != nil {
		t.Fatalf("link %s of a running host: %v: %s", link, err, out)
	}
	if err := f.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	snap.requireClean(t, false)
	if out, err := exec.Command("ip", "link", "show", link).CombinedOutput(); err == nil {
		t.Errorf("link %s outlived its fleet:\n%s", link, out)
	}

	plain := startFleet(t, Options{Hosts: []HostSpec{{Name: "net-3"}}})
	if err := plain.LinkDown(ctx, "net-3"); err == nil || !strings.Contains(err.Error(), "Options.Network") {
		t.Errorf("LinkDown without Network: %v, want an error naming Options.Network", err)
	}
	if _, err := Start(ctx, Options{Hosts: []HostSpec{{Name: "net-4"}}, RTT: time.Millisecond}); err == nil || !strings.Contains(err.Error(), "needs Network") {
		t.Errorf("RTT without Network: %v, want refused", err)
	}
}
