package host

import "context"

// Phases are groups of tasks applied in order, each converged and verified before the next
// starts: a later group may depend on what an earlier one installs (GPUDirect on the RDMA
// stack an OFED pin installs). A resource with one group is one phase.
type Phases [][]Task

// Undoer is a task whose resource can be destroyed: Undo returns the task that takes away
// what it put on the host.
type Undoer interface {
	Undo() Task
}

// Needs is what planning every phase reads.
func (ps Phases) Needs() Want {
	var want Want
	for _, phase := range ps {
		for _, t := range phase {
			want = want.Union(t.Needs())
		}
	}
	return want
}

// Undo is what destroying the phases runs: the undo of each task that has one, in order.
func (ps Phases) Undo() []Task {
	var undo []Task
	for _, phase := range ps {
		for _, t := range phase {
			if u, ok := t.(Undoer); ok {
				undo = append(undo, u.Undo())
			}
		}
	}
	return undo
}

// PhasedPlan is the plan of phases against one read of the host: the report of each phase up
// to the first one with changes, and the names of the tasks of the phases after it, which
// cannot be planned against facts that phase will change.
type PhasedPlan struct {
	Reports []Report
	Waiting []string
}

// Changes returns the planned changes of every phase that was planned, in order.
func (p PhasedPlan) Changes() []Change {
	var out []Change
	for _, r := range p.Reports {
		out = append(out, r.Changes()...)
	}
	return out
}

// Changed reports whether anything would change: a planned change, or a phase waiting for one.
func (p PhasedPlan) Changed() bool { return len(p.Changes()) > 0 || len(p.Waiting) > 0 }

// PlanPhases reads the host once and plans the phases (check mode).
func (e Engine) PlanPhases(ctx context.Context, ps Phases) (PhasedPlan, error) {
	f, err := e.Gather(ctx, ps.Needs())
	if err != nil {
		return PhasedPlan{}, err
	}
	return e.PlanPhasesFacts(ctx, f, ps)
}

// PlanPhasesFacts plans the phases against facts gathered with at least their Needs; it does
// no I/O.
func (e Engine) PlanPhasesFacts(ctx context.Context, f Facts, ps Phases) (PhasedPlan, error) {
	var p PhasedPlan
	for _, phase := range ps {
		if len(p.Changes()) > 0 {
			for _, t := range phase {
				p.Waiting = append(p.Waiting, t.Name())
			}
			continue
		}
		rep, err := e.PlanFacts(ctx, f, phase)
		if err != nil {
			return PhasedPlan{}, err
		}
		p.Reports = append(p.Reports, rep)
	}
	return p, nil
}

// ApplyPhases applies the phases in order, each with Apply (converged and verified) before the
// next. It stops at the first phase that fails and returns the reports of the phases applied
// before it with that phase's error.
func (e Engine) ApplyPhases(ctx context.Context, ps Phases) ([]Report, error) {
	var reps []Report
	for _, phase := range ps {
		rep, err := e.Apply(ctx, phase)
		if err != nil {
			return reps, err
		}
		reps = append(reps, rep)
	}
	return reps, nil
}
