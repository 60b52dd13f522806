package host

import (
	"context"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fileTask wants the file at path; it needs the file fact of path and changes nothing when
// the file exists. Its undo is another fileTask, of path+".undo".
type fileTask struct{ path string }

func (t fileTask) Name() string { return "file " + t.path }
func (t fileTask) Needs() Want  { return Want{}.WithFiles(t.path) }
func (t fileTask) Plan(f Facts) ([]Change, error) {
	if fi, ok := f.File(t.path); ok && fi.Exists {
		return []Change{Unchanged("present")}, nil
	}
	return []Change{{Summary: "create " + t.path, Apply: Commands{Run: []shell.Runnable{shell.Raw("touch " + t.path)}}}}, nil
}
func (t fileTask) Undo() Task { return fileTask{t.path + ".undo"} }

// facts with the files that exist.
func factsWith(paths ...string) Facts {
	f := Facts{Files: map[string]FileInfo{}}
	for _, p := range paths {
		f.Files[p] = FileInfo{Exists: true}
	}
	return f
}

func TestPhasesNeedsAndUndo(t *testing.T) {
	ps := Phases{{fileTask{"/a"}, fileTask{"/b"}}, {fileTask{"/c"}}}
	if diff := cmp.Diff([]string{"/a", "/b", "/c"}, ps.Needs().files, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("Needs files (-want +got):\n%s", diff)
	}
	var undo []string
	for _, u := range ps.Undo() {
		undo = append(undo, u.Name())
	}
	if diff := cmp.Diff([]string{"file /a.undo", "file /b.undo", "file /c.undo"}, undo); diff != "" {
		t.Errorf("Undo (-want +got):\n%s", diff)
	}
}

// TestPlanPhasesFacts: the phases after the first one with changes wait for it; with no
// changes every phase is planned.
func TestPlanPhasesFacts(t *testing.T) {
	ps := Phases{{fileTask{"/a"}}, {fileTask{"/b"}, fileTask{"/c"}}, {fileTask{"/d"}}}
	tests := []struct {
		name        string
		f           Facts
		wantChanges []string
		wantWaiting []string
		wantReports int
	}{
		{"first phase changes", factsWith("/b", "/c", "/d"), []string{"create /a"}, []string{"file /b", "file /c", "file /d"}, 1},
		{"second phase changes", factsWith("/a", "/d"), []string{"create /b", "create /c"}, []string{"file /d"}, 2},
		{"nothing changes", factsWith("/a", "/b", "/c", "/d"), nil, nil, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Engine{}.PlanPhasesFacts(context.Background(), tt.f, ps)
			if err != nil {
				t.Fatal(err)
			}
			var changes []string
			for _, c := range p.Changes() {
				changes = append(changes, c.Summary)
			}
			if diff := cmp.Diff(tt.wantChanges, changes); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantWaiting, p.Waiting); diff != "" {
				t.Errorf("waiting (-want +got):\n%s", diff)
			}
			if len(p.Reports) != tt.wantReports {
				t.Errorf("%d reports, want %d", len(p.Reports), tt.wantReports)
			}
			if p.Changed() != (tt.wantChanges != nil) {
				t.Errorf("Changed() = %v", p.Changed())
			}
		})
	}
}
