package ssh

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSudoCommand(t *testing.T) {
	tests := []struct {
		name string
		cmd  string
		user string
		want string
	}{
		{"non-interactive", "modprobe nvidia-peermem", "", `sudo -n -- sh -c 'modprobe nvidia-peermem'`},
		{"as user", "id -un", "svc", `sudo -n -u svc -- sh -c 'id -un'`},
		{"as hostile user", "true", "a b'c", `sudo -n -u 'a b'\''c' -- sh -c true`},
		{"quotes in the command", `echo "it's" $HOME`, "", `sudo -n -- sh -c 'echo "it'\''s" $HOME'`},
		{"command substitution stays inside", "echo $(id -u); touch /tmp/x", "", `sudo -n -- sh -c 'echo $(id -u); touch /tmp/x'`},
		{"newline", "a\nb", "", "sudo -n -- sh -c 'a\nb'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SudoCommand(tt.cmd, tt.user)
			if err != nil {
				t.Fatalf("SudoCommand: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SudoCommand mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := SudoCommand("a\x00b", ""); err == nil {
		t.Error("SudoCommand with a NUL byte succeeded")
	}
}

// The sudo tests run the system's sudo (make sshd installs it) with sudoers rules of
// their own, for a user of their own: sudo never asks root for a password.

// sudoPassword is the password of every sudoer, for SSH and for sudo.
const sudoPassword = "s3cret sudo pw"

// newSudoer creates a local user whose password is sudoPassword, with rules as its
// sudoers file, each a line where %[1]s is the user's name; both go when the test ends.
func newSudoer(t *testing.T, rules ...string) string {
	t.Helper()
	if _, err := exec.LookPath("sudo"); err != nil {
		t.Fatal("sudo is not installed: make sshd installs it (Debian package sudo)")
	}
	name := localUser(t, sudoPassword)
	var b strings.Builder
	for _, r := range rules {
		fmt.Fprintf(&b, r+"\n", name)
	}
	// A broken file in /etc/sudoers.d stops every sudo on the machine: visudo checks it first.
	draft := filepath.Join(t.TempDir(), "sudoers")
	writeFile(t, draft, []byte(b.String()), 0o440)
	if out, err := exec.Command("visudo", "-c", "-q", "-f", draft).CombinedOutput(); err != nil {
		t.Fatalf("sudoers rules %q: %v: %s", b.String(), err, out)
	}
	path := filepath.Join("/etc/sudoers.d", name)
	writeFile(t, path, []byte(b.String()), 0o440)
	t.Cleanup(func() {
		if err := os.Remove(path); err != nil {
			t.Errorf("remove %s: %v", path, err)
		}
		_ = os.Remove(filepath.Join("/run/sudo/ts", name)) // its timestamps, if any
	})
	return name
}

// sudoerClient logs in to a fresh server as the sudoer with its password, with become.
func sudoerClient(t *testing.T, name string, become Become) *Client {
	t.Helper()
	srv := startServer(t, serverOptions{password: true})
	cfg := Config{User: name, Password: sudoPassword, KnownHostsFile: knownHostsFile(t, srv.knownLine()), ConnectTimeout: 10 * time.Second, Become: become}
	return newTestPool(t, cfg).Client(srv.addr)
}

// sudoFixture is a server that root logs in to (the SFTP tests write root's files), where
// "sudo" is the system's sudo run by a sudoer: it asks for sudoPassword (unless nopasswd)
// and runs the command as root.
type sudoFixture struct {
	fixture
	sudoer string
}

func newSudoFixture(t *testing.T, nopasswd bool) sudoFixture {
	t.Helper()
	rule := "%[1]s ALL=(ALL:ALL) ALL"
	if nopasswd {
		rule = "%[1]s ALL=(ALL:ALL) NOPASSWD: ALL"
	}
	name := newSudoer(t, "Defaults:%[1]s timestamp_timeout=0", rule)
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(bin, "sudo"), []byte("#!/bin/sh\nexec setpriv --reuid="+name+" --regid="+name+" --init-groups /usr/bin/sudo \"$@\"\n"), 0o755)
	f := newFixture(t, serverOptions{setEnv: []string{"PATH=" + bin + ":/usr/bin:/bin"}})
	return sudoFixture{fixture: f, sudoer: name}
}

// TestSudoPasswordOnlyWhenAsked: a sudoer that needs a password for everything but a
// NOPASSWD command: the password goes to sudo when it asks, and never to the command.
func TestSudoPasswordOnlyWhenAsked(t *testing.T) {
	name := newSudoer(t,
		"Defaults:%[1]s timestamp_timeout=0",
		"%[1]s ALL=(ALL:ALL) ALL",
		// sudo runs every command as sh -c '...': this matches those that end in cat.
		"%[1]s ALL=(root) NOPASSWD: /usr/bin/sh -c *cat")
	c := sudoerClient(t, name, Become{Password: sudoPassword})

	got := mustRunOpts(t, c, "id -un; echo on-stderr >&2", RunOptions{Sudo: true})
	if string(got.Stdout) != "root\n" {
		t.Errorf("id -un under sudo with the password = %q, want root", got.Stdout)
	}
	if stderr := string(got.Stderr); !strings.Contains(stderr, "on-stderr\n") || strings.Contains(stderr, "sudo via roce") || strings.Contains(stderr, "ROCE-SUDO") {
		t.Errorf("Stderr = %q, want the command's own, without sudo's prompt or the marker", stderr)
	}

	const input = "line one\nline two\n"
	for _, stdin := range []string{input, ""} {
		opts := RunOptions{Sudo: true}
		if stdin != "" {
			opts.Stdin = strings.NewReader(stdin)
		}
		got := mustRunOpts(t, c, "cat", opts)
		if diff := cmp.Diff(stdin, string(got.Stdout)); diff != "" {
			t.Errorf("a NOPASSWD command's stdin (-want +got):\n%s", diff)
		}
		if strings.Contains(string(got.Stdout)+string(got.Stderr), sudoPassword) {
			t.Errorf("the password reached a command that sudo ran without asking: %q", got.Stdout)
		}
	}
}

// TestSudoCachedTimestamp: once sudo has a timestamp it stops asking; the password must
// then reach neither a command's stdin nor a file written through sudo.
func TestSudoCachedTimestamp(t *testing.T) {
	// The timestamp is global: each SSH session has another parent process and no tty.
	name := newSudoer(t, "Defaults:%[1]s timestamp_type=global", "%[1]s ALL=(ALL:ALL) ALL")
	c := sudoerClient(t, name, Become{Password: sudoPassword})
	mustRunOpts(t, c, "true", RunOptions{Sudo: true})
	if _, err := c.Run(testContext(t), "sudo -n true", RunOptions{}); err != nil {
		t.Fatalf("sudo -n true after a sudo with the password: %v; want the timestamp cached", err)
	}

	const input = "line one\nline two\n"
	got := mustRunOpts(t, c, "cat", RunOptions{Sudo: true, Stdin: strings.NewReader(input)})
	if diff := cmp.Diff(input, string(got.Stdout)); diff != "" {
		t.Errorf("stdin of a command run on a cached timestamp (-want +got):\n%s", diff)
	}
	path := filepath.Join(t.TempDir(), "nccl.conf")
	data := []byte("NCCL_IB_HCA==mlx5_0\n")
	if err := c.WriteFile(testContext(t), path, data, 0o644, "", true); err != nil {
		t.Fatalf("WriteFile through sudo on a cached timestamp: %v", err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != string(data) {
		t.Errorf("file written through sudo = %q, %v; want %q", b, err, data)
	}
}

// TestSudoWrongPassword: when sudo asks again, Run stops it and says why, at once.
func TestSudoWrongPassword(t *testing.T) {
	name := newSudoer(t, "Defaults:%[1]s timestamp_timeout=0", "%[1]s ALL=(ALL:ALL) ALL")
	const wrong = "not the password"
	c := sudoerClient(t, name, Become{Password: wrong})
	start := time.Now()
	_, err := c.Run(testContext(t), "cat", RunOptions{Sudo: true, Stdin: strings.NewReader("not for sudo\n")})
	elapsed := time.Since(start)
	if !errors.Is(err, ErrSudoPassword) {
		t.Fatalf("Run with a wrong sudo password = %v, want ErrSudoPassword", err)
	}
	if !strings.Contains(err.Error(), c.Address()) || strings.Contains(err.Error(), wrong) {
		t.Errorf("error %q: want the host, and not the password", err)
	}
	// sudo waits a while before it asks again (PAM's delay after a failure, 2 s).
	if elapsed > 15*time.Second {
		t.Errorf("Run with a wrong password returned after %s, want soon after sudo's second prompt", elapsed)
	}
	got := mustRun(t, c, "pgrep -f '^sudo -S -p \\[sudo via roce' || echo none")
	if string(got.Stdout) != "none\n" {
		t.Errorf("sudo still runs after the refused password: %q", got.Stdout)
	}
}

// TestSudoWithoutPassword: without Become.Password, sudo -n runs what sudoers allows and
// fails, rather than waiting, on what needs a password.
func TestSudoWithoutPassword(t *testing.T) {
	t.Run("NOPASSWD", func(t *testing.T) {
		name := newSudoer(t, "%[1]s ALL=(ALL:ALL) NOPASSWD: ALL")
		c := sudoerClient(t, name, Become{})
		const input = "line one\nline two\n"
		got := mustRunOpts(t, c, "cat", RunOptions{Sudo: true, Stdin: strings.NewReader(input)})
		if diff := cmp.Diff(input, string(got.Stdout)); diff != "" {
			t.Errorf("stdin (-want +got):\n%s", diff)
		}
	})
	t.Run("password needed, none configured", func(t *testing.T) {
		name := newSudoer(t, "%[1]s ALL=(ALL:ALL) ALL")
		c := sudoerClient(t, name, Become{})
		_, err := c.Run(testContext(t), "true", RunOptions{Sudo: true})
		var ce *CommandError
		if !errors.As(err, &ce) || ce.ExitStatus != 1 || !strings.Contains(err.Error(), "a password is required") {
			t.Fatalf("Run = %v, want a *CommandError with sudo's complaint", err)
		}
		if want := "sudo -n -- sh -c true"; ce.Command != want {
			t.Errorf("Command = %q, want %q", ce.Command, want)
		}
	})
}

// TestBecomeEnabled: Become.Enabled runs every command through sudo, as Become.User.
func TestBecomeEnabled(t *testing.T) {
	name := newSudoer(t, "Defaults:%[1]s timestamp_timeout=0", "%[1]s ALL=(ALL:ALL) ALL")
	c := sudoerClient(t, name, Become{Enabled: true, User: "nobody", Password: sudoPassword})
	const input = "line one\n"
	got := mustRunOpts(t, c, "id -un; cat", RunOptions{Stdin: strings.NewReader(input)})
	if want := "nobody\n" + input; string(got.Stdout) != want {
		t.Errorf("Stdout = %q, want %q", got.Stdout, want)
	}
}

// TestRealSudo runs the decorated command through the system's sudo when it
// is installed (as root, sudo -n needs no sudoers entry).
func TestRealSudo(t *testing.T) {
	if testing.Short() {
		t.Skip("needs root: left out of the fast tier (-short, make unit); make test runs it")
	}
	if os.Geteuid() != 0 {
		t.Fatal("TestRealSudo needs root, as make test does")
	}
	if _, err := exec.LookPath("sudo"); err != nil {
		t.Fatal("sudo is not installed: make tools installs it (Debian package sudo)")
	}
	f := newFixture(t, serverOptions{})
	got := mustRunOpts(t, newTestPool(t, f.cfg).Client(f.srv.addr), "id -u", RunOptions{Sudo: true})
	if strings.TrimSpace(string(got.Stdout)) != "0" {
		t.Errorf("id -u under sudo = %q, want 0", got.Stdout)
	}
}

func mustRunOpts(t *testing.T, c *Client, cmd string, opts RunOptions) Result {
	t.Helper()
	res, err := c.Run(testContext(t), cmd, opts)
	if err != nil {
		t.Fatalf("Run(%q): %v", cmd, err)
	}
	return res
}
