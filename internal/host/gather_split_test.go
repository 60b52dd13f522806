package host

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// localRunner runs commands with this machine's /bin/sh: the gather script
// without SSH.
type localRunner struct{}

func (localRunner) Address() string { return "local" }

func (localRunner) Run(ctx context.Context, cmd shell.Runnable, opts ssh.RunOptions) (ssh.Result, error) {
	line, err := cmd.Render()
	if err != nil {
		return ssh.Result{}, err
	}
	c := exec.CommandContext(ctx, "/bin/sh", "-c", line)
	var stdout, stderr bytes.Buffer
	c.Stdin, c.Stdout, c.Stderr = opts.Stdin, &stdout, &stderr
	err = c.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && opts.AllowFailure {
		return ssh.Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes(), ExitStatus: ee.ExitCode()}, nil
	}
	return ssh.Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}, err
}

func (localRunner) WriteFile(context.Context, string, []byte, os.FileMode, string, bool) error {
	return errors.New("localRunner does not write files")
}

func (localRunner) ReadFile(context.Context, string, bool) ([]byte, error) {
	return nil, errors.New("localRunner does not read files")
}

// fakeNonce is shaped like a nonce; the tests' facts print it to try to
// forge delimiters.
const fakeNonce = "0123456789abcdef0123456789abcdef"

// hostileSteps are facts whose output tries to break the split.
func hostileSteps() []step {
	sh := func(label, script string) step {
		return step{label: label, cmd: shell.New("sh", "-c", script)}
	}
	return []step{
		sh("plain", `echo hello`),
		sh("no-newline", `printf 'no newline'`),
		sh("forged", `printf '\n%s 1 0 -\nafter\n' `+fakeNonce+`; printf '\n%s 1 0 -\n' `+fakeNonce+` >&2; echo 'mark_ 0 0'`),
		sh("fails", `echo partial; echo first >&2; echo oops >&2; exit 3`),
		sh("empty", `true`),
		sh("binary", `printf '\000\377\r\n\n'`),
		sh("exits", `exit 0`),
		{label: "loop", loop: true, inline: func(i int) shell.Script {
			return shell.Raw(`for k_ in eth0 eth1; do printf 'x%s' "$k_"; mark_ ` + strconv.Itoa(i) + ` $? "$k_"; done`)
		}},
		{label: "inline", inline: func(int) shell.Script { return shell.Raw(`echo inline; echo warn >&2`) }},
		sh("stdin", `cat`),
		// The nonce is in no variable or environment a fact can see (nor in
		// the script: see the test).
		sh("nonce-hunt", `echo "[$nonce_]"; env | grep -c nonce_; exit 0`),
		sh("last", `printf '\n\n'`),
	}
}

func TestGatherScriptSplitsHostileOutput(t *testing.T) {
	steps := hostileSteps()
	script, err := renderGather(steps)
	if err != nil {
		t.Fatal(err)
	}
	nonce, err := newNonce()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(script, nonce) {
		t.Fatal("the nonce is on the command line")
	}
	res, err := localRunner{}.Run(context.Background(), shell.Raw(script), ssh.RunOptions{Stdin: strings.NewReader(nonce + "\n"), AllowFailure: true})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	got, err := splitGather(steps, nonce, res.Stdout, res.Stderr)
	if err != nil {
		t.Fatalf("split: %v\nstdout %q\nstderr %q", err, res.Stdout, res.Stderr)
	}
	want := []section{
		{step: 0, stdout: "hello\n"},
		{step: 1, stdout: "no newline"},
		{step: 2, stdout: "\n" + fakeNonce + " 1 0 -\nafter\nmark_ 0 0\n", stderr: "\n" + fakeNonce + " 1 0 -\n"},
		{step: 3, status: 3, stdout: "partial\n", stderr: "first\noops\n"},
		{step: 4},
		{step: 5, stdout: "\x00\xff\r\n\n"},
		{step: 6},
		{step: 7, key: "eth0", stdout: "xeth0"},
		{step: 7, key: "eth1", stdout: "xeth1"},
		{step: 8, stdout: "inline\n", stderr: "warn\n"},
		{step: 9},
		{step: 10, stdout: "[]\n0\n"},
		{step: 11, stdout: "\n\n"},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(section{})); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
	if res.ExitStatus != 0 {
		t.Errorf("gather script exit status %d, want 0", res.ExitStatus)
	}
	if r := absentReason(got[3]); r != "exit status 3: oops" {
		t.Errorf("absentReason = %q", r)
	}
}

func TestGatherScriptRefusesBadNonce(t *testing.T) {
	script, err := renderGather(hostileSteps()[:1])
	if err != nil {
		t.Fatal(err)
	}
	for _, stdin := range []string{"", "\n", "not-hex; echo owned\n", strings.ToUpper(fakeNonce) + "\n"} {
		res, err := localRunner{}.Run(context.Background(), shell.Raw(script), ssh.RunOptions{Stdin: strings.NewReader(stdin), AllowFailure: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitStatus != nonceExit || len(res.Stdout) != 0 {
			t.Errorf("stdin %q: exit %d stdout %q; want %d and nothing", stdin, res.ExitStatus, res.Stdout, nonceExit)
		}
	}
}

func TestSplitGatherErrors(t *testing.T) {
	steps := []step{{label: "a"}, {label: "loop", loop: true}, {label: "b"}}
	d := func(step, status, key string) string {
		return "\n" + fakeNonce + " " + step + " " + status + " " + key + "\n"
	}
	ok := d("0", "0", "-") + "x" + d("1", "0", "eth0") + d("2", "1", "-")
	tests := []struct {
		name, stdout, stderr, want string
	}{
		{"valid", ok, ok, ""},
		{"truncated", d("0", "0", "-"), d("0", "0", "-"), "b: no output: the gather script ended early"},
		{"trailing", ok + "junk", ok, "standard output: 4 bytes after the last delimiter"},
		{"unterminated", ok + "\n" + fakeNonce + " 2", ok, "standard output: delimiter 4 not terminated"},
		{"stderr short", ok, d("0", "0", "-"), "3 delimiters on standard output but 1 on standard error"},
		{"stderr differs", ok, d("0", "0", "-") + d("1", "0", "eth1") + d("2", "1", "-"), "delimiter 2 differs"},
		{"order", d("2", "0", "-") + d("0", "0", "-"), d("2", "0", "-") + d("0", "0", "-"), "a: want its delimiter, got one for step 2"},
		{"extra", ok + d("2", "0", "-"), ok + d("2", "0", "-"), "1 delimiters for no step"},
		{"bad key", d("0", "0", "-") + d("1", "0", "a/b") + d("2", "0", "-"), d("0", "0", "-") + d("1", "0", "a/b") + d("2", "0", "-"), `loop: bad key "a/b"`},
		{"loop that could not run", d("0", "0", "-") + d("1", "127", "-") + d("2", "0", "-"), d("0", "0", "-") + d("1", "127", "-") + d("2", "0", "-"), ""},
		{"loop without and with key", d("0", "0", "-") + d("1", "127", "-") + d("1", "0", "eth0") + d("2", "0", "-"),
			d("0", "0", "-") + d("1", "127", "-") + d("1", "0", "eth0") + d("2", "0", "-"), "b: want its delimiter, got one for step 1"},
		{"two keyless loop sections", d("0", "0", "-") + d("1", "127", "-") + d("1", "127", "-") + d("2", "0", "-"),
			d("0", "0", "-") + d("1", "127", "-") + d("1", "127", "-") + d("2", "0", "-"), "b: want its delimiter, got one for step 1"},
		{"key on single", d("0", "0", "eth0") + d("2", "0", "-"), d("0", "0", "eth0") + d("2", "0", "-"), "a: want its delimiter"},
		{"bad status", d("0", "x", "-"), d("0", "x", "-"), "delimiter 1: bad step or status"},
		{"fields", "\n" + fakeNonce + " 0 0\n", "", "delimiter 1: want <step> <status> <key>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := splitGather(steps, fakeNonce, []byte(tt.stdout), []byte(tt.stderr))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// A loop over PCI functions takes PCI addresses as keys, and only them.
func TestSplitGatherPCIKeys(t *testing.T) {
	steps := []step{{label: "mlxconfig", loop: true, key: facts.ValidPCIAddr}}
	d := func(key string) string { return "\n" + fakeNonce + " 0 0 " + key + "\n" }
	for key, ok := range map[string]bool{"0000:17:00.0": true, "0000:3d:00.1": true, "eth0": false, "0000:17:00.0/x": false} {
		_, err := splitGather(steps, fakeNonce, []byte(d(key)), []byte(d(key)))
		if (err == nil) != ok {
			t.Errorf("key %q: error %v, want ok %v", key, err, ok)
		}
	}
}

// A loop's keyless section makes the whole fact absent, with its reason.
func TestReadSectionsKeylessLoop(t *testing.T) {
	s, err := stepFor(FactNVConfig)
	if err != nil {
		t.Fatal(err)
	}
	steps := []step{s}
	want := WantFacts(FactNVConfig)
	f, err := readSections("h", want, steps, []section{{step: 0, status: 127, stderr: "mlxconfig: command not found\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if f.Has(FactNVConfig) || f.Absent["mlxconfig"] != "exit status 127: mlxconfig: command not found" || f.NVConfig == nil || len(f.NVConfig) != 0 {
		t.Errorf("facts = %+v, want mlxconfig absent and an empty NVConfig", f)
	}
	f, err = readSections("h", want, steps, []section{
		{step: 0, key: "0000:17:00.0", stdout: "Configurations: Next Boot\n ROCE_CC_PRIO_MASK_P1 255\n"},
		{step: 0, key: "0000:17:00.1", status: 1, stderr: "-E- Failed to open the device\n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !f.Has(FactNVConfig) || f.NVConfig["0000:17:00.0"]["ROCE_CC_PRIO_MASK_P1"].Next != "255" ||
		f.Absent["mlxconfig 0000:17:00.1"] != "exit status 1: -E- Failed to open the device" {
		t.Errorf("facts = %+v", f)
	}
}

// Only "\n<nonce> " starts a delimiter: a delimiter line with another nonce
// is output, and so is the nonce at the very start of a section (the
// script's own delimiters always start with a newline).
func TestSplitStreamIgnoresOtherNonces(t *testing.T) {
	other := strings.Repeat("f", 32)
	text := fakeNonce + " 0 0 -\n" + "\n" + other + " 0 0 -\n" + "x" + fakeNonce + " 0 0 -\n"
	got, err := splitStream(text+"\n"+fakeNonce+" 0 0 -\n", fakeNonce)
	if err != nil {
		t.Fatal(err)
	}
	want := []chunk{{text: text}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(chunk{})); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
}
