package host

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// lostRunner loses the connection under every command, after some output, as when sshd is
// killed in the middle of the gather.
type lostRunner struct{ localRunner }

func (lostRunner) Run(_ context.Context, cmd shell.Runnable, _ ssh.RunOptions) (ssh.Result, error) {
	partial := []byte("nonce_0123 0 0 -\nnonce_0123 1 0 -\n")
	return ssh.Result{Stderr: partial, ExitStatus: -1}, &ssh.CommandError{Host: "h:22", Command: cmd.String(), ExitStatus: -1, Stderr: partial, Err: io.EOF}
}

// TestConnectionLostDuringGather: the error says what was lost and what it means, not the
// gather script and its partial markers.
func TestConnectionLostDuringGather(t *testing.T) {
	_, err := Engine{Runner: lostRunner{}}.Plan(context.Background(), []Task{plannedTask{name: "t", plan: func(Facts) ([]Change, error) { return nil, nil }}})
	var le *ConnectionLostError
	if !errors.As(err, &le) || !errors.Is(err, io.EOF) {
		t.Fatalf("err = %v, want a ConnectionLostError over the transport's error", err)
	}
	msg := err.Error()
	for _, want := range []string{"gather facts on local: the connection was lost during the fact gather", "nothing on the host was changed", "run again"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	for _, leaked := range []string{"nonce_", "LC_ALL"} {
		if strings.Contains(msg, leaked) {
			t.Errorf("error quotes the gather (%q):\n%s", leaked, msg)
		}
	}
	// A command that exited, even with a failure, is not a lost connection.
	exited := &ssh.CommandError{Host: "h:22", Command: "false", ExitStatus: 1, Err: errors.New("exit status 1")}
	if got := explainLost(exited, "x"); got != error(exited) {
		t.Errorf("explainLost changed an exited command's error: %v", got)
	}
}
