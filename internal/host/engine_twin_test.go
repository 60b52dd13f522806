package host_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/host/tasks"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

const (
	peermemConf = "/etc/modules-load.d/nvidia_peermem.conf"
	ncclConf    = "/etc/nccl.conf"
	ncclContent = "NCCL_IB_HCA==mlx5_0,mlx5_1\nNCCL_IB_GID_INDEX=3\n" // 47 bytes
)

// bootstrap is the task list of the engine tests: nvidia_peermem loaded and
// persisted, and an NCCL file.
func bootstrap() []host.Task {
	return []host.Task{
		tasks.ModuleLoaded{Module: "nvidia_peermem", Persist: true},
		tasks.File{Path: ncclConf, Content: ncclContent, Mode: 0o644},
	}
}

// shortSum is the start of the SHA-256 of s, as plans show it.
func shortSum(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:12]
}

// planned is a change as a plan shows it, without its step's functions.
type planned struct {
	Task, Summary, Before, After string
	Lines                        []string
}

func plannedChanges(r host.Report) []planned {
	var out []planned
	for _, c := range r.Changes() {
		out = append(out, planned{c.Task, c.Summary, c.Before, c.After, c.Apply.Lines()})
	}
	return out
}

func summaries(r host.Report) []string {
	var out []string
	for _, c := range r.Changes() {
		out = append(out, c.Task+": "+c.Summary)
	}
	return out
}

func TestPlanIsCheckMode(t *testing.T) {
	f, c := twin(t, "check")
	ctx := context.Background()
	cmd0 := commands(t, f, "check")
	rep, err := host.Engine{Runner: c}.Plan(ctx, bootstrap())
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	want := []planned{
		{"module nvidia_peermem", "load kernel module nvidia_peermem", "not loaded", "loaded",
			[]string{"run: modprobe nvidia_peermem (as root)"}},
		{"module nvidia_peermem", "load at boot: create /etc/modules-load.d/nvidia_peermem.conf (15 bytes)", "absent",
			"sha256 " + shortSum("nvidia_peermem\n") + " (15 bytes), mode 0644",
			[]string{"write: /etc/modules-load.d/nvidia_peermem.conf (15 bytes, mode 0644) (as root)"}},
		{"file /etc/nccl.conf", "create /etc/nccl.conf (47 bytes)", "absent", "sha256 " + shortSum(ncclContent) + " (47 bytes), mode 0644",
			[]string{"write: /etc/nccl.conf (47 bytes, mode 0644) (as root)"}},
	}
	if diff := cmp.Diff(want, plannedChanges(rep)); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if rep.Applied || rep.RoundTrips != 1 {
		t.Errorf("Report.Applied = %v, RoundTrips = %d; want false, 1", rep.Applied, rep.RoundTrips)
	}
	if got := commands(t, f, "check") - cmd0; got != 1 {
		t.Errorf("Plan ran %d remote commands, want 1 (the gather)", got)
	}
	// Check mode changed nothing.
	facts, err := host.Gather(ctx, c, host.WantFacts(host.FactModules).WithFiles(peermemConf, ncclConf))
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	if facts.ModuleLoaded("nvidia_peermem") || facts.Files[peermemConf].Exists || facts.Files[ncclConf].Exists {
		t.Errorf("Plan changed the host: module loaded %v, files %+v", facts.ModuleLoaded("nvidia_peermem"), facts.Files)
	}
	// Plan is pure: the same facts give the same changes.
	all := host.AllFacts().WithFiles(peermemConf, ncclConf)
	facts, err = host.Gather(ctx, c, all)
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	for _, task := range bootstrap() {
		a, errA := task.Plan(facts)
		b, errB := task.Plan(facts)
		if errA != nil || errB != nil {
			t.Fatalf("Plan %s: %v, %v", task.Name(), errA, errB)
		}
		pa, pb := plannedChanges(host.Report{Tasks: []host.TaskReport{{Changes: a}}}), plannedChanges(host.Report{Tasks: []host.TaskReport{{Changes: b}}})
		if diff := cmp.Diff(pa, pb); diff != "" || len(pa) == 0 {
			t.Errorf("two plans of %s differ or are empty (-first +second):\n%s", task.Name(), diff)
		}
	}
}

func TestApplyConvergesAndIsIdempotent(t *testing.T) {
	f, c := twin(t, "apply")
	ctx := context.Background()
	eng := host.Engine{Runner: c}
	cmd0 := commands(t, f, "apply")
	rep, err := eng.Apply(ctx, bootstrap())
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	want := []string{
		"module nvidia_peermem: load kernel module nvidia_peermem",
		"module nvidia_peermem: load at boot: create /etc/modules-load.d/nvidia_peermem.conf (15 bytes)",
		"file /etc/nccl.conf: create /etc/nccl.conf (47 bytes)",
	}
	if diff := cmp.Diff(want, summaries(rep)); diff != "" {
		t.Errorf("applied changes (-want +got):\n%s", diff)
	}
	// gather, modprobe, two writes, verifying gather.
	if !rep.Applied || rep.RoundTrips != 5 {
		t.Errorf("Report.Applied = %v, RoundTrips = %d; want true, 5", rep.Applied, rep.RoundTrips)
	}
	if got := commands(t, f, "apply") - cmd0; got != 3 {
		t.Errorf("Apply ran %d remote commands, want 3 (gather, modprobe, gather; files go over SFTP)", got)
	}
	for path, want := range map[string]string{peermemConf: "nvidia_peermem\n", ncclConf: ncclContent} {
		got, err := hostFile(t, f, "apply", path)
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", path, got, err, want)
		}
	}
	facts, err := host.Gather(ctx, c, host.WantFacts(host.FactModules, host.FactPeerMem))
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	if !facts.ModuleLoaded("nvidia_peermem") || !facts.PeerMem.Registered {
		t.Errorf("after Apply: nvidia_peermem loaded %v, peer memory registered %v; want both", facts.ModuleLoaded("nvidia_peermem"), facts.PeerMem.Registered)
	}

	// A second Apply finds nothing to do, says why, and needs the gather only.
	rep, err = eng.Apply(ctx, bootstrap())
	if err != nil {
		t.Fatalf("second Apply: %v", err)
	}
	if rep.Changed() || rep.RoundTrips != 1 {
		t.Errorf("second Apply: changed %v, %d round trips; want no changes, 1:\n%s", rep.Changed(), rep.RoundTrips, rep)
	}
	wantText := "host " + c.Address() + ": 0 changes applied\n" +
		"  module nvidia_peermem: no changes: nvidia_peermem is loaded; loaded at boot: " + peermemConf + " has the wanted content (sha256 " + shortSum("nvidia_peermem\n") + ") and mode\n" +
		"  file /etc/nccl.conf: no changes: /etc/nccl.conf has the wanted content (sha256 " + shortSum(ncclContent) + ") and mode\n"
	if diff := cmp.Diff(wantText, rep.String()); diff != "" {
		t.Errorf("second report (-want +got):\n%s", diff)
	}

	// Drift made out of band shows as a diff in the next plan.
	twinRun(t, f, "apply", `sed -i 's/=3$/=5/' /etc/nccl.conf && chmod 600 /etc/nccl.conf`)
	rep, err = eng.Plan(ctx, bootstrap())
	if err != nil {
		t.Fatalf("Plan after drift: %v", err)
	}
	want = []string{"file /etc/nccl.conf: update /etc/nccl.conf: content +1 -1 lines, mode 0600 → 0644"}
	if diff := cmp.Diff(want, summaries(rep)); diff != "" {
		t.Errorf("plan after drift (-want +got):\n%s", diff)
	}
}

func TestRebootLosesModuleUnlessPersisted(t *testing.T) {
	f, c := twin(t, "reboot")
	ctx := context.Background()
	eng := host.Engine{Runner: c}
	load := []host.Task{tasks.ModuleLoaded{Module: "nvidia_peermem"}}
	if _, err := eng.Apply(ctx, load); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if err := f.Reboot(ctx, "reboot"); err != nil {
		t.Fatalf("Reboot: %v", err)
	}
	rep, err := eng.Plan(ctx, load)
	if err != nil {
		t.Fatalf("Plan after reboot: %v", err)
	}
	if diff := cmp.Diff([]string{"module nvidia_peermem: load kernel module nvidia_peermem"}, summaries(rep)); diff != "" {
		t.Errorf("plan after reboot (-want +got):\n%s", diff)
	}

	persist := []host.Task{tasks.ModuleLoaded{Module: "nvidia_peermem", Persist: true}}
	if _, err := eng.Apply(ctx, persist); err != nil {
		t.Fatalf("Apply with Persist: %v", err)
	}
	if err := f.Reboot(ctx, "reboot"); err != nil {
		t.Fatalf("Reboot: %v", err)
	}
	rep, err = eng.Plan(ctx, persist)
	if err != nil {
		t.Fatalf("Plan after reboot: %v", err)
	}
	if rep.Changed() {
		t.Errorf("persisted module: plan after reboot has changes, want none:\n%s", rep)
	}
}

func TestPeermemWrongOrder(t *testing.T) {
	f, c := twin(t, "wrongorder")
	ctx := context.Background()
	eng := host.Engine{Runner: c}
	_, err := eng.Apply(ctx, bootstrap())
	if !errors.Is(err, tasks.ErrDriverBuiltBeforeOFED) {
		t.Fatalf("Apply error = %v, want one wrapping tasks.ErrDriverBuiltBeforeOFED", err)
	}
	var te *host.TaskError
	if !errors.As(err, &te) || te.Host != c.Address() || te.Task != "module nvidia_peermem" || te.Op != "apply" {
		t.Errorf("error %#v: want a *host.TaskError of apply of module nvidia_peermem on %s", te, c.Address())
	}
	contains(t, "error", err.Error(), c.Address(), "Invalid argument", "built before OFED",
		"reinstall or rebuild the NVIDIA driver after OFED")
	// The apply stopped at the failure: nothing after it was written.
	for _, p := range []string{peermemConf, ncclConf} {
		if _, err := hostFile(t, f, "wrongorder", p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s after the failed apply: %v, want it absent", p, err)
		}
	}
	// The remedy works: rebuild the driver against the installed OFED.
	twinRun(t, f, "wrongorder", "dkms autoinstall >/dev/null")
	if _, err := eng.Apply(ctx, bootstrap()); err != nil {
		t.Errorf("Apply after dkms autoinstall: %v", err)
	}
}

func TestPeermemOnInboxFailsAtPlan(t *testing.T) {
	_, c := twin(t, "inbox")
	_, err := host.Engine{Runner: c}.Plan(context.Background(), bootstrap())
	if !errors.Is(err, tasks.ErrPeermemNeedsOFED) {
		t.Fatalf("Plan error = %v, want tasks.ErrPeermemNeedsOFED", err)
	}
	contains(t, "error", err.Error(), "plan module nvidia_peermem on "+c.Address(), "inbox", "DMA-BUF")
}

// stubborn is a task whose apply does not change what its plan reads.
type stubborn struct{}

func (stubborn) Name() string     { return "stubborn" }
func (stubborn) Needs() host.Want { return host.WantFacts(host.FactModules) }
func (stubborn) Plan(f host.Facts) ([]host.Change, error) {
	if f.ModuleLoaded("roce_never") {
		return nil, nil
	}
	return []host.Change{{Summary: "pretend to load roce_never", Apply: host.Commands{Run: []shell.Runnable{shell.New("true")}}}}, nil
}

func TestApplyNotConverged(t *testing.T) {
	_, c := twin(t, "notconv")
	_, err := host.Engine{Runner: c}.Apply(context.Background(), []host.Task{stubborn{}})
	var nc *host.NotConvergedError
	if !errors.As(err, &nc) {
		t.Fatalf("Apply error = %v, want a *host.NotConvergedError", err)
	}
	want := "host " + c.Address() + ": not converged: stubborn: pretend to load roce_never"
	if err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

func TestHostileFilePath(t *testing.T) {
	f, c := twin(t, "hostile")
	ctx := context.Background()
	dir := `/etc/roce test 'q' "dq"`
	path := dir + `/it's $(touch pwned) ` + "`touch pwned2`" + ` ; rm -rf x & "file".conf`
	// Content with a line that looks like a gather delimiter, no final
	// newline, and bytes that are not UTF-8.
	content := "a=1\n\n0123456789abcdef0123456789abcdef 0 0 -\n\xff\xfe tail"
	twinRun(t, f, "hostile", "mkdir -p "+shell.Quote(dir))
	task := tasks.File{Path: path, Content: content, Mode: 0o640}
	eng := host.Engine{Runner: c}
	rep, err := eng.Apply(ctx, []host.Task{task})
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if len(rep.Changes()) != 1 || !strings.HasPrefix(rep.Changes()[0].Summary, "create ") {
		t.Errorf("Apply changes = %v, want one create", summaries(rep))
	}
	got, err := hostFile(t, f, "hostile", path)
	if err != nil || string(got) != content {
		t.Errorf("file = %q, %v; want %q", got, err, content)
	}
	// Had a shell expanded the path, pwned files would be in a home or cwd.
	check := "cd && ls -d ~/pwned* /pwned* " + shell.Quote(dir) + "/pwned* 2>/dev/null || true"
	if out := twinRun(t, f, "hostile", check); out != "" {
		t.Errorf("the path was run as a command: %q", out)
	}
	facts, err := host.Gather(ctx, c, task.Needs())
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	fi := facts.Files[path]
	if !fi.Exists || string(fi.Content) != content || fi.Mode != 0o640 || fi.Owner != "root" {
		t.Errorf("file fact = %+v, want it to exist with the content, mode 0640 and owner root", fi)
	}
	rep, err = eng.Apply(ctx, []host.Task{task})
	if err != nil || rep.Changed() {
		t.Errorf("second Apply: %v, changed %v; want no changes:\n%s", err, rep.Changed(), rep)
	}
}

// sudoRecorder records the sudo flags the engine passes and runs without
// sudo (the twins have no sudo binary; their login user is root).
type sudoRecorder struct {
	host.Runner
	calls []string
}

func (s *sudoRecorder) Run(ctx context.Context, cmd shell.Runnable, opts ssh.RunOptions) (ssh.Result, error) {
	what := "run"
	if strings.Contains(cmd.String(), "mark_") {
		what = "gather"
	}
	s.calls = append(s.calls, what+" sudo="+strconv.FormatBool(opts.Sudo))
	opts.Sudo = false
	return s.Runner.Run(ctx, cmd, opts)
}

func (s *sudoRecorder) WriteFile(ctx context.Context, path string, data []byte, mode os.FileMode, owner string, sudo bool) error {
	s.calls = append(s.calls, "write sudo="+strconv.FormatBool(sudo))
	return s.Runner.WriteFile(ctx, path, data, mode, owner, false)
}

// With Engine.Sudo, the gather and every step that needs root go through
// sudo; without it nothing does.
func TestEngineSudo(t *testing.T) {
	_, c := twin(t, "sudo")
	ctx := context.Background()
	rec := &sudoRecorder{Runner: c}
	if _, err := (host.Engine{Runner: rec, Sudo: true}).Apply(ctx, bootstrap()); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	want := []string{"gather sudo=true", "run sudo=true", "write sudo=true", "write sudo=true", "gather sudo=true"}
	if diff := cmp.Diff(want, rec.calls); diff != "" {
		t.Errorf("calls with Engine.Sudo (-want +got):\n%s", diff)
	}
	rec.calls = nil
	if _, err := (host.Engine{Runner: rec}).Plan(ctx, bootstrap()); err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if diff := cmp.Diff([]string{"gather sudo=false"}, rec.calls); diff != "" {
		t.Errorf("calls without Engine.Sudo (-want +got):\n%s", diff)
	}
}
