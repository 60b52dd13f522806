package ssh

import (
	"os"
	"os/user"
	"path/filepath"
	"testing"
)

func TestExpandHome(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	root, err := user.Lookup("root")
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{
		"~/.ssh/id_ed25519":        filepath.Join(home, ".ssh/id_ed25519"),
		"~":                        home,
		"~root/.ssh/known_hosts":   filepath.Join(root.HomeDir, ".ssh/known_hosts"),
		"~no-such-user-roce/x":     "~no-such-user-roce/x",
		"/etc/ssh/ssh_known_hosts": "/etc/ssh/ssh_known_hosts",
		"keys/~/id":                "keys/~/id",
	} {
		if got := expandHome(in); got != want {
			t.Errorf("expandHome(%q) = %q, want %q", in, got, want)
		}
	}
	c := Config{PrivateKeyFile: "~/.ssh/id_ed25519", Jumps: []Hop{{KnownHostsFile: "~/.ssh/known_hosts"}}}.withDefaults()
	if c.PrivateKeyFile != filepath.Join(home, ".ssh/id_ed25519") || c.Jumps[0].KnownHostsFile != filepath.Join(home, ".ssh/known_hosts") {
		t.Errorf("withDefaults did not expand ~: %q, %q", c.PrivateKeyFile, c.Jumps[0].KnownHostsFile)
	}
}

// TestPrivateKeyFileWithTilde logs in with a key named as the docs show it, ~/..., through
// the real sshd: the path is the user's, as OpenSSH reads it.
func TestPrivateKeyFileWithTilde(t *testing.T) {
	f := newFixture(t, serverOptions{})
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.WriteFile(filepath.Join(home, "id_test"), []byte(f.cfg.PrivateKey), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := f.cfg
	cfg.PrivateKey, cfg.PrivateKeyFile = "", "~/id_test"
	if got := mustRun(t, newTestPool(t, cfg).Client(f.srv.addr), "echo ok"); string(got.Stdout) != "ok\n" {
		t.Fatalf("Run with ~/id_test = %q", got.Stdout)
	}
}
