package facts

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrEmpty is wrapped by a [*ParseError] when a command printed nothing where
// output was required.
var ErrEmpty = errors.New("empty output")

// ParseError reports command output that a parser could not read.
type ParseError struct {
	// Fact names the parser, e.g. "ibv_devinfo".
	Fact string
	// Line is the 1-based line of the problem, or 0 when it concerns the
	// output as a whole.
	Line int
	// Text is the offending line, cut to a readable length.
	Text string
	// Msg says what was wrong.
	Msg string
	// Err is the underlying error, if any.
	Err error
}

// Error returns "parse <fact>: line <n> "<text>": <msg>: <err>", leaving out
// the parts that are empty.
func (e *ParseError) Error() string {
	s := "parse " + e.Fact
	if e.Line > 0 {
		s += " line " + strconv.Itoa(e.Line)
	}
	if e.Text != "" {
		s += " " + strconv.Quote(e.Text)
	}
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

const maxErrText = 120

// lineError builds a ParseError for line n (1-based) with text.
func lineError(fact string, n int, text, format string, args ...any) *ParseError {
	if len(text) > maxErrText {
		text = text[:maxErrText] + "..."
	}
	return &ParseError{Fact: fact, Line: n, Text: text, Msg: fmt.Sprintf(format, args...)}
}

// wrapLineError is lineError with an underlying error.
func wrapLineError(fact string, n int, text string, err error, format string, args ...any) *ParseError {
	e := lineError(fact, n, text, format, args...)
	e.Err = err
	return e
}

// emptyError reports output that was required but absent.
func emptyError(fact string) *ParseError {
	return &ParseError{Fact: fact, Err: ErrEmpty}
}
