package ssh

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRunOutput(t *testing.T) {
	f := newFixture(t, serverOptions{})
	c := newTestPool(t, f.cfg).Client(f.srv.addr)

	tests := []struct {
		name string
		cmd  string
		opts RunOptions
		want Result
	}{
		{"stdout and stderr", "echo out; echo err >&2", RunOptions{}, Result{Stdout: []byte("out\n"), Stderr: []byte("err\n")}},
		{"stdin", "tr a-z A-Z", RunOptions{Stdin: strings.NewReader("hello")}, Result{Stdout: []byte("HELLO")}},
		{"allowed failure", "echo no >&2; exit 1", RunOptions{AllowFailure: true}, Result{Stderr: []byte("no\n"), ExitStatus: 1}},
		{"shell syntax", `x='a b'; printf '%s|' $x "$x"`, RunOptions{}, Result{Stdout: []byte("a|b|a b|")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.Run(testContext(t), tt.cmd, tt.opts)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmpBytesAsStrings); diff != "" {
				t.Errorf("Run(%q) mismatch (-want +got):\n%s", tt.cmd, diff)
			}
		})
	}
}

var cmpBytesAsStrings = cmp.Transformer("string", func(b []byte) string { return string(b) })

func TestRunCommandError(t *testing.T) {
	f := newFixture(t, serverOptions{})
	c := newTestPool(t, f.cfg).Client(f.srv.addr)

	t.Run("exit status and stderr", func(t *testing.T) {
		cmd := "echo 'mlnx_qos: no such device' >&2; exit 3"
		res, err := c.Run(testContext(t), cmd, RunOptions{})
		var ce *CommandError
		if !errors.As(err, &ce) {
			t.Fatalf("Run error = %v, want *CommandError", err)
		}
		if diff := cmp.Diff(Result{}, res, cmpBytesAsStrings); diff != "" {
			t.Errorf("Result beside an error (-want +got):\n%s", diff)
		}
		want := &CommandError{Host: f.srv.addr, Command: cmd, ExitStatus: 3, Stderr: []byte("mlnx_qos: no such device\n")}
		if diff := cmp.Diff(want, ce, cmpBytesAsStrings, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Err" }, cmp.Ignore())); diff != "" {
			t.Errorf("CommandError mismatch (-want +got):\n%s", diff)
		}
		for _, part := range []string{f.srv.addr, "exit 3", "exit status 3", "no such device"} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("error %q does not mention %q", err, part)
			}
		}
	})

	t.Run("stderr tail", func(t *testing.T) {
		// 10 000 lines of stderr; the error keeps the last 2 KiB.
		_, err := c.Run(testContext(t), `i=0; while [ $i -lt 10000 ]; do echo "line $i" >&2; i=$((i+1)); done; exit 7`, RunOptions{})
		var ce *CommandError
		if !errors.As(err, &ce) {
			t.Fatalf("Run error = %v, want *CommandError", err)
		}
		if len(ce.Stderr) != StderrTail {
			t.Errorf("len(Stderr) = %d, want %d", len(ce.Stderr), StderrTail)
		}
		if !strings.HasSuffix(string(ce.Stderr), "line 9999\n") {
			t.Errorf("Stderr tail ends with %q, want the last line", string(ce.Stderr[len(ce.Stderr)-20:]))
		}
		if ce.ExitStatus != 7 {
			t.Errorf("ExitStatus = %d, want 7", ce.ExitStatus)
		}
	})

	t.Run("killed by signal", func(t *testing.T) {
		_, err := c.Run(testContext(t), "kill -TERM $$", RunOptions{})
		var ce *CommandError
		if !errors.As(err, &ce) {
			t.Fatalf("Run error = %v, want *CommandError", err)
		}
		if ce.ExitStatus != -1 && ce.ExitStatus != 143 {
			t.Errorf("ExitStatus = %d, want -1 (signal) or 143 (shell status)", ce.ExitStatus)
		}
	})
}

func TestRunCancel(t *testing.T) {
	// One session slot on our side, two on sshd's (the second is the
	// headroom the kill session uses): if the cancelled session leaked, on
	// either side, the next command could not run.
	f := newFixture(t, serverOptions{maxSessions: 2})
	f.cfg.MaxSessions = 1
	p := newTestPool(t, f.cfg)
	c := p.Client(f.srv.addr)
	mustRun(t, c, "true")

	tests := []struct {
		name string
		cmd  string
	}{
		{"simple command", "sleep 37"},
		{"compound command with a background child", "sleep 38 & sleep 39; echo not reached"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(testContext(t), 500*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := c.Run(ctx, tt.cmd, RunOptions{})
			elapsed := time.Since(start)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Run error = %v, want context.DeadlineExceeded", err)
			}
			if elapsed > 3*time.Second {
				t.Errorf("cancelled Run returned after %s, want promptly", elapsed)
			}

			start = time.Now()
			got := mustRun(t, c, "pgrep -f '^sleep 3[789]$' || echo none")
			if string(got.Stdout) != "none\n" {
				t.Errorf("processes of the cancelled command still run: %q", got.Stdout)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("Run after cancel took %s: the session slot was not released promptly", d)
			}
		})
	}
	if got := hostCount(p, f.srv.addr).Dials; got != 1 {
		t.Errorf("Dials = %d, want 1 (cancel must not drop the connection)", got)
	}
}

func TestRunCancelledBeforeStart(t *testing.T) {
	f := newFixture(t, serverOptions{})
	c := newTestPool(t, f.cfg).Client(f.srv.addr)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Run(ctx, "true", RunOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestInvalidAddress(t *testing.T) {
	f := newFixture(t, serverOptions{})
	p := newTestPool(t, f.cfg)
	_, err := p.Client("host:notaport").Run(testContext(t), "true", RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "host:notaport") {
		t.Errorf("Run on an invalid address = %v, want an error naming it", err)
	}
}

// TestRunTimeout: a command past RunOptions.Timeout is stopped like a cancelled one, and
// the error says so, apart from the caller's cancel.
func TestRunTimeout(t *testing.T) {
	// One session slot: the next Run proves the stopped command's slot is free.
	f := newFixture(t, serverOptions{maxSessions: 2})
	f.cfg.MaxSessions = 1
	c := newTestPool(t, f.cfg).Client(f.srv.addr)

	const timeout = 500 * time.Millisecond
	start := time.Now()
	_, err := c.Run(testContext(t), "sleep 600", RunOptions{Timeout: timeout})
	elapsed := time.Since(start)
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("Run past its timeout = %v, want a *TimeoutError", err)
	}
	if diff := cmp.Diff(&TimeoutError{Host: f.srv.addr, Command: "sleep 600", Timeout: timeout}, te); diff != "" {
		t.Errorf("TimeoutError (-want +got):\n%s", diff)
	}
	for _, part := range []string{f.srv.addr, "sleep 600", "500ms"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not mention %q", err, part)
		}
	}
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		t.Errorf("error %v: want it to match context.DeadlineExceeded only", err)
	}
	if elapsed > 3*time.Second {
		t.Errorf("Run returned %s after its timeout of %s, want promptly", elapsed, timeout)
	}
	if got := mustRun(t, c, "pgrep -f '^sleep 600$' || echo none"); string(got.Stdout) != "none\n" {
		t.Errorf("the timed out command still runs: %q", got.Stdout)
	}

	// The caller's cancel, while the command runs, is not a timeout.
	ctx, cancel := context.WithCancel(testContext(t))
	defer time.AfterFunc(300*time.Millisecond, cancel).Stop()
	_, err = c.Run(ctx, "sleep 601", RunOptions{Timeout: time.Hour})
	if !errors.Is(err, context.Canceled) || errors.As(err, &te) {
		t.Errorf("cancelled Run = %v, want context.Canceled and no *TimeoutError", err)
	}
}

// TestRunOutputCap: past RunOptions.MaxOutput on stdout or stderr the command is stopped
// and Run says which stream passed which cap; output up to the cap is returned whole.
func TestRunOutputCap(t *testing.T) {
	f := newFixture(t, serverOptions{maxSessions: 2})
	f.cfg.MaxSessions = 1
	c := newTestPool(t, f.cfg).Client(f.srv.addr)
	const limit = 64 << 10

	got := mustRunOpts(t, c, "head -c 65536 /dev/zero", RunOptions{MaxOutput: limit})
	if len(got.Stdout) != limit {
		t.Errorf("output at the cap: %d bytes, want %d", len(got.Stdout), limit)
	}

	tests := []struct {
		name, cmd, stream string
	}{
		{"stdout", "head -c 1048576 /dev/zero", "stdout"},
		{"stderr", "head -c 1048576 /dev/zero >&2", "stderr"},
		{"endless", "exec yes roce-output-cap", "stdout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := c.Run(testContext(t), tt.cmd, RunOptions{MaxOutput: limit})
			var le *OutputLimitError
			if !errors.As(err, &le) {
				t.Fatalf("Run = %v, want an *OutputLimitError", err)
			}
			if diff := cmp.Diff(&OutputLimitError{Host: f.srv.addr, Command: tt.cmd, Stream: tt.stream, Limit: limit}, le); diff != "" {
				t.Errorf("OutputLimitError (-want +got):\n%s", diff)
			}
			for _, part := range []string{f.srv.addr, tt.cmd, tt.stream, "65536 bytes"} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("error %q does not mention %q", err, part)
				}
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Run returned after %s, want promptly", d)
			}
		})
	}
	if got := mustRun(t, c, "pgrep -f '^yes roce-output-cap$' || echo none"); string(got.Stdout) != "none\n" {
		t.Errorf("the command past its cap still runs: %q", got.Stdout)
	}
}

func TestOutputLimitErrorInMiB(t *testing.T) {
	err := &OutputLimitError{Host: "h:22", Command: "cat /var/log/syslog", Stream: "stdout", Limit: DefaultMaxOutput}
	if want := `run "cat /var/log/syslog" on h:22: stdout passed the output cap of 64 MiB; the command was stopped`; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

// TestRunFinishOutlivesCancel cancels a Finish command while it runs, as Ctrl-C in Terraform
// does during a package install: the command must run to its end and report its result, where
// an ordinary command is stopped.
func TestRunFinishOutlivesCancel(t *testing.T) {
	f := newFixture(t, serverOptions{maxSessions: 2})
	c := newTestPool(t, f.cfg).Client(f.srv.addr)
	dir := t.TempDir()
	started, gate := filepath.Join(dir, "started"), filepath.Join(dir, "gate")
	// The command waits for the test to open its gate, after the cancel: no timing.
	script := fmt.Sprintf("touch %s; while [ ! -e %s ]; do sleep 0.05; done; echo finished", started, gate)

	for _, finish := range []bool{true, false} {
		_ = os.Remove(started)
		_ = os.Remove(gate)
		ctx, cancel := context.WithCancel(testContext(t))
		type outcome struct {
			res Result
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			res, err := c.Run(ctx, script, RunOptions{Finish: finish, Timeout: time.Minute})
			done <- outcome{res, err}
		}()
		for deadline := time.Now().Add(30 * time.Second); ; {
			if _, err := os.Stat(started); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the command did not start")
			}
			time.Sleep(10 * time.Millisecond) // polling a file the remote command creates
		}
		cancel()
		var o outcome
		if !finish {
			o = <-done // stopped while it waits at its gate
		}
		if err := os.WriteFile(gate, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if finish {
			o = <-done
		}
		switch {
		case finish && (o.err != nil || string(o.res.Stdout) != "finished\n"):
			t.Errorf("Finish command after cancel = %q, %v; want it to finish", o.res.Stdout, o.err)
		case !finish && !errors.Is(o.err, context.Canceled):
			t.Errorf("ordinary command after cancel = %q, %v; want it stopped with context.Canceled", o.res.Stdout, o.err)
		}
	}
}

// TestFinishTimeoutIsLonger: a Finish step's default bound outlasts an ordinary command's, so
// a slow DKMS build is not killed mid-transaction by the hang guard.
func TestFinishTimeoutIsLonger(t *testing.T) {
	if got := (limits{finish: true}).withDefaults().timeout; got != DefaultFinishTimeout || got <= DefaultCommandTimeout {
		t.Errorf("Finish default timeout = %v, want DefaultFinishTimeout (%v), longer than %v", got, DefaultFinishTimeout, DefaultCommandTimeout)
	}
	if got := (limits{finish: true, timeout: time.Minute}).withDefaults().timeout; got != time.Minute {
		t.Errorf("an explicit timeout became %v", got)
	}
}
