package hosttwin

import (
	"context"
	"errors"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

func TestKillSSHDMidSessionThenRestart(t *testing.T) {
	f := startFleet(t, Options{Hosts: []HostSpec{{Name: "crash"}}})
	ctx := context.Background()
	h, _ := f.Host("crash")
	c := dial(t, h)
	sshRun(t, c, "echo kept > /etc/hosttwin-restart-probe")
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start("sleep 600"); err != nil {
		t.Fatal(err)
	}
	if err := f.KillSSHD(ctx, "crash"); err != nil {
		t.Fatalf("KillSSHD: %v", err)
	}
	if err := s.Wait(); err == nil {
		t.Error("session survived KillSSHD")
	}
	if _, err := ssh.Dial("tcp", h.Address, clientConfig(t, h)); err == nil {
		t.Error("dial succeeded while sshd is killed")
	}
	if _, err := f.Root("crash"); err == nil {
		t.Error("Root of a killed host succeeded")
	}
	if err := f.RestartSSHD(ctx, "crash"); err != nil {
		t.Fatalf("RestartSSHD: %v", err)
	}
	after, _ := f.Host("crash")
	if after.Address != h.Address || after.HostPublicKey != h.HostPublicKey {
		t.Errorf("after restart host = %+v, want address %s and the same host key", after, h.Address)
	}
	// Same port, same keys (known_hosts still verifies), same files.
	c2 := dial(t, after)
	if got := sshRun(t, c2, "cat /etc/hosttwin-restart-probe"); got != "kept\n" {
		t.Errorf("file written before the crash reads %q after restart", got)
	}
	// Restarting a running sshd works too.
	if err := f.RestartSSHD(ctx, "crash"); err != nil {
		t.Fatalf("RestartSSHD of a running sshd: %v", err)
	}
	sshRun(t, dial(t, after), "true")
}

func TestRotateHostKeyBreaksKnownHosts(t *testing.T) {
	f := startFleet(t, Options{Hosts: []HostSpec{{Name: "rekey"}}})
	before, _ := f.Host("rekey")
	sshRun(t, dial(t, before), "true")
	if err := f.RotateHostKey(context.Background(), "rekey"); err != nil {
		t.Fatalf("RotateHostKey: %v", err)
	}
	after, _ := f.Host("rekey")
	if after.HostPublicKey == before.HostPublicKey {
		t.Fatal("HostPublicKey unchanged after RotateHostKey")
	}
	_, err := ssh.Dial("tcp", after.Address, clientConfig(t, after))
	var keyErr *knownhosts.KeyError
	if !errors.As(err, &keyErr) || len(keyErr.Want) == 0 {
		t.Fatalf("dial after rotation: err = %v, want a knownhosts key mismatch", err)
	}
	// The server really has the new key: pinning it connects.
	newKey, _, _, _, err := ssh.ParseAuthorizedKey([]byte(after.HostPublicKey))
	if err != nil {
		t.Fatal(err)
	}
	cfg := clientConfig(t, after)
	cfg.HostKeyCallback = ssh.FixedHostKey(newKey)
	c, err := ssh.Dial("tcp", after.Address, cfg)
	if err != nil {
		t.Fatalf("dial with the new key pinned: %v", err)
	}
	defer c.Close()
	if out, err := sshOutput(c, "cat /etc/hostname"); err != nil || strings.TrimSpace(out) != "rekey" {
		t.Errorf("hostname after rotation = %q, %v", out, err)
	}
}

func TestKillSSHDEndsRun(t *testing.T) {
	f := startFleet(t, Options{Hosts: []HostSpec{{Name: "runner"}}})
	ctx := context.Background()
	if out, err := f.Run(ctx, "runner", "cat /etc/hostname"); err != nil || string(out) != "runner\n" {
		t.Fatalf("Run = %q, %v", out, err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := f.Run(ctx, "runner", "sleep 600")
		done <- err
	}()
	waitFor(t, "the sleep of Run", func() bool {
		tw := f.twins[0]
		pids, _, _ := nsMembers(tw.ns, tw.pid, tw.start, tw.marker)
		return len(pids) >= 2
	})
	if err := f.KillSSHD(ctx, "runner"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Error("Run of sleep 600 returned no error after KillSSHD")
	}
	if _, err := f.Run(ctx, "runner", "true"); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("Run on a killed host: err = %v, want not running", err)
	}
}
