package ssh

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSudoCommand(t *testing.T) {
	tests := []struct {
		name     string
		cmd      string
		user     string
		password bool
		want     string
	}{
		{"non-interactive", "modprobe nvidia-peermem", "", false, `sudo -n -- sh -c 'modprobe nvidia-peermem'`},
		{"password on stdin", "modprobe nvidia-peermem", "", true, `sudo -S -p '' -- sh -c 'modprobe nvidia-peermem'`},
		{"as user", "id -un", "svc", false, `sudo -n -u svc -- sh -c 'id -un'`},
		{"as hostile user with password", "true", "a b'c", true, `sudo -S -p '' -u 'a b'\''c' -- sh -c true`},
		{"quotes in the command", `echo "it's" $HOME`, "", false, `sudo -n -- sh -c 'echo "it'\''s" $HOME'`},
		{"command substitution stays inside", "echo $(id -u); touch /tmp/x", "", false, `sudo -n -- sh -c 'echo $(id -u); touch /tmp/x'`},
		{"newline", "a\nb", "", false, "sudo -n -- sh -c 'a\nb'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SudoCommand(tt.cmd, tt.user, tt.password)
			if err != nil {
				t.Fatalf("SudoCommand: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SudoCommand mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := SudoCommand("a\x00b", "", false); err == nil {
		t.Error("SudoCommand with a NUL byte succeeded")
	}
}

// sudoFixture is a server whose PATH starts with the fake sudo of testdata.
type sudoFixture struct {
	fixture
	dir string // FAKE_SUDO_DIR: password, nopasswd, log
}

const sudoPassword = "s3cret sudo pw"

func newSudoFixture(t *testing.T, nopasswd bool) sudoFixture {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("testdata/fake-sudo.sh")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(bin, "sudo"), script, 0o755)
	writeFile(t, filepath.Join(dir, "password"), []byte(sudoPassword+"\n"), 0o600)
	if nopasswd {
		writeFile(t, filepath.Join(dir, "nopasswd"), nil, 0o600)
	}
	f := newFixture(t, serverOptions{setEnv: []string{"PATH=" + bin + ":/usr/bin:/bin", "FAKE_SUDO_DIR=" + dir}})
	return sudoFixture{fixture: f, dir: dir}
}

// log returns the fake sudo's invocations so far.
func (f sudoFixture) log(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.dir, "log"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

func TestSudoRun(t *testing.T) {
	const input = "line one\nline two\n"
	tests := []struct {
		name     string
		nopasswd bool // host sudoers: NOPASSWD
		become   Become
		opts     RunOptions
		wantLog  string // fake sudo log after the call (probe included)
	}{
		{
			name:     "without password, host NOPASSWD",
			nopasswd: true,
			opts:     RunOptions{Sudo: true},
			wantLog:  "root sh -c cat\n",
		},
		{
			name:    "password on stdin before the input",
			become:  Become{Password: sudoPassword},
			opts:    RunOptions{Sudo: true},
			wantLog: "root sh -c cat\n",
		},
		{
			name:     "password configured, host NOPASSWD: not sent",
			nopasswd: true,
			become:   Become{Password: sudoPassword},
			opts:     RunOptions{Sudo: true},
			wantLog:  "root true\nroot sh -c cat\n",
		},
		{
			name:    "become enabled for every command, as a user",
			become:  Become{Enabled: true, User: "postgres", Password: sudoPassword},
			wantLog: "postgres sh -c cat\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newSudoFixture(t, tt.nopasswd)
			f.cfg.Become = tt.become
			c := newTestPool(t, f.cfg).Client(f.srv.addr)
			opts := tt.opts
			opts.Stdin = strings.NewReader(input)
			got, err := c.Run(testContext(t), "cat", opts)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if diff := cmp.Diff(input, string(got.Stdout)); diff != "" {
				t.Errorf("the command's stdin was altered (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLog, f.log(t)); diff != "" {
				t.Errorf("sudo invocations (-want +got):\n%s", diff)
			}
			if strings.Contains(f.log(t), sudoPassword) {
				t.Error("the sudo password reached a command line")
			}
		})
	}
}

func TestSudoFailures(t *testing.T) {
	tests := []struct {
		name        string
		password    string
		wantCommand string
		wantStderr  string
	}{
		{"wrong password", "not the password", "sudo -S -p '' -- sh -c true", "incorrect password"},
		{"password needed, none configured", "", "sudo -n -- sh -c true", "a password is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newSudoFixture(t, false)
			f.cfg.Become = Become{Password: tt.password}
			c := newTestPool(t, f.cfg).Client(f.srv.addr)
			_, err := c.Run(testContext(t), "true", RunOptions{Sudo: true})
			var ce *CommandError
			if !errors.As(err, &ce) || ce.ExitStatus != 1 || !strings.Contains(err.Error(), tt.wantStderr) {
				t.Fatalf("Run = %v, want a *CommandError with sudo's complaint %q", err, tt.wantStderr)
			}
			if tt.password != "" && strings.Contains(err.Error(), tt.password) {
				t.Errorf("error %q contains the password", err)
			}
			if ce.Command != tt.wantCommand {
				t.Errorf("Command = %q, want %q", ce.Command, tt.wantCommand)
			}
		})
	}
}

// TestRealSudo runs the decorated command through the system's sudo when it
// is installed (as root, sudo -n needs no sudoers entry).
func TestRealSudo(t *testing.T) {
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
