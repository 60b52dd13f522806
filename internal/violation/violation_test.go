package violation

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tooBig is a rule with a number, worded in the caller's names.
type tooBig struct{ Value, Max int }

func (r tooBig) Words(at Field, name Names) (string, string) {
	return "Too Big", name(at) + " is " + itoa(r.Value) + "; at most " + itoa(r.Max)
}

func itoa(i int) string { return strconv.Itoa(i) }

var (
	errA  = ErrorAt(At("Spec.A"), tooBig{Value: 9, Max: 3})
	warnB = WarningAt(At("Spec.B").Elem(0), Worded{Summary: "Odd B", Detail: func(n Names) string { return n(At("Spec.B").Elem(0)) + " is odd" }})
)

// snake is a caller's own names, as a resource table would give them.
func snake(f Field) string {
	s := map[string]string{"Spec.A": "a", "Spec.B": "b"}[f.Name]
	if f.Index >= 0 {
		s += "[" + itoa(f.Index) + "]"
	}
	return s
}

func TestFieldString(t *testing.T) {
	for want, f := range map[string]Field{
		"Spec.A":                     At("Spec.A"),
		"Spec.B[2]":                  At("Spec.B").Elem(2),
		`Profile.Extra["NCCL_X"]`:    At("Profile.Extra").Entry("NCCL_X"),
		`Profile.Extra[1]["NCCL_X"]`: At("Profile.Extra").Elem(1).Entry("NCCL_X"),
		`Profile.Extra["a\"b"]`:      At("Profile.Extra").Entry(`a"b`),
	} {
		if got := f.String(); got != want {
			t.Errorf("%#v.String() = %q, want %q", f, got, want)
		}
	}
}

func TestLineUsesCallerNames(t *testing.T) {
	tests := []struct {
		name  string
		v     Violation
		names Names
		want  string
	}{
		{"error in caller names", errA, snake, "error: a: Too Big: a is 9; at most 3"},
		{"error in Go names", errA, GoNames, "error: Spec.A: Too Big: Spec.A is 9; at most 3"},
		{"warning with index", warnB, snake, "warning: b[0]: Odd B: b[0] is odd"},
		{"no detail", ErrorAt(At("Spec.A"), Worded{Summary: "S", Detail: func(Names) string { return "" }}), snake, "error: a: S"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.v.Line(tt.names)); diff != "" {
				t.Errorf("Line mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListFilters(t *testing.T) {
	tests := []struct {
		name         string
		l            List
		wantHasErr   bool
		wantErrors   int
		wantWarnings int
		wantErr      string
	}{
		{"nil", nil, false, 0, 0, ""},
		{"warning only", List{warnB}, false, 0, 1, ""},
		{"error only", List{errA}, true, 1, 0, "Spec.A is 9; at most 3"},
		{"mixed", List{warnB, errA, warnB, errA}, true, 2, 2, "Spec.A is 9; at most 3\nSpec.A is 9; at most 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.l.HasErrors(); got != tt.wantHasErr {
				t.Errorf("HasErrors() = %v, want %v", got, tt.wantHasErr)
			}
			for _, v := range tt.l.Errors() {
				if v.Severity != Error {
					t.Errorf("Errors() holds %v", v)
				}
			}
			for _, v := range tt.l.Warnings() {
				if v.Severity != Warning {
					t.Errorf("Warnings() holds %v", v)
				}
			}
			if len(tt.l.Errors()) != tt.wantErrors || len(tt.l.Warnings()) != tt.wantWarnings {
				t.Errorf("Errors/Warnings = %d/%d, want %d/%d", len(tt.l.Errors()), len(tt.l.Warnings()), tt.wantErrors, tt.wantWarnings)
			}
			got := ""
			if err := tt.l.Err(); err != nil {
				got = err.Error()
			}
			if got != tt.wantErr {
				t.Errorf("Err() = %q, want %q", got, tt.wantErr)
			}
		})
	}
}

// TestFieldInAndMoved: a field within a list element prints and compares with its parent, and
// a moved rule names the fields its words mention where Move puts them.
func TestFieldInAndMoved(t *testing.T) {
	parent := At("Lossless").Elem(1)
	f := At("LosslessClass.DSCP").Elem(0).In(parent)
	if got := f.String(); got != "Lossless[1].LosslessClass.DSCP[0]" {
		t.Errorf("String() = %q", got)
	}
	if !f.Equal(At("LosslessClass.DSCP").Elem(0).In(At("Lossless").Elem(1))) || f.Equal(At("LosslessClass.DSCP").Elem(0)) ||
		f.Equal(At("LosslessClass.DSCP").Elem(0).In(At("Lossless").Elem(0))) {
		t.Error("Equal compares the parent")
	}
	inner := Worded{Summary: "S", Detail: func(name Names) string { return name(At("X")) }}
	m := Moved{Rule: inner, From: At("X"), Move: func(g Field) Field { return g.In(parent) }}
	if _, d := m.Words(At("ignored"), GoNames); d != "Lossless[1].X" {
		t.Errorf("moved words = %q", d)
	}
}
