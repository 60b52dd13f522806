// Package configcheck is the shape the transports (ssh, gnmi, nvue) give the problems their
// Config.Check finds: the rule, the field to fix and every field the rule read, so that a
// caller can put each problem on its own setting and leave a rule alone while one of its
// inputs is not known yet. Each transport names its own rules.
package configcheck

import (
	"errors"
	"fmt"
)

// Problem is one problem a Check found. Its text never contains a secret.
type Problem[R ~int] struct {
	// Scope is the 1-based index of the repeated part of the settings the problem is in
	// (an SSH jump host), 0 for the settings themselves.
	Scope int
	// Rule is the check that failed.
	Rule R
	// Field is the field to fix, by its Go name ("HostKey", "Become.Password"); empty when
	// the rule is about the settings as a whole.
	Field string
	// Fields are the fields the rule read, Field first when there is one.
	Fields []string
	// Err is the cause when a value does not parse; nil otherwise.
	Err error

	scope string // what Scope counts ("jump")
	msg   string
}

// Error implements error. A problem in a repeated part names it first: "jump 1: ...".
func (p *Problem[R]) Error() string {
	if p.Scope > 0 {
		return fmt.Sprintf("%s %d: %s", p.scope, p.Scope, p.msg)
	}
	return p.msg
}

// Unwrap returns the cause, if any.
func (p *Problem[R]) Unwrap() error { return p.Err }

// List collects the problems of one Check, in the order found.
type List[R ~int] struct {
	// Problems are the problems added so far.
	Problems []*Problem[R]

	scope string
	index int
}

// In makes the problems added next belong to the index-th (1-based) repeated part of the
// settings, which the text calls scope ("jump"); index 0 is the settings themselves.
func (l *List[R]) In(scope string, index int) {
	l.scope, l.index = scope, index
}

// Add records a problem with field (empty for the settings as a whole) and its cause, if
// any; read are the other fields the rule read.
func (l *List[R]) Add(rule R, field string, cause error, msg string, read ...string) {
	fields := read
	if field != "" {
		fields = append([]string{field}, read...)
	}
	l.Problems = append(l.Problems, &Problem[R]{Scope: l.index, Rule: rule, Field: field, Fields: fields, Err: cause, scope: l.scope, msg: msg})
}

// Join joins problems into one error; nil when there are none.
func Join[R ~int](problems []*Problem[R]) error {
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = p
	}
	return errors.Join(errs...)
}
