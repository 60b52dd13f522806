package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	xssh "golang.org/x/crypto/ssh"
)

// Client runs commands and moves files on one host through a [Pool]. It is
// cheap, holds no connection of its own and is safe for concurrent use.
type Client struct {
	pool *Pool
	addr string
	err  error // invalid address
}

// RunOptions modify one [Client.Run].
type RunOptions struct {
	// Stdin is copied to the command's standard input. It must reach EOF
	// (or the command must exit) for Run to return.
	Stdin io.Reader
	// Sudo runs the command through sudo (always the case when
	// Config.Become.Enabled is set).
	Sudo bool
	// AllowFailure makes a non-zero exit status a normal outcome: Run
	// returns the Result with its ExitStatus and no error.
	AllowFailure bool
}

// Result is the outcome of a command that ran.
type Result struct {
	// Stdout is everything the command wrote to standard output.
	Stdout []byte
	// Stderr is everything the command wrote to standard error.
	Stderr []byte
	// ExitStatus is 0, or the non-zero status with RunOptions.AllowFailure.
	ExitStatus int
}

// Address returns the host:port of c.
func (c *Client) Address() string { return c.addr }

// Run runs cmd on the host with the login user's shell (a POSIX shell is
// assumed) and returns its output. A non-zero exit returns a
// [*CommandError]; a connection failure before the command started returns a
// [*ConnectError], and nothing ran. When ctx ends the session is closed, the
// command's process group gets SIGTERM (then SIGKILL), and Run returns the
// context's error; cancelling is not a rollback: the command may have done
// part of its work.
func (c *Client) Run(ctx context.Context, cmd string, opts RunOptions) (Result, error) {
	hs, err := c.state()
	if err != nil {
		return Result{}, err
	}
	line, stdin := cmd, opts.Stdin
	if opts.Sudo || c.pool.cfg.Become.Enabled {
		line, stdin, err = c.sudo(ctx, hs, cmd, stdin)
		if err != nil {
			return Result{}, err
		}
	}
	res, err := c.exec(ctx, hs, line, stdin)
	var ce *CommandError
	if err != nil && opts.AllowFailure && errors.As(err, &ce) && ce.ExitStatus >= 0 {
		return res, nil
	}
	if err != nil {
		return Result{}, err
	}
	return res, nil
}

func (c *Client) state() (*hostState, error) {
	if c.err != nil {
		return nil, c.err
	}
	return c.pool.state(c.addr)
}

// exec runs line in a new session. It returns the result also with a
// *CommandError, for callers that accept failures.
func (c *Client) exec(ctx context.Context, hs *hostState, line string, stdin io.Reader) (Result, error) {
	sess, conn, release, err := c.pool.session(ctx, hs)
	if err != nil {
		return Result{}, err
	}
	defer release()

	var stdout, stderr bytes.Buffer
	out := &pidWriter{w: &stdout}
	sess.Stdout, sess.Stderr = out, &stderr
	if stdin != nil {
		sess.Stdin = stdin
	}
	// On cancellation: terminate the command's process group and close the
	// session. If sshd does not close the session within cancelGrace the
	// connection is hung: drop it so that Wait returns.
	var (
		mu       sync.Mutex
		finished bool
		grace    *time.Timer
	)
	interrupted := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(interrupted)
		interrupt(conn, sess, out.pid())
		mu.Lock()
		defer mu.Unlock()
		if !finished {
			grace = time.AfterFunc(cancelGrace, func() { hs.drop(conn) })
		}
	})
	err = sess.Start(pidPrefix + line)
	if err == nil {
		err = sess.Wait()
	}
	cancelled := !stop()
	if cancelled {
		<-interrupted
	}
	mu.Lock()
	finished = true
	if grace != nil {
		grace.Stop()
	}
	mu.Unlock()
	if cancelled {
		return Result{}, fmt.Errorf("run %q on %s: %w", shorten(line, 200), hs.ep.addr, context.Cause(ctx))
	}
	out.flush()

	res := Result{Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
	var exitErr *xssh.ExitError
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &exitErr):
		res.ExitStatus = exitErr.ExitStatus()
		ce := &CommandError{Host: hs.ep.addr, Command: line, ExitStatus: res.ExitStatus, Signal: exitErr.Signal(), Stderr: tail(res.Stderr, StderrTail), Err: err}
		if ce.Signal != "" {
			ce.ExitStatus = -1
		}
		return res, ce
	}
	// No exit status: the connection or the channel was lost while the
	// command ran. It may have run; it is not retried.
	res.ExitStatus = -1
	return res, &CommandError{Host: hs.ep.addr, Command: line, ExitStatus: -1, Stderr: tail(res.Stderr, StderrTail), Err: err}
}
