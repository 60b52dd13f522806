package host

import (
	"strconv"
	"strings"
)

// Report is the outcome of Engine.Plan or Engine.Apply on one host.
type Report struct {
	// Host is the host's address.
	Host string
	// Applied reports an Apply; false is a plan (check mode).
	Applied bool
	// Tasks are the tasks in the order given.
	Tasks []TaskReport
	// RoundTrips counts the remote commands and file writes it took.
	RoundTrips int
}

// TaskReport is what one task planned (or applied).
type TaskReport struct {
	// Task is the task's name.
	Task string
	// Changes are the changes, in order, with their before and after.
	Changes []Change
	// Reasons are the notes of the task: why parts of it needed no change.
	Reasons []string
}

// Changed reports whether the task yielded a change.
func (t TaskReport) Changed() bool { return len(t.Changes) > 0 }

// NoChange says why the task yielded nothing: "no changes: <reasons>"; it is
// empty for a task with changes.
func (t TaskReport) NoChange() string {
	if t.Changed() {
		return ""
	}
	if len(t.Reasons) == 0 {
		return "no changes: the host is in the wanted state"
	}
	return "no changes: " + strings.Join(t.Reasons, "; ")
}

// Changed reports whether any task yielded a change.
func (r Report) Changed() bool {
	for _, t := range r.Tasks {
		if t.Changed() {
			return true
		}
	}
	return false
}

// Changes returns the changes of every task, in order.
func (r Report) Changes() []Change {
	var out []Change
	for _, t := range r.Tasks {
		out = append(out, t.Changes...)
	}
	return out
}

// String renders the report as readable lines: per task its changes with
// before, after and the step, or why it has none.
func (r Report) String() string {
	var b strings.Builder
	n := len(r.Changes())
	verb := "planned (check mode)"
	if r.Applied {
		verb = "applied"
	}
	b.WriteString("host " + r.Host + ": " + strconv.Itoa(n) + " " + plural(n, "change") + " " + verb + "\n")
	for _, t := range r.Tasks {
		if !t.Changed() {
			b.WriteString("  " + t.Task + ": " + t.NoChange() + "\n")
			continue
		}
		b.WriteString("  " + t.Task + ":\n")
		for _, c := range t.Changes {
			b.WriteString("    ~ " + c.Summary + "\n")
			if c.Before != "" || c.After != "" {
				b.WriteString("        before: " + c.Before + "\n")
				b.WriteString("        after:  " + c.After + "\n")
			}
			for _, l := range c.Apply.Lines() {
				b.WriteString("        " + l + "\n")
			}
		}
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
