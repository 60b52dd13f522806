package shell

import (
	"errors"
	"fmt"
	"strings"
)

// Command is a simple shell command: optional environment assignments, a
// program name, its arguments and redirections. A Command is a value: every
// method returns a modified copy and leaves the receiver unchanged, so a base
// command can be shared and extended safely.
//
// Errors found while building (an invalid variable name, a NUL byte) are
// recorded and reported by [Command.Render]; [Command.String] renders anyway
// for display.
type Command struct {
	env    []assignment
	name   string
	args   []string
	redirs []Redirect
	err    error
}

type assignment struct {
	key, value string
}

// New returns the command name with the given arguments.
func New(name string, args ...string) Command {
	c := Command{name: name, args: append([]string(nil), args...)}
	if name == "" {
		c.err = errors.New("empty command name")
	}
	return c
}

// Arg returns a copy of c with args appended.
func (c Command) Arg(args ...string) Command {
	c.args = append(append([]string(nil), c.args...), args...)
	return c
}

// Env returns a copy of c that sets the environment variable key to value for
// this command only, rendered as a prefix assignment (KEY=value). An invalid
// key is recorded as an error wrapping [ErrInvalidName].
func (c Command) Env(key, value string) Command {
	if !ValidName(key) {
		c.setErr(fmt.Errorf("environment variable %q: %w", key, ErrInvalidName))
	}
	c.env = append(append([]assignment(nil), c.env...), assignment{key, value})
	return c
}

// With returns a copy of c with the redirections appended, in order.
func (c Command) With(r ...Redirect) Command {
	c.redirs = append(append([]Redirect(nil), c.redirs...), r...)
	return c
}

// Name returns the program name of c.
func (c Command) Name() string { return c.name }

// Args returns a copy of the arguments of c.
func (c Command) Args() []string { return append([]string(nil), c.args...) }

// Err returns the first error recorded while building c, or nil.
func (c Command) Err() error {
	_, err := c.Render()
	return err
}

// Render returns the command line with every word quoted, or the first error
// recorded while building it. It fails with [ErrNUL] when any word contains a
// NUL byte.
func (c Command) Render() (string, error) {
	if c.err != nil {
		return "", c.err
	}
	if c.name == "" {
		return "", errors.New("empty command name")
	}
	if err := c.checkNUL(); err != nil {
		return "", err
	}
	return c.text(), nil
}

// String returns the command line for display. It renders even when building
// recorded an error; use [Command.Render] before running anything.
func (c Command) String() string { return c.text() }

func (c Command) prec() precedence { return precSimple }

func (c *Command) setErr(err error) {
	if c.err == nil {
		c.err = err
	}
}

func (c Command) checkNUL() error {
	if strings.IndexByte(c.name, 0) >= 0 {
		return fmt.Errorf("command name %q: %w", c.name, ErrNUL)
	}
	for i, a := range c.args {
		if strings.IndexByte(a, 0) >= 0 {
			return fmt.Errorf("argument %d of %s: %w", i+1, c.name, ErrNUL)
		}
	}
	for _, e := range c.env {
		if strings.IndexByte(e.value, 0) >= 0 {
			return fmt.Errorf("environment variable %s of %s: %w", e.key, c.name, ErrNUL)
		}
	}
	for _, r := range c.redirs {
		if r.err != nil {
			return fmt.Errorf("redirection of %s: %w", c.name, r.err)
		}
	}
	return nil
}

func (c Command) text() string {
	words := make([]string, 0, len(c.env)+1+len(c.args)+len(c.redirs))
	for _, e := range c.env {
		words = append(words, e.key+"="+Quote(e.value))
	}
	words = append(words, quoteName(c.name))
	for _, a := range c.args {
		words = append(words, Quote(a))
	}
	for _, r := range c.redirs {
		words = append(words, r.text())
	}
	return strings.Join(words, " ")
}
