package shell

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScriptRender(t *testing.T) {
	a, b, c := New("a"), New("b", "x y"), New("c")
	tests := []struct {
		name   string
		script Script
		want   string
	}{
		{"pipe", Pipe(New("lsmod"), New("grep", "nvidia_peermem")), "lsmod | grep nvidia_peermem"},
		{"pipe of one", Pipe(a), "a"},
		{"and", And(a, b, c), "a && b 'x y' && c"},
		{"or true", Or(New("ofed_info", "-s"), New("true")), "ofed_info -s || true"},
		{"seq", Seq(a, b), "a; b 'x y'"},
		{"pipe inside and", And(Pipe(a, b), c), "a | b 'x y' && c"},
		{"pipe of pipes", Pipe(Pipe(a, b), c), "a | b 'x y' | c"},
		{"and first operand of or", Or(And(a, b), c), "a && b 'x y' || c"},
		{"or as right operand of and", And(a, Or(b, c)), "a && { b 'x y' || c; }"},
		{"and inside pipe", Pipe(And(a, b), c), "{ a && b 'x y'; } | c"},
		{"seq inside and", And(Seq(a, b), c), "{ a; b 'x y'; } && c"},
		{"seq of seqs", Seq(Seq(a, b), Seq(c, a)), "a; b 'x y'; c; a"},
		{"redirect whole pipeline", Pipe(a, b).With(Discard(2)), "{ a | b 'x y'; } 2>/dev/null"},
		{"redirect simple", Pipe(a).With(Discard(2)), "a 2>/dev/null"},
		{"command redirect in pipe", Pipe(a.With(Discard(2)), c), "a 2>/dev/null | c"},
		{"raw", Raw("for i in 1 2; do echo $i; done"), "for i in 1 2; do echo $i; done"},
		{"raw in and", And(Raw("true"), a), "{ true; } && a"},
		{"raw ending in semicolon", Pipe(Raw("echo x;"), c), "{ echo x;\n} | c"},
		{"raw with comment", And(Raw("echo x # note"), c), "{ echo x # note\n} && c"},
		{"sh -c", Pipe(Sh(Pipe(a, b)), c), "sh -c 'a | b '\\''x y'\\''' | c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.script.Render()
			if err != nil {
				t.Fatalf("Render() error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Render() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScriptErrors(t *testing.T) {
	tests := []struct {
		name    string
		script  Script
		wantErr error
	}{
		{"empty pipe", Pipe(), nil},
		{"empty and", And(), nil},
		{"NUL in part", And(New("a"), New("b", "\x00")), ErrNUL},
		{"bad env in part", Pipe(New("a").Env("1X", "v"), New("b")), ErrInvalidName},
		{"raw NUL", Raw("echo \x00"), ErrNUL},
		{"raw empty", Raw("  \n"), nil},
		{"bad redirect", Pipe(New("a"), New("b")).With(ToFile(1, "")), nil},
		{"error in nested", Seq(New("ok"), Or(New(""), New("true"))), nil},
		{"zero script", Script{}, nil},
		{"redirect of zero script", Script{}.With(Discard(2)), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.script.Render()
			if err == nil {
				t.Fatalf("Render() = %q, want error", got)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("Render() error = %v, want %v", err, tt.wantErr)
			}
		})
	}
	if err := Sh(Raw("echo \x00")).Err(); !errors.Is(err, ErrNUL) {
		t.Errorf("Sh of a bad script: Err() = %v, want ErrNUL", err)
	}
}

// TestScriptSemantics runs composed scripts in real shells and checks the
// grouping does what the Go structure says.
func TestScriptSemantics(t *testing.T) {
	echo := func(s string) Command { return New("printf", "%s\n", s) }
	tests := []struct {
		name   string
		script Script
		want   string
	}{
		// And(false, Or(x, y)) must print nothing: the Or is one operand.
		{"right operand grouped", And(New("false"), Or(echo("x"), echo("y"))), ""},
		{"left operand", Or(And(New("false"), echo("x")), echo("y")), "y\n"},
		{"pipe of group", Pipe(Seq(echo("b"), echo("a")), New("sort")), "a\nb\n"},
		{"redirect group", Seq(echo("out"), New("sh", "-c", "echo err >&2")).With(Dup(2, 1)), "out\nerr\n"},
		{"raw with comment", And(Raw("printf 'r\\n' # c"), echo("x")), "r\nx\n"},
		{"sh -c nested quoting", Pipe(Sh(Seq(echo("it's"), echo("$(no)"))), New("cat")), "it's\n$(no)\n"},
	}
	for _, sh := range shells(t) {
		if strings.HasSuffix(sh, "busybox") {
			continue
		}
		for _, tt := range tests {
			t.Run(sh+"/"+tt.name, func(t *testing.T) {
				line, err := tt.script.Render()
				if err != nil {
					t.Fatal(err)
				}
				out, _ := exec.Command(sh, "-c", line).Output()
				if diff := cmp.Diff(tt.want, string(out)); diff != "" {
					t.Errorf("%s -c %q output mismatch (-want +got):\n%s", sh, line, diff)
				}
			})
		}
	}
}

// TestExec checks that Exec renders "exec <command>" and that the shell becomes the command:
// the same PID, and nothing after it runs.
func TestExec(t *testing.T) {
	script := Seq(Raw("echo $$"), Exec(Sh(Raw("echo $$"))), New("echo", "never"))
	line, err := script.Render()
	if err != nil {
		t.Fatal(err)
	}
	if want := `echo $$; exec sh -c 'echo $$'; echo never`; line != want {
		t.Errorf("Render() = %q, want %q", line, want)
	}
	for _, sh := range shells(t) {
		out, err := exec.Command(sh, "-c", line).Output()
		if err != nil {
			t.Fatalf("%s: %v", sh, err)
		}
		pids := strings.Fields(string(out))
		if len(pids) != 2 || pids[0] != pids[1] {
			t.Errorf("%s -c %q printed %q, want the same PID twice and nothing else", sh, line, out)
		}
	}
	if _, err := Exec(Sh(Raw("echo \x00"))).Render(); !errors.Is(err, ErrNUL) {
		t.Errorf("Exec of a bad command: Render() error = %v, want ErrNUL", err)
	}
}
