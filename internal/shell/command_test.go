package shell

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCommandRender(t *testing.T) {
	tests := []struct {
		name string
		cmd  Command
		want string
	}{
		{"bare", New("ofed_info", "-s"), "ofed_info -s"},
		{"no args", New("lsmod"), "lsmod"},
		{"interface with space", New("mlnx_qos", "-i", "ens1 f0"), "mlnx_qos -i 'ens1 f0'"},
		{"injection attempt", New("mlnx_qos", "-i", "x; reboot"), "mlnx_qos -i 'x; reboot'"},
		{"subshell", New("cat", "$(curl evil)"), "cat '$(curl evil)'"},
		{"backticks", New("cat", "`id`"), "cat '`id`'"},
		{"quotes", New("echo", `it's "x"`), `echo 'it'\''s "x"'`},
		{"newline", New("echo", "a\nb"), "echo 'a\nb'"},
		{"glob", New("ls", "/sys/class/net/*"), "ls '/sys/class/net/*'"},
		{"empty arg", New("sudo", "-p", "", "id"), "sudo -p '' id"},
		{"leading dash", New("rm", "--", "-rf"), "rm -- -rf"},
		{"unicode", New("echo", "ü"), "echo 'ü'"},
		{"reserved name", New("done"), "'done'"},
		{"arg appends", New("dpkg-query", "-W").Arg("a", "b c"), "dpkg-query -W a 'b c'"},
		{
			"env prefix",
			New("all_reduce_perf").Env("NCCL_DEBUG", "INFO").Env("NCCL_IB_HCA", "=mlx5_0,mlx5_1"),
			"NCCL_DEBUG=INFO NCCL_IB_HCA='=mlx5_0,mlx5_1' all_reduce_perf",
		},
		{"env hostile value", New("x").Env("K", "a b$(c)"), "K='a b$(c)' x"},
		{"env empty value", New("x").Env("K", ""), "K='' x"},
		{"redirects", New("cat", "/f").With(Discard(2)), "cat /f 2>/dev/null"},
		{
			"redirect order",
			New("cmd").With(ToFile(1, "/tmp/out file"), Dup(2, 1)),
			"cmd >'/tmp/out file' 2>&1",
		},
		{"append and input", New("cmd").With(AppendFile(1, "/log"), FromFile(0, "/in")), "cmd >>/log </in"},
		{"fd 3", New("cmd").With(FromFile(3, "/x")), "cmd 3</x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.cmd.Render()
			if err != nil {
				t.Fatalf("Render() error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Render() mismatch (-want +got):\n%s", diff)
			}
			if s := tt.cmd.String(); s != got {
				t.Errorf("String() = %q, Render() = %q", s, got)
			}
		})
	}
}

func TestCommandErrors(t *testing.T) {
	tests := []struct {
		name    string
		cmd     Command
		wantErr error // nil: any error
	}{
		{"NUL in arg", New("echo", "a\x00b"), ErrNUL},
		{"NUL in name", New("ec\x00ho"), ErrNUL},
		{"NUL in env", New("x").Env("K", "\x00"), ErrNUL},
		{"NUL in redirect", New("x").With(ToFile(1, "/a\x00")), ErrNUL},
		{"invalid env key", New("x").Env("A-B", "v"), ErrInvalidName},
		{"env key with space", New("x").Env("A B", "v"), ErrInvalidName},
		{"env key injection", New("x").Env("A=$(id);B", "v"), ErrInvalidName},
		{"empty name", New(""), nil},
		{"zero command", Command{}, nil},
		{"fd out of range", New("x").With(ToFile(10, "/x")), nil},
		{"negative fd", New("x").With(Dup(2, -1)), nil},
		{"empty target", New("x").With(ToFile(1, "")), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.cmd.Render()
			if err == nil {
				t.Fatalf("Render() = %q, want error", got)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("Render() error = %v, want %v", err, tt.wantErr)
			}
			if tt.cmd.Err() == nil {
				t.Errorf("Err() = nil, want %v", err)
			}
		})
	}
}

func TestCommandIsAValue(t *testing.T) {
	base := New("tool", "a")
	x := base.Arg("x")
	y := base.Arg("y")
	if got := x.String(); got != "tool a x" {
		t.Errorf("x = %q", got)
	}
	if got := y.String(); got != "tool a y" {
		t.Errorf("y = %q (shares storage with x?)", got)
	}
	if got := base.String(); got != "tool a" {
		t.Errorf("base changed to %q", got)
	}
	e1 := base.Env("A", "1")
	e2 := base.Env("B", "2")
	if e1.String() != "A=1 tool a" || e2.String() != "B=2 tool a" {
		t.Errorf("Env aliasing: %q, %q", e1, e2)
	}
	r1 := base.With(Discard(1))
	r2 := base.With(Discard(2))
	if r1.String() != "tool a >/dev/null" || r2.String() != "tool a 2>/dev/null" {
		t.Errorf("With aliasing: %q, %q", r1, r2)
	}
	args := base.Args()
	args[0] = "changed"
	if base.Args()[0] != "a" || base.Name() != "tool" {
		t.Errorf("Args() exposes internal storage")
	}
}

// TestCommandRoundTrip runs rendered commands in real shells and checks that
// the program receives exactly the words it was given.
func TestCommandRoundTrip(t *testing.T) {
	for _, sh := range shells(t) {
		if strings.HasSuffix(sh, "busybox") {
			continue
		}
		t.Run(sh, func(t *testing.T) {
			line, err := New("printf", `%s\0`).Arg(hostile...).Render()
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(sh, "-c", line).Output()
			if err != nil {
				t.Fatalf("%s -c %q: %v", sh, line, err)
			}
			got := strings.Split(string(out), "\x00")
			if diff := cmp.Diff(hostile, got[:len(got)-1]); diff != "" {
				t.Errorf("arguments mismatch (-want +got):\n%s", diff)
			}
			for _, v := range hostile {
				line, err := New("printenv", "V").Env("V", v).Render()
				if err != nil {
					t.Fatal(err)
				}
				out, err := exec.Command(sh, "-c", line).Output()
				if err != nil {
					t.Fatalf("%s -c %q: %v", sh, line, err)
				}
				if got := strings.TrimSuffix(string(out), "\n"); got != v {
					t.Errorf("env value %q came back as %q", v, got)
				}
			}
		})
	}
}
