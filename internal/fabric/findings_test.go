package fabric

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var (
	errA  = Finding{Severity: SeverityError, Path: "a", Summary: "Bad A", Detail: "a is 1: use 2"}
	warnB = Finding{Severity: SeverityWarning, Path: "b[0]", Summary: "Odd B", Detail: "b[0] is odd"}
)

func TestFindingString(t *testing.T) {
	tests := []struct {
		name string
		f    Finding
		want string
	}{
		{"error", errA, "error: a: Bad A: a is 1: use 2"},
		{"warning", warnB, "warning: b[0]: Odd B: b[0] is odd"},
		{"no detail", Finding{Severity: SeverityError, Path: "p", Summary: "S"}, "error: p: S"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.f.String()); diff != "" {
				t.Errorf("String() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFindingsFilters(t *testing.T) {
	tests := []struct {
		name         string
		fs           Findings
		wantHasErr   bool
		wantErrors   Findings
		wantWarnings Findings
	}{
		{"nil", nil, false, nil, nil},
		{"warning only", Findings{warnB}, false, nil, Findings{warnB}},
		{"error only", Findings{errA}, true, Findings{errA}, nil},
		{"mixed", Findings{warnB, errA, warnB}, true, Findings{errA}, Findings{warnB, warnB}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.fs.HasErrors(); got != tt.wantHasErr {
				t.Errorf("HasErrors() = %v, want %v", got, tt.wantHasErr)
			}
			if diff := cmp.Diff(tt.wantErrors, tt.fs.Errors()); diff != "" {
				t.Errorf("Errors() mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWarnings, tt.fs.Warnings()); diff != "" {
				t.Errorf("Warnings() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFindingsPrefix(t *testing.T) {
	in := Findings{errA, warnB, {Severity: SeverityError, Summary: "Root"}}
	tests := []struct {
		name   string
		prefix string
		want   []string
	}{
		{"nested", "switch", []string{"switch.a", "switch.b[0]", "switch"}},
		{"list element", "hosts[2]", []string{"hosts[2].a", "hosts[2].b[0]", "hosts[2]"}},
		{"empty prefix", "", []string{"a", "b[0]", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := in.Prefix(tt.prefix)
			var paths []string
			for _, f := range got {
				paths = append(paths, f.Path)
			}
			if diff := cmp.Diff(tt.want, paths); diff != "" {
				t.Errorf("Prefix paths mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if in[0].Path != "a" {
		t.Errorf("Prefix modified its receiver: path %q", in[0].Path)
	}
	if got := Findings(nil).Prefix("x"); got != nil {
		t.Errorf("nil.Prefix() = %v, want nil", got)
	}
}

func TestFindingsErr(t *testing.T) {
	tests := []struct {
		name string
		fs   Findings
		want string
	}{
		{"none", nil, ""},
		{"warnings only", Findings{warnB}, ""},
		{"errors joined", Findings{errA, warnB, {Severity: SeverityError, Path: "c", Detail: "c is bad"}}, "a is 1: use 2\nc is bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if err := tt.fs.Err(); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Err() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// paths returns "severity path" for each finding, the shape most rule tests compare.
func paths(fs Findings) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Severity.String()+" "+f.Path)
	}
	return out
}

// checkFindings compares findings by severity and path, and requires every
// finding to carry a path, a summary and a detail.
func checkFindings(t *testing.T, want []string, got Findings) {
	t.Helper()
	if diff := cmp.Diff(want, paths(got), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("findings mismatch (-want +got):\n%s\ngot: %v", diff, got)
	}
	for _, f := range got {
		if f.Path == "" || f.Summary == "" || f.Detail == "" {
			t.Errorf("finding lacks path, summary or detail: %#v", f)
		}
	}
}

func TestFindingsRename(t *testing.T) {
	names := map[string]string{"rdma.priority": "priority", "rdma.dscp[0]": "rdma_dscp", "rdma.dscp": "rdma_dscps"}
	in := Findings{
		{Path: "rdma.priority", Detail: "rdma.priority is 8; cnp.priority is 3, the same as rdma.priority"},
		{Path: "rdma.dscp[0]", Detail: "rdma.dscp[0] is 64"},
		{Path: "rdma.dscp[1]", Detail: "rdma.dscp[1] repeats rdma.dscp[0]"},
		{Path: "rdma.priority_x", Detail: "rdma.priority_x and xrdma.priority stay"},
		{Path: "cnp.priority", Detail: "(rdma.priority) and rdma.priority..rdma.dscp"},
	}
	want := Findings{
		{Path: "priority", Detail: "priority is 8; cnp.priority is 3, the same as priority"},
		{Path: "rdma_dscp", Detail: "rdma_dscp is 64"},
		{Path: "rdma_dscps[1]", Detail: "rdma_dscps[1] repeats rdma_dscp"},
		{Path: "rdma.priority_x", Detail: "rdma.priority_x and xrdma.priority stay"},
		{Path: "cnp.priority", Detail: "(priority) and priority..rdma_dscps"},
	}
	if diff := cmp.Diff(want, in.Rename(names)); diff != "" {
		t.Errorf("Rename (-want +got):\n%s", diff)
	}
	if in[0].Path != "rdma.priority" {
		t.Error("Rename changed its receiver")
	}
	if got := in.Rename(nil); len(got) != len(in) || got[0] != in[0] {
		t.Errorf("Rename(nil) = %v", got)
	}
}
