package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	xssh "golang.org/x/crypto/ssh"
)

// ErrClosed is returned by calls on a closed [Pool].
var ErrClosed = errors.New("ssh pool is closed")

// ErrSudoPassword is returned, wrapped with the host and the command, when sudo
// asks for the password again after it was given: Become.Password is wrong. The
// command was stopped and did not run.
var ErrSudoPassword = errors.New("sudo refused the become password and asked again")

// StderrTail is the number of bytes of standard error a [CommandError] keeps.
const StderrTail = 2048

// CommandError is returned when a command ran (or may have run) and did not
// exit with status 0. Commands never contain secrets, so Command is the full
// command line as sent, sudo decoration included.
type CommandError struct {
	// Host is the host:port the command ran on.
	Host string
	// Command is the command line as sent to the host.
	Command string
	// ExitStatus is the exit status, or -1 when the command ended without
	// one (killed by a signal, or the connection was lost while it ran).
	ExitStatus int
	// Signal is the name of the signal that killed the command, if any.
	Signal string
	// Stderr is the last [StderrTail] bytes of standard error.
	Stderr []byte
	// Err is the underlying error (*ssh.ExitError, *ssh.ExitMissingError or
	// a connection error).
	Err error
}

// Error implements error. It names the host, the command (shortened) and the
// exit status, followed by the end of standard error.
func (e *CommandError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "run %q on %s: ", shorten(e.Command, 200), e.Host)
	switch {
	case e.ExitStatus >= 0:
		fmt.Fprintf(&b, "exit status %d", e.ExitStatus)
	case e.Signal != "":
		fmt.Fprintf(&b, "killed by signal %s", e.Signal)
	case e.Err != nil:
		fmt.Fprintf(&b, "no exit status (the command may have run): %v", e.Err)
	default:
		b.WriteString("no exit status")
	}
	if tail := strings.TrimSpace(string(e.Stderr)); tail != "" {
		fmt.Fprintf(&b, ": %s", shorten(tail, 512))
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *CommandError) Unwrap() error { return e.Err }

// Lost reports a command that ended without an exit status or a signal: the connection or
// its channel went away while it ran (sshd killed, host down, network cut).
func (e *CommandError) Lost() bool { return e.ExitStatus < 0 && e.Signal == "" }

// TimeoutError is returned when a command ran past its deadline
// ([RunOptions.Timeout], [DefaultCommandTimeout]) and was stopped as a cancelled
// one is. The caller's own context ending returns the context's error instead,
// so a deadline and a cancel are told apart with errors.As. It matches
// [context.DeadlineExceeded] with errors.Is.
type TimeoutError struct {
	// Host is the host:port the command ran on.
	Host string
	// Command is the command line as sent to the host.
	Command string
	// Timeout is the deadline the command ran past.
	Timeout time.Duration
}

// Error implements error.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("run %q on %s: stopped after the command timeout of %s", shorten(e.Command, 200), e.Host, e.Timeout)
}

// Unwrap returns [context.DeadlineExceeded].
func (e *TimeoutError) Unwrap() error { return context.DeadlineExceeded }

// OutputLimitError is returned when a command wrote more than the cap
// ([RunOptions.MaxOutput], [DefaultMaxOutput]) to its standard output or
// error. The command was stopped as a cancelled one is, and its output dropped.
type OutputLimitError struct {
	// Host is the host:port the command ran on.
	Host string
	// Command is the command line as sent to the host.
	Command string
	// Stream is "stdout" or "stderr".
	Stream string
	// Limit is the cap, in bytes.
	Limit int64
}

// Error implements error.
func (e *OutputLimitError) Error() string {
	limit := fmt.Sprintf("%d bytes", e.Limit)
	if e.Limit >= 1<<20 && e.Limit%(1<<20) == 0 {
		limit = fmt.Sprintf("%d MiB", e.Limit>>20)
	}
	return fmt.Sprintf("run %q on %s: %s passed the output cap of %s; the command was stopped", shorten(e.Command, 200), e.Host, e.Stream, limit)
}

// ConnectError is returned when a host (or a jump host on the way to it)
// cannot be reached or refuses the connection. Nothing was run.
type ConnectError struct {
	// Host is the host:port the caller asked for.
	Host string
	// Via is the jump host that failed, empty when the host itself failed.
	Via string
	// Err is the cause: a network error, a [*HostKeyError], an
	// authentication failure.
	Err error
}

// Error implements error.
func (e *ConnectError) Error() string {
	if e.Via != "" {
		return fmt.Sprintf("connect to %s via jump host %s: %v", e.Host, e.Via, e.Err)
	}
	return fmt.Sprintf("connect to %s: %v", e.Host, e.Err)
}

// Unwrap returns the underlying error.
func (e *ConnectError) Unwrap() error { return e.Err }

// retryable reports whether err is a connection error worth another attempt:
// refused, reset, unreachable, timed out, or a handshake cut short (OpenSSH
// drops connections beyond MaxStartups before the banner). Host key and
// authentication errors, and the end of the caller's context, are not.
func retryable(err error) bool {
	var hk *HostKeyError
	if err == nil || errors.As(err, &hk) || errors.Is(err, context.Canceled) || errors.Is(err, ErrClosed) {
		return false
	}
	for _, target := range []error{
		io.EOF, io.ErrUnexpectedEOF, os.ErrDeadlineExceeded, context.DeadlineExceeded,
		syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE,
		syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.ETIMEDOUT,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	var oce *xssh.OpenChannelError
	if errors.As(err, &oce) {
		// A jump host that cannot reach the next hop yet.
		return oce.Reason == xssh.ConnectionFailed || oce.Reason == xssh.ResourceShortage
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns.IsTemporary || dns.IsTimeout
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// tail returns at most the last n bytes of b, as a copy.
func tail(b []byte, n int) []byte {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return append([]byte(nil), b...)
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
