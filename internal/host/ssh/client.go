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
	// Timeout bounds the command from its start; past it the command is
	// stopped as on cancellation and Run returns a [*TimeoutError]. Zero or
	// negative means [DefaultCommandTimeout].
	Timeout time.Duration
	// MaxOutput caps each of Stdout and Stderr, in bytes; past it the command
	// is stopped as on cancellation and Run returns an [*OutputLimitError].
	// Zero or negative means [DefaultMaxOutput].
	MaxOutput int64
	// Finish lets a command that has started run to its end when ctx ends: a
	// package transaction or a firmware write, which a signal would leave half
	// done (dpkg then needs dpkg --configure -a), as Ansible never signals a
	// running module. Its Timeout (zero: [DefaultFinishTimeout]), its output
	// caps and a lost connection still stop it; Run then returns the result
	// and ctx's error is left to the caller's next step.
	Finish bool
}

// limits bound one command; see RunOptions.Timeout, MaxOutput and Finish.
type limits struct {
	timeout   time.Duration
	maxOutput int64
	finish    bool
}

func (l limits) withDefaults() limits {
	switch {
	case l.timeout > 0:
	case l.finish:
		l.timeout = DefaultFinishTimeout
	default:
		l.timeout = DefaultCommandTimeout
	}
	if l.maxOutput <= 0 {
		l.maxOutput = DefaultMaxOutput
	}
	return l
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
// part of its work. A command that runs past RunOptions.Timeout, or writes
// more than RunOptions.MaxOutput, is stopped the same way and returns a
// [*TimeoutError] or an [*OutputLimitError]; one whose sudo refuses
// Become.Password returns an error matching [ErrSudoPassword].
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
	res, err := c.execLimited(ctx, hs, line, stdin, limits{opts.Timeout, opts.MaxOutput, opts.Finish})
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

// exec runs line in a new session with the default limits. It returns the
// result also with a *CommandError, for callers that accept failures.
func (c *Client) exec(ctx context.Context, hs *hostState, line string, stdin io.Reader) (Result, error) {
	return c.execLimited(ctx, hs, line, stdin, limits{})
}

// execLimited is exec within lim. stdin made by [Client.sudo] also watches
// standard error for sudo's prompt.
func (c *Client) execLimited(ctx context.Context, hs *hostState, line string, stdin io.Reader, lim limits) (Result, error) {
	lim = lim.withDefaults()
	sess, conn, release, err := c.pool.session(ctx, hs)
	if err != nil {
		return Result{}, err
	}
	defer release()

	// The command's own context: its cause says who stopped it, the caller
	// (ctx ended) or exec itself (the deadline, an output cap, sudo refusing
	// the password). Either way the command is stopped as below.
	parent := ctx
	if lim.finish {
		parent = context.WithoutCancel(ctx)
	}
	cmdCtx, stopCmd := context.WithCancelCause(parent)
	defer stopCmd(nil)
	addr := hs.ep.addr
	deadline := time.AfterFunc(lim.timeout, func() {
		stopCmd(&TimeoutError{Host: addr, Command: line, Timeout: lim.timeout})
	})
	defer deadline.Stop()
	stdout := &capped{max: lim.maxOutput, over: func() {
		stopCmd(&OutputLimitError{Host: addr, Command: line, Stream: "stdout", Limit: lim.maxOutput})
	}}
	stderr := &capped{max: lim.maxOutput, over: func() {
		stopCmd(&OutputLimitError{Host: addr, Command: line, Stream: "stderr", Limit: lim.maxOutput})
	}}
	out := &pidWriter{w: stdout}
	sess.Stdout, sess.Stderr = out, stderr
	var watch *sudoWatch
	if in, ok := stdin.(*sudoInput); ok {
		watch = in.watch(stderr, func() {
			stopCmd(fmt.Errorf("run %q on %s: %w", shorten(line, 200), addr, ErrSudoPassword))
		})
		sess.Stderr = watch
		defer in.close()
	}
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
	stop := context.AfterFunc(cmdCtx, func() {
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
		return Result{}, stopError(context.Cause(cmdCtx), addr, line)
	}
	out.flush()
	watch.flush()

	res := Result{Stdout: stdout.buf.Bytes(), Stderr: stderr.buf.Bytes()}
	var exitErr *xssh.ExitError
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &exitErr):
		res.ExitStatus = exitErr.ExitStatus()
		ce := &CommandError{Host: addr, Command: line, ExitStatus: res.ExitStatus, Signal: exitErr.Signal(), Stderr: tail(res.Stderr, StderrTail), Err: err}
		if ce.Signal != "" {
			ce.ExitStatus = -1
		}
		return res, ce
	}
	// No exit status: the connection or the channel was lost while the
	// command ran. It may have run; it is not retried.
	res.ExitStatus = -1
	return res, &CommandError{Host: addr, Command: line, ExitStatus: -1, Stderr: tail(res.Stderr, StderrTail), Err: err}
}

// stopError is the error of a stopped command. The causes exec sets itself
// name the host and the command already; the caller's context's do not.
func stopError(cause error, host, line string) error {
	var te *TimeoutError
	var le *OutputLimitError
	if errors.As(cause, &te) || errors.As(cause, &le) || errors.Is(cause, ErrSudoPassword) {
		return cause
	}
	return fmt.Errorf("run %q on %s: %w", shorten(line, 200), host, cause)
}

// capped keeps what a command writes to one stream, up to max bytes. The
// write that would pass max calls over, which stops the command; that write
// and the rest are dropped but accepted, so that the channel keeps draining
// until the session is closed.
type capped struct {
	buf  bytes.Buffer
	max  int64
	over func()
	full bool
}

func (w *capped) Write(p []byte) (int, error) {
	if !w.full && int64(w.buf.Len())+int64(len(p)) > w.max {
		w.full = true
		w.over()
	}
	if !w.full {
		w.buf.Write(p)
	}
	return len(p), nil
}
