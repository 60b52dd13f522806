// Package violation is the shape every plan-time rule gives what it finds: which rule broke,
// on which field of the checked value, with the numbers. A rule names fields as its own Go
// type does ("Thresholds.ECNMinBytes"); the caller that shows the violation maps each field
// to its own attribute, so one rule serves resources whose schemas name things differently.
// A rule words itself through Words, given the caller's names for the fields it mentions.
package violation

import (
	"errors"
	"strconv"
	"strings"
)

// Severity says whether a violation blocks a plan or only advises.
type Severity int

const (
	// Error marks a violation that makes the configuration unusable.
	Error Severity = iota
	// Warning marks a configuration that works but is probably not what the user wants.
	Warning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Field names one value of a checked type by its Go field path, with an element index or a
// map key where the field is a list or a map. Make one with At.
type Field struct {
	Name  string
	Index int // list element, or -1
	Key   string
	// parent is the list element the field is part of (a class's DSCP within the list of
	// classes), nil for a field of the checked value itself.
	parent *Field
}

// At is the field name as a whole.
func At(name string) Field { return Field{Name: name, Index: -1} }

// Elem is element i of the list field f.
func (f Field) Elem(i int) Field { f.Index = i; return f }

// Entry is the entry key of the map field f.
func (f Field) Entry(key string) Field { f.Key = key; return f }

// In is f within element parent of a list: LosslessClass.DSCP of Lossless[1].
func (f Field) In(parent Field) Field { f.parent = &parent; return f }

// Parent is the element f is part of, or nil.
func (f Field) Parent() *Field { return f.parent }

// Equal reports whether f and g name the same value (== compares parents by pointer).
func (f Field) Equal(g Field) bool {
	if f.Name != g.Name || f.Index != g.Index || f.Key != g.Key || (f.parent == nil) != (g.parent == nil) {
		return false
	}
	return f.parent == nil || f.parent.Equal(*g.parent)
}

// String is the Go-style form, "Thresholds.ECNMinBytes", "TrafficClass.DSCP[1]",
// `Profile.Extra["NCCL_IB_TIMEOUT"]`: the name a caller without its own names shows.
func (f Field) String() string {
	s := f.Name
	if f.parent != nil {
		s = f.parent.String() + "." + s
	}
	if f.Index >= 0 {
		s += "[" + strconv.Itoa(f.Index) + "]"
	}
	if f.Key != "" {
		s += "[" + strconv.Quote(f.Key) + "]"
	}
	return s
}

// Names gives the caller's name of a field, as its users write it.
type Names func(Field) string

// Rule is what was broken, with the values that broke it. Words states it in the caller's
// names, at being the field the violation is on: a short Title Case summary and a detail with
// the numbers and the fix.
type Rule interface {
	Words(at Field, name Names) (summary, detail string)
}

// Worded is a rule that is only its words: for a rule whose numbers no caller reads.
type Worded struct {
	Summary string
	Detail  func(name Names) string
}

// Words implements Rule.
func (w Worded) Words(_ Field, name Names) (string, string) { return w.Summary, w.Detail(name) }

// Moved is a rule found on a part of a larger value and moved onto it: Rule found its
// violation on From, and Move maps each field Rule's words mention onto the larger value
// (a threshold of one class onto that class's element of a list of classes).
type Moved struct {
	Rule Rule
	From Field
	Move func(Field) Field
}

// Words implements Rule: Rule's words, its fields named where Move puts them.
func (m Moved) Words(_ Field, name Names) (string, string) {
	return m.Rule.Words(m.From, func(f Field) string { return name(m.Move(f)) })
}

// Violation is one broken rule on one field.
type Violation struct {
	Severity Severity
	At       Field
	Rule     Rule
}

// ErrorAt is an error of rule r on field at.
func ErrorAt(at Field, r Rule) Violation { return Violation{Severity: Error, At: at, Rule: r} }

// WarningAt is a warning of rule r on field at.
func WarningAt(at Field, r Rule) Violation { return Violation{Severity: Warning, At: at, Rule: r} }

// Words states v in the caller's names.
func (v Violation) Words(name Names) (summary, detail string) { return v.Rule.Words(v.At, name) }

// List is what a check found, in the order its rules ran.
type List []Violation

// HasErrors reports whether any violation is an error.
func (l List) HasErrors() bool {
	for _, v := range l {
		if v.Severity == Error {
			return true
		}
	}
	return false
}

// Errors returns the errors, or nil when there are none.
func (l List) Errors() List { return l.filter(Error) }

// Warnings returns the warnings, or nil when there are none.
func (l List) Warnings() List { return l.filter(Warning) }

func (l List) filter(s Severity) List {
	var out List
	for _, v := range l {
		if v.Severity == s {
			out = append(out, v)
		}
	}
	return out
}

// GoNames names every field by its Go form.
func GoNames(f Field) string { return f.String() }

// Err returns nil when there are no errors, otherwise one error joining each error's detail
// in the Go names of its fields: for callers that check a value built in code.
func (l List) Err() error {
	var errs []error
	for _, v := range l.Errors() {
		_, detail := v.Words(GoNames)
		errs = append(errs, errors.New(detail))
	}
	return errors.Join(errs...)
}

// Line renders one violation as "severity: field: summary: detail" in the caller's names.
func (v Violation) Line(name Names) string {
	summary, detail := v.Words(name)
	parts := []string{v.Severity.String(), name(v.At), summary}
	if detail != "" {
		parts = append(parts, detail)
	}
	return strings.Join(parts, ": ")
}
