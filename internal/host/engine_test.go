package host

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// script is the batch's command line.
func (b batch) script() (string, error) { return b.command().Render() }

func cmds(sudo bool, c ...string) Commands {
	var rs []shell.Runnable
	for _, x := range c {
		rs = append(rs, shell.New(x))
	}
	return Commands{Run: rs, Sudo: sudo}
}

func TestBatches(t *testing.T) {
	changes := []Change{
		{Summary: "a", Apply: cmds(true, "a1", "a2")},
		{Summary: "b", Apply: cmds(true, "b")},
		{Summary: "w", Apply: WriteFile{Path: "/w"}},
		{Summary: "c", Apply: cmds(true, "c")},
		{Summary: "d", Apply: cmds(false, "d")},
		{Summary: "e", Apply: cmds(false, "e")},
	}
	var got []string
	for _, b := range batches(changes) {
		if b.write != nil {
			got = append(got, b.summary()+" => write "+b.write.Path)
			continue
		}
		s, err := b.script()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b.summary()+" => "+s)
	}
	want := []string{"a; b => a1 && a2 && b", "w => write /w", "c => c", "d; e => d && e"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("batches (-want +got):\n%s", diff)
	}
}

// A write whose content was withheld (a write-only secret during a refresh) never runs: it
// fails before touching the runner, which is nil here.
func TestWithheldWriteRefused(t *testing.T) {
	b := batches([]Change{{Summary: "w", Apply: WriteFile{Path: "/etc/secret", Mode: 0o600, Withheld: true}}})
	err := b[0].apply(context.Background(), nil, true)
	if err == nil || !strings.Contains(err.Error(), "write-only") {
		t.Fatalf("apply = %v, want the write-only refusal", err)
	}
}

// A batch keeps compound commands whole: an || list after && is braced.
func TestBatchScriptGroupsCompoundCommands(t *testing.T) {
	b := batches([]Change{
		{Summary: "y", Apply: Commands{Run: []shell.Runnable{shell.New("echo", "it's")}}},
		{Summary: "x", Apply: Commands{Run: []shell.Runnable{shell.Or(shell.New("test", "-e", "/x"), shell.New("touch", "/x"))}}},
	})
	got, err := b[0].script()
	if err != nil {
		t.Fatal(err)
	}
	if want := `echo 'it'\''s' && { test -e /x || touch /x; }`; got != want {
		t.Errorf("script = %q, want %q", got, want)
	}
}

// planned is a Task made of a function, for the engine's unit tests.
type plannedTask struct {
	name string
	plan func(Facts) ([]Change, error)
}

func (p plannedTask) Name() string                   { return p.name }
func (p plannedTask) Needs() Want                    { return WantFacts(FactModules) }
func (p plannedTask) Plan(f Facts) ([]Change, error) { return p.plan(f) }

func TestPlanTasks(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name    string
		changes []Change
		err     error
		want    []TaskReport
		wantErr string
	}{
		{"notes only", []Change{Unchanged("x is loaded")}, nil,
			[]TaskReport{{Task: "t", Reasons: []string{"x is loaded"}}}, ""},
		{"change", []Change{{Summary: "load x", Apply: cmds(true, "modprobe")}, Unchanged("y fine")}, nil,
			[]TaskReport{{Task: "t", Changes: []Change{{Task: "t", Summary: "load x", Apply: cmds(true, "modprobe")}}, Reasons: []string{"y fine"}}}, ""},
		{"plan error", nil, errBoom, nil, "plan t on h: boom"},
		{"empty commands", []Change{{Summary: "nothing", Apply: Commands{}}}, nil, nil, "plan t on h: nothing: no commands to run"},
		{"NUL in command", []Change{{Summary: "nul", Apply: cmds(false, "a\x00b")}}, nil, nil, "plan t on h: nul:"},
		{"relative path", []Change{{Summary: "w", Apply: WriteFile{Path: "etc/x"}}}, nil, nil, `plan t on h: w: write "etc/x": want an absolute, clean file path`},
		{"unclean path", []Change{{Summary: "w", Apply: WriteFile{Path: "/etc/../x"}}}, nil, nil, "want an absolute, clean file path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			task := plannedTask{name: "t", plan: func(Facts) ([]Change, error) { return tt.changes, tt.err }}
			got, err := planTasks(Facts{Host: "h"}, []Task{task})
			if tt.wantErr != "" {
				var te *TaskError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &te) {
					t.Fatalf("error = %v, want a *TaskError containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b Commands) bool {
				return cmp.Equal(a.Lines(), b.Lines())
			})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReportString(t *testing.T) {
	r := Report{Host: "10.0.0.7:22", Tasks: []TaskReport{
		{Task: "module nvidia_peermem", Changes: []Change{
			{Summary: "load kernel module nvidia_peermem", Before: "not loaded", After: "loaded", Apply: cmds(true, "modprobe")},
			{Summary: "create /etc/x (3 bytes)", Before: "absent", After: "sha256 abc (3 bytes), mode 0644",
				Apply: WriteFile{Path: "/etc/my file", Content: []byte("abc"), Mode: 0o644, Owner: "root:root", Sudo: true}},
		}},
		{Task: "file /etc/nccl.conf", Reasons: []string{"/etc/nccl.conf has the wanted content"}},
		{Task: "quiet"},
	}}
	want := `host 10.0.0.7:22: 2 changes planned (check mode)
  module nvidia_peermem:
    ~ load kernel module nvidia_peermem
        before: not loaded
        after:  loaded
        run: modprobe (as root)
    ~ create /etc/x (3 bytes)
        before: absent
        after:  sha256 abc (3 bytes), mode 0644
        write: '/etc/my file' (3 bytes, mode 0644, owner root:root) (as root)
  file /etc/nccl.conf: no changes: /etc/nccl.conf has the wanted content
  quiet: no changes: the host is in the wanted state
`
	if diff := cmp.Diff(want, r.String()); diff != "" {
		t.Errorf("String (-want +got):\n%s", diff)
	}
	if !r.Changed() || r.Tasks[1].Changed() || r.Tasks[0].NoChange() != "" {
		t.Errorf("Changed/NoChange wrong: %v %v %q", r.Changed(), r.Tasks[1].Changed(), r.Tasks[0].NoChange())
	}
}

func TestWant(t *testing.T) {
	a := WantFacts(FactQoS, FactOFED).WithFiles("/b", "/a", "/b")
	b := WantFacts(FactModules).WithFiles("/c", "/a")
	u := a.Union(b)
	if got, want := u.String(), "ofed_info,lsmod,mlnx_qos,file /a,file /b,file /c"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if !u.Has(FactModules) || u.Has(FactKernel) || !(Want{}).Empty() || u.Empty() {
		t.Error("Has/Empty wrong")
	}
	if a.String() != "ofed_info,mlnx_qos,file /a,file /b" {
		t.Errorf("Union changed its receiver: %s", a)
	}
	if !a.withDependencies().Has(FactNetdevs) {
		t.Error("mlnx_qos does not pull in the netdevs")
	}
	if got := len(AllFacts().IDs()); got != int(numFactIDs) {
		t.Errorf("AllFacts has %d facts, want %d", got, numFactIDs)
	}
	for f := range numFactIDs {
		if f.String() == "" {
			t.Errorf("fact %d has no name", f)
		}
		if s, err := stepFor(f); err != nil || s.parse == nil || s.label != f.String() {
			t.Errorf("fact %s: step %+v, %v: want a labelled step that parses", f, s, err)
		}
	}
}

func TestDMABUF(t *testing.T) {
	gathered := WantFacts(FactKernel, FactNVIDIA)
	k := func(major, minor int) Kernel { return Kernel{Release: "x", Major: major, Minor: minor} }
	tests := []struct {
		name string
		f    Facts
		want bool
		why  string
	}{
		{"open on 6.8", Facts{Gathered: gathered, Kernel: k(6, 8)}, false, "proprietary"},
		{"not gathered", Facts{Kernel: k(6, 8)}, false, "kernel release unknown"},
		{"old kernel", Facts{Gathered: gathered, Kernel: k(5, 11)}, false, "older than 5.12"},
		{"driver absent", Facts{Gathered: gathered, Kernel: k(6, 8), Absent: map[string]string{"nvidia driver": "x"}}, false, "not loaded"},
	}
	open := Facts{Gathered: gathered, Kernel: k(5, 12)}
	open.NVIDIA.Open = true
	tests = append(tests, struct {
		name string
		f    Facts
		want bool
		why  string
	}{"open on 5.12", open, true, "open NVIDIA kernel modules"})
	for _, tt := range tests {
		got, why := tt.f.DMABUF()
		if got != tt.want || !strings.Contains(why, tt.why) {
			t.Errorf("%s: DMABUF = %v %q, want %v and a reason with %q", tt.name, got, why, tt.want, tt.why)
		}
	}
}
