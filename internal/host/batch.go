package host

import (
	"context"
	"fmt"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// batch is what one round trip applies: consecutive command changes of one
// task that agree on sudo, or one file write (with the creation of its
// missing directories).
type batch struct {
	changes []Change
	cmds    []Commands // for a command batch
	write   *WriteFile // for a file write
}

// batches groups the changes of one task into round trips, in order.
func batches(changes []Change) []batch {
	var out []batch
	for _, c := range changes {
		switch st := c.Apply.(type) {
		case Commands:
			if n := len(out); n > 0 && out[n-1].write == nil && out[n-1].cmds[0].Sudo == st.Sudo {
				out[n-1].changes = append(out[n-1].changes, c)
				out[n-1].cmds = append(out[n-1].cmds, st)
				continue
			}
			out = append(out, batch{changes: []Change{c}, cmds: []Commands{st}})
		case WriteFile:
			w := st
			out = append(out, batch{changes: []Change{c}, write: &w})
		}
	}
	return out
}

// summary joins the summaries of the batch's changes.
func (b batch) summary() string {
	s := make([]string, len(b.changes))
	for i, c := range b.changes {
		s[i] = c.Summary
	}
	return strings.Join(s, "; ")
}

// command joins every command of the batch with &&.
func (b batch) command() shell.Script {
	var all []shell.Runnable
	for _, c := range b.cmds {
		all = append(all, c.Run...)
	}
	return shell.And(all...)
}

// finish reports whether a command of the batch must run to its end once started.
func (b batch) finish() bool {
	for _, c := range b.cmds {
		if c.Finish {
			return true
		}
	}
	return false
}

// apply runs the batch on r; sudo says whether the engine escalates steps
// that need root.
func (b batch) apply(ctx context.Context, r Runner, sudo bool) error {
	if b.write != nil {
		w := b.write
		if w.Withheld {
			return fmt.Errorf("write %s: its content is write-only and was not given to this operation: apply with the configuration that sets it", w.Path)
		}
		if w.makeDirs {
			return writeWithDirs(ctx, r, *w, sudo && w.Sudo)
		}
		return r.WriteFile(ctx, w.Path, w.Content, w.Mode, w.Owner, sudo && w.Sudo)
	}
	cmd := b.command()
	if _, err := cmd.Render(); err != nil {
		return err
	}
	_, err := r.Run(ctx, cmd, ssh.RunOptions{Sudo: sudo && b.cmds[0].Sudo, Finish: b.finish()})
	if err == nil {
		return nil
	}
	for _, c := range b.cmds {
		if c.Explain == nil {
			continue
		}
		if e := c.Explain(err); e != nil {
			return e
		}
	}
	return err
}
