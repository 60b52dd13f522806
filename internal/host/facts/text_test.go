package facts

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLines(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"\n", nil},
		{"\n\n", []string{"", ""}},
		{"a\nb\n", []string{"a", "b"}},
		{"a\r\nb", []string{"a", "b"}},
		{"\x1b[4m\tGPU0\x1b[0m\n", []string{"\tGPU0"}},
		{"\x1b[1;31mred\x1b[m plain", []string{"red plain"}},
		{"\x1b]0;title\x07text", []string{"text"}},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", []string{"link"}},
		{"\x1b(Bx", []string{"x"}},
		{"end\x1b", []string{"end"}},
		{"cut\x1b[12", []string{"cut"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, lines(tt.in)); diff != "" {
			t.Errorf("lines(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestParseErrorMessage(t *testing.T) {
	inner := errors.New("boom")
	tests := []struct {
		err  *ParseError
		want string
	}{
		{&ParseError{Fact: "lsmod", Line: 3, Text: "x y", Msg: "size", Err: inner}, `parse lsmod line 3 "x y": size: boom`},
		{&ParseError{Fact: "topo", Err: ErrEmpty}, "parse topo: empty output"},
		{&ParseError{Fact: "qos", Msg: "no PFC row"}, "parse qos: no PFC row"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	if !errors.Is(tests[0].err, inner) {
		t.Error("ParseError does not unwrap")
	}
	long := lineError("f", 1, string(make([]byte, 500)), "m")
	if len(long.Text) > maxErrText+3 {
		t.Errorf("Text not cut: %d bytes", len(long.Text))
	}
}

func TestNotFound(t *testing.T) {
	for _, s := range []string{"bash: line 1: x: command not found", "sh: 1: x: not found", "zsh: command not found: x"} {
		if !notFound(s) {
			t.Errorf("notFound(%q) = false", s)
		}
	}
	if notFound("MLNX_OFED_LINUX-24.10-3.2.5.0:") {
		t.Error("version line read as not found")
	}
}

func TestValidIfaceName(t *testing.T) {
	for _, s := range []string{"eth0", "ens1f0np0", "bond0.100", "eth$(id)", "a-b_c"} {
		if !ValidIfaceName(s) {
			t.Errorf("ValidIfaceName(%q) = false", s)
		}
	}
	for _, s := range []string{"", ".", "..", "a/b", "a:b", "a b", "a\nb", "sixteencharsname"} {
		if ValidIfaceName(s) {
			t.Errorf("ValidIfaceName(%q) = true", s)
		}
	}
}

// TestGuardedCommandsRunEverywhere runs the commands that must succeed on any
// host (they end in "|| true") and parses their output.
func TestGuardedCommandsRunEverywhere(t *testing.T) {
	line, err := PeerMemCommand.Render()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParsePeerMem(runScript(t, line)); err != nil {
		t.Errorf("peermem on this machine: %v", err)
	}
	line, err = LockdownCommand.Render()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseLockdown(runScript(t, line)); err != nil {
		t.Errorf("lockdown on this machine: %v", err)
	}
}
