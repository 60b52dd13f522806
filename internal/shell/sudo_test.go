package shell

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSudo(t *testing.T) {
	tests := []struct {
		name string
		cmd  Command
		opts SudoOptions
		want string
	}{
		{"non-interactive", New("modprobe", "nvidia-peermem"), SudoOptions{}, "sudo -n -- modprobe nvidia-peermem"},
		{"password on stdin at its prompt", New("modprobe", "nvidia-peermem"), SudoOptions{Prompt: "[sudo K] password:"}, "sudo -S -p '[sudo K] password:' -- modprobe nvidia-peermem"},
		{"as user", New("id"), SudoOptions{User: "svc user"}, "sudo -n -u 'svc user' -- id"},
		{"hostile args stay quoted", New("tee", "/etc/x; reboot"), SudoOptions{}, "sudo -n -- tee '/etc/x; reboot'"},
		{"leading dash command", New("-x"), SudoOptions{}, "sudo -n -- -x"},
		{
			"env moves behind env(1)",
			New("mlnx_qos", "-i", "eth0").Env("LC_ALL", "C").Env("X", "a b"),
			SudoOptions{},
			"sudo -n -- env LC_ALL=C 'X=a b' mlnx_qos -i eth0",
		},
		{"redirect stays outside", New("cat", "/sys/kernel/debug/x").With(Discard(2)), SudoOptions{}, "sudo -n -- cat /sys/kernel/debug/x 2>/dev/null"},
		{"script through sh", Sh(Pipe(New("a"), New("b"))), SudoOptions{}, "sudo -n -- sh -c 'a | b'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Sudo(tt.cmd, tt.opts).Render()
			if err != nil {
				t.Fatalf("Render() error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Render() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSudoErrors(t *testing.T) {
	if err := Sudo(New("x", "\x00"), SudoOptions{}).Err(); !errors.Is(err, ErrNUL) {
		t.Errorf("NUL: Err() = %v, want ErrNUL", err)
	}
	if err := Sudo(New("x").Env("-", "v"), SudoOptions{}).Err(); !errors.Is(err, ErrInvalidName) {
		t.Errorf("bad env: Err() = %v, want ErrInvalidName", err)
	}
	if err := Sudo(New("true"), SudoOptions{Prompt: "%p:"}).Err(); err == nil {
		t.Error("prompt with %: Err() = nil, want error")
	}
	if err := Sudo(Command{}, SudoOptions{}).Err(); err == nil {
		t.Error("empty command: Err() = nil, want error")
	}
}
