package host

import (
	"errors"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
)

// GatherError is returned when the facts of a host cannot be gathered: the
// gather command could not run, its output was cut short, or a parser could
// not read a fact's output.
type GatherError struct {
	// Host is the host's address.
	Host string
	// Fact names the fact whose output could not be read; empty when the
	// gather failed as a whole.
	Fact string
	// Err is the cause: a transport error, a *facts.ParseError, ...
	Err error
}

// Error implements error.
func (e *GatherError) Error() string {
	s := "gather facts on " + e.Host
	if e.Fact != "" {
		s += ": " + e.Fact
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *GatherError) Unwrap() error { return e.Err }

// TaskError is returned when a task cannot be planned or one of its changes
// cannot be applied.
type TaskError struct {
	// Host is the host's address.
	Host string
	// Task is the task's name.
	Task string
	// Op is "plan" or "apply".
	Op string
	// Change is the summary of the change that failed; empty for a plan
	// error of the task as a whole. Batched changes are joined with "; ".
	Change string
	// Err is the cause.
	Err error
}

// Error implements error.
func (e *TaskError) Error() string {
	s := e.Op + " " + e.Task + " on " + e.Host
	if e.Change != "" {
		s += ": " + e.Change
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *TaskError) Unwrap() error { return e.Err }

// NotConvergedError is returned by Engine.Apply when the plan made from the
// facts gathered after applying still has changes: the changes did not
// produce the state their tasks read.
type NotConvergedError struct {
	// Host is the host's address.
	Host string
	// Pending are the changes of the second plan.
	Pending []Change
}

// Error implements error: "host <h>: not converged: <task>: <summary>; ...".
func (e *NotConvergedError) Error() string {
	parts := make([]string, len(e.Pending))
	for i, c := range e.Pending {
		parts[i] = c.Task + ": " + c.Summary
	}
	return "host " + e.Host + ": not converged: " + strings.Join(parts, "; ")
}

// ConnectionLostError replaces the error of a command whose connection went away while it
// ran: what the command line and its partial output cannot tell a user is what the loss
// means for the host and what to do.
type ConnectionLostError struct {
	// During says what was running and what that means for the host, e.g. "the fact
	// gather, which only reads: nothing on the host was changed".
	During string
	// Err is the transport's error.
	Err error
}

// Error implements error.
func (e *ConnectionLostError) Error() string {
	return "the connection was lost during " + e.During + " (" + e.Err.Error() + "). " +
		"Check that the host and its sshd are up, then run again: the next run reads the host first and does only what is missing."
}

// Unwrap returns the transport's error.
func (e *ConnectionLostError) Unwrap() error { return e.Err }

// explainLost returns err as a *ConnectionLostError when it is a command whose connection
// was lost, and err otherwise.
func explainLost(err error, during string) error {
	var ce *ssh.CommandError
	if errors.As(err, &ce) && ce.Lost() {
		return &ConnectionLostError{During: during, Err: ce.Err}
	}
	return err
}
