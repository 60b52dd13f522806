package hostreplay

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// echoHost is a host that prints its standard input back and a fixed line, fails "false",
// and holds one file.
type echoHost struct{ files map[string]string }

func (echoHost) Address() string { return "echo:22" }

func (echoHost) Run(_ context.Context, cmd shell.Runnable, opts ssh.RunOptions) (ssh.Result, error) {
	line, _ := cmd.Render()
	in, _ := io.ReadAll(opts.Stdin)
	if line == "false" {
		return ssh.Result{}, &ssh.CommandError{Host: "echo:22", Command: line, ExitStatus: 1, Stderr: []byte("no")}
	}
	return ssh.Result{Stdout: append([]byte("got "), in...), Stderr: []byte("line " + line)}, nil
}

func (h echoHost) WriteFile(_ context.Context, path string, data []byte, _ os.FileMode, _ string, _ bool) error {
	h.files[path] = string(data)
	return nil
}

func (h echoHost) ReadFile(_ context.Context, path string, _ bool) ([]byte, error) {
	s, ok := h.files[path]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return []byte(s), nil
}

const nonceA, nonceB = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"

// session is what a caller does with a host: a gather with a nonce, a write, two reads, a
// failing command.
func session(t *testing.T, r interface {
	Run(context.Context, shell.Runnable, ssh.RunOptions) (ssh.Result, error)
	WriteFile(context.Context, string, []byte, os.FileMode, string, bool) error
	ReadFile(context.Context, string, bool) ([]byte, error)
}, nonce string) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	res, err := r.Run(ctx, shell.Raw("gather"), ssh.RunOptions{Stdin: strings.NewReader(nonce + "\n"), Sudo: true})
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, string(res.Stdout), string(res.Stderr))
	if err := r.WriteFile(ctx, "/etc/x.conf", []byte("a=1\n"), 0o644, "root", true); err != nil {
		t.Fatal(err)
	}
	b, err := r.ReadFile(ctx, "/etc/x.conf", false)
	out = append(out, string(b), errText(err))
	_, err = r.ReadFile(ctx, "/etc/none", false)
	out = append(out, fmtBool(errors.Is(err, fs.ErrNotExist)))
	_, err = r.Run(ctx, shell.Raw("false"), ssh.RunOptions{})
	var ce *ssh.CommandError
	out = append(out, fmtBool(errors.As(err, &ce) && ce.ExitStatus == 1 && string(ce.Stderr) == "no"))
	return out
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func fmtBool(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// TestRecordThenPlay: a recording saved and loaded answers the same session as the host
// did, with the new gather's nonce in place of the recorded one, and says which calls it
// got.
func TestRecordThenPlay(t *testing.T) {
	rec := Record(echoHost{files: map[string]string{}})
	live := session(t, rec, nonceA)
	calls := rec.Calls()
	if len(calls) != 5 {
		t.Fatalf("recorded %d calls, want 5: %+v", len(calls), calls)
	}
	if got := calls[0]; got.Stdin != nonceMark+"\n" || got.Stdout != "got "+nonceMark+"\n" || strings.Contains(got.Stdout, nonceA) {
		t.Errorf("the nonce was stored: %+v", got)
	}
	path := filepath.Join(t.TempDir(), "rec.json.gz")
	if err := (Recording{"echo": calls}).Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	p := Play("echo:22", loaded["echo"])
	replayed := session(t, p, nonceB)
	want := append([]string{}, live...)
	want[0] = strings.ReplaceAll(want[0], nonceA, nonceB)
	if diff := cmp.Diff(want, replayed); diff != "" {
		t.Errorf("replay differs from the host (-host +replay):\n%s", diff)
	}
	if u := p.Unused(); len(u) != 0 {
		t.Errorf("unused calls: %+v", u)
	}
	if got := len(p.Got()); got != 5 {
		t.Errorf("Got() has %d calls, want 5", got)
	}
}

// TestPlayRefusesWhatWasNotRecorded: another command, other file contents or one call too
// many fail, naming what was asked.
func TestPlayRefusesWhatWasNotRecorded(t *testing.T) {
	rec := Record(echoHost{files: map[string]string{}})
	session(t, rec, nonceA)
	ctx := context.Background()
	p := Play("echo:22", rec.Calls())
	if _, err := p.Run(ctx, shell.Raw("gather --more"), ssh.RunOptions{}); err == nil || !strings.Contains(err.Error(), `run "gather --more"`) {
		t.Errorf("another command: %v", err)
	}
	if err := p.WriteFile(ctx, "/etc/x.conf", []byte("a=2\n"), 0o644, "root", true); err == nil || !strings.Contains(err.Error(), "write /etc/x.conf") {
		t.Errorf("other contents: %v", err)
	}
	if err := p.WriteFile(ctx, "/etc/x.conf", []byte("a=1\n"), 0o644, "root", true); err != nil {
		t.Errorf("the recorded write: %v", err)
	}
	if err := p.WriteFile(ctx, "/etc/x.conf", []byte("a=1\n"), 0o644, "root", true); err == nil || !strings.Contains(err.Error(), "none left") {
		t.Errorf("a second write: %v", err)
	}
	if u := p.Unused(); len(u) != 4 {
		t.Errorf("unused = %d calls, want the 4 not asked for", len(u))
	}
}
