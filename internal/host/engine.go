package host

import (
	"context"
	"os"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// Engine plans and applies tasks on one host.
type Engine struct {
	// Runner reaches the host.
	Runner Runner
	// Sudo runs the gather and the steps that need root through sudo, for a
	// login user other than root.
	Sudo bool
	// Cache, when set, shares gathered facts with the other engines of the
	// process; Runner should then come from Cache.Runner.
	Cache *GatherCache
	// Events, when set, hears each gather and plan.
	Events Events
}

// Plan gathers the facts all tasks need in one round trip and plans each
// task. It changes nothing on the host: it is check mode.
func (e Engine) Plan(ctx context.Context, tasks []Task) (Report, error) {
	r := &countingRunner{Runner: e.Runner}
	f, err := e.gatherFor(ctx, r, tasks)
	if err != nil {
		return Report{}, err
	}
	trs, err := e.plan(ctx, "plan", f, tasks)
	if err != nil {
		return Report{}, err
	}
	return Report{Host: r.Address(), Tasks: trs, RoundTrips: r.n}, nil
}

// Apply plans the tasks as Plan does, applies every change in order (one
// round trip per file write or per run of consecutive command changes of a
// task), then gathers and plans again to verify. A change that fails stops
// the apply with a *TaskError; a second plan that still has changes is a
// *NotConvergedError. When no task has a change, nothing is run after the
// gather.
func (e Engine) Apply(ctx context.Context, tasks []Task) (Report, error) {
	r := &countingRunner{Runner: e.Runner}
	f, err := e.gatherFor(ctx, r, tasks)
	if err != nil {
		return Report{}, err
	}
	trs, err := e.plan(ctx, "apply", f, tasks)
	if err != nil {
		return Report{}, err
	}
	changed := false
	for _, tr := range trs {
		for _, b := range batches(tr.Changes) {
			if err := b.apply(ctx, r, e.Sudo); err != nil {
				err = explainLost(err, "this change, which may or may not have been made; the changes before it were made")
				return Report{}, &TaskError{Host: r.Address(), Task: tr.Task, Op: "apply", Change: b.summary(), Err: err}
			}
			changed = true
		}
	}
	rep := Report{Host: r.Address(), Applied: true, Tasks: trs}
	if changed {
		if err := e.verify(ctx, r, tasks); err != nil {
			return Report{}, err
		}
	}
	rep.RoundTrips = r.n
	return rep, nil
}

// verify gathers again and requires an empty plan.
func (e Engine) verify(ctx context.Context, r Runner, tasks []Task) error {
	f, err := e.gatherFor(ctx, r, tasks)
	if err != nil {
		return err
	}
	trs, err := e.plan(ctx, "verify", f, tasks)
	if err != nil {
		return err
	}
	var pending []Change
	for _, tr := range trs {
		pending = append(pending, tr.Changes...)
	}
	if len(pending) > 0 {
		return &NotConvergedError{Host: r.Address(), Pending: pending}
	}
	return nil
}

// gatherFor gathers the union of the tasks' needs; no tasks need no gather.
func (e Engine) gatherFor(ctx context.Context, r Runner, tasks []Task) (Facts, error) {
	var want Want
	for _, t := range tasks {
		want = want.Union(t.Needs())
	}
	if want.Empty() {
		return Facts{Host: r.Address(), Absent: map[string]string{}}, nil
	}
	return e.gather(ctx, r, want, e.Sudo)
}

// gather reads want through the cache when the engine has one.
func (e Engine) gather(ctx context.Context, r Runner, want Want, sudo bool) (Facts, error) {
	began := time.Now()
	var f Facts
	var err error
	from := FromHost
	if e.Cache != nil {
		f, from, err = e.Cache.gather(ctx, r, want, sudo)
	} else {
		f, err = gather(ctx, r, want, sudo)
	}
	if e.Events != nil {
		e.Events.Gathered(ctx, r.Address(), want, from, f, time.Since(began), err)
	}
	return f, err
}

// plan plans the tasks against f and tells e.Events; phase names the plan's purpose.
func (e Engine) plan(ctx context.Context, phase string, f Facts, tasks []Task) ([]TaskReport, error) {
	trs, err := planTasks(f, tasks)
	if err == nil && e.Events != nil {
		e.Events.Planned(ctx, f.Host, phase, trs)
	}
	return trs, err
}

// planTasks plans every task against f and checks the steps it yields.
func planTasks(f Facts, tasks []Task) ([]TaskReport, error) {
	out := make([]TaskReport, 0, len(tasks))
	for _, t := range tasks {
		name := t.Name()
		cs, err := t.Plan(f)
		if err != nil {
			return nil, &TaskError{Host: f.Host, Task: name, Op: "plan", Err: err}
		}
		tr := TaskReport{Task: name}
		for _, c := range cs {
			c.Task = name
			if c.Apply == nil {
				tr.Reasons = append(tr.Reasons, c.Summary)
				continue
			}
			if err := c.Apply.validate(); err != nil {
				return nil, &TaskError{Host: f.Host, Task: name, Op: "plan", Change: c.Summary, Err: err}
			}
			if w, ok := c.Apply.(WriteFile); ok {
				w.makeDirs = dirMayBeMissing(f, w.Path)
				c.Apply = w
			}
			tr.Changes = append(tr.Changes, c)
		}
		out = append(out, tr)
	}
	return out, nil
}

// dirMayBeMissing reports whether the directory of path may have to be
// created: the gather found path and its directory absent, or did not read
// path.
func dirMayBeMissing(f Facts, path string) bool {
	fi, ok := f.File(path)
	return !ok || !fi.Exists && fi.DirMissing
}

// countingRunner counts the round trips of one Plan or Apply; a copy made
// for reading (reader) counts into its parent.
type countingRunner struct {
	Runner
	n      int
	parent *countingRunner
}

func (c *countingRunner) count() {
	if c.parent != nil {
		c.parent.count()
		return
	}
	c.n++
}

func (c *countingRunner) Run(ctx context.Context, cmd shell.Runnable, opts ssh.RunOptions) (ssh.Result, error) {
	c.count()
	return c.Runner.Run(ctx, cmd, opts)
}

func (c *countingRunner) WriteFile(ctx context.Context, path string, data []byte, mode os.FileMode, owner string, sudo bool) error {
	c.count()
	return c.Runner.WriteFile(ctx, path, data, mode, owner, sudo)
}

func (c *countingRunner) ReadFile(ctx context.Context, path string, sudo bool) ([]byte, error) {
	c.count()
	return c.Runner.ReadFile(ctx, path, sudo)
}

// ReadFile returns the whole file at path on the host, through sudo when e.Sudo: for files
// too large for the file fact (MaxFileContent), such as a job's NCCL log.
func (e Engine) ReadFile(ctx context.Context, path string) ([]byte, error) {
	return e.Runner.ReadFile(ctx, path, e.Sudo)
}

// Gather reads want in one round trip, through sudo when e.Sudo, for callers that plan several
// groups of tasks (PlanFacts) or read more than the tasks need from one gather.
func (e Engine) Gather(ctx context.Context, want Want) (Facts, error) {
	return e.gather(ctx, e.Runner, want, e.Sudo)
}

// Read reads want in one round trip without sudo, as [Gather] does, through the engine's
// cache when it has one.
func (e Engine) Read(ctx context.Context, want Want) (Facts, error) {
	return e.gather(ctx, e.Runner, want, false)
}

// PlanFacts plans tasks against facts already gathered with at least their Needs. It does no
// I/O: it is Plan without the gather.
func (e Engine) PlanFacts(ctx context.Context, f Facts, tasks []Task) (Report, error) {
	trs, err := e.plan(ctx, "plan", f, tasks)
	if err != nil {
		return Report{}, err
	}
	return Report{Host: f.Host, Tasks: trs}, nil
}
