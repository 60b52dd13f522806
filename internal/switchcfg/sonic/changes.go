package sonic

import (
	"fmt"

	sonicmodel "github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/sonicdb"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
)

// sonicChanges is one planned Set: the batch to send and the CONFIG_DB it leaves behind.
type sonicChanges struct {
	Batch *sonicdb.Batch
	after sonicmodel.DB
	// notes say what the operations touch beyond the resource (a shared profile).
	notes []string
}

// Lines are the readable operations, for the plan's planned_operations, followed by the
// notes on what they touch beyond the resource ("shared: ...").
func (c *sonicChanges) Lines() []string {
	if c == nil || c.Batch == nil {
		return []string{}
	}
	return append(c.Batch.Lines(), c.notes...)
}

// noteShared adds a note when the Set edits the stock WRED profile that queues outside p use.
func (c *sonicChanges) noteShared(observed sonicmodel.DB, f Facts, p switchcfg.Policy) {
	if observed[tableWRED][stockWREDProfile].Equal(c.after[tableWRED][stockWREDProfile]) {
		return
	}
	if others := f.sharedWREDQueues(p); len(others) > 0 {
		c.notes = append(c.notes, fmt.Sprintf("shared: CONFIG_DB/WRED_PROFILE/%s is also the ECN profile of %d queues this resource does not list (QUEUE %s)",
			stockWREDProfile, len(others), listSome(others)))
	}
}

// Len is the number of operations.
func (c *sonicChanges) Len() int {
	if c == nil || c.Batch == nil {
		return 0
	}
	return c.Batch.Len()
}

// Empty reports whether there is nothing to send.
func (c *sonicChanges) Empty() bool { return c == nil || c.Batch == nil || c.Batch.Len() == 0 }

func newChanges(observed sonicmodel.DB) *sonicChanges {
	return &sonicChanges{Batch: &sonicdb.Batch{}, after: observed.Clone()}
}

// converge adds the operations that bring the switch to d, skipping what already matches.
func (c *sonicChanges) converge(d desired) {
	for _, e := range d.entries {
		if cur, ok := c.after.Entry(e.table, e.key); ok && cur.Equal(e.value) {
			continue
		}
		c.Batch.Update(sonicdb.ConfigDBPath(e.table, e.key, ""), e.value)
		c.after.SetEntry(e.table, e.key, e.value)
	}
	for _, f := range d.fields {
		cur, _ := c.after.Entry(f.table, f.key)
		if v, ok := cur[f.field]; ok && v == f.value {
			continue
		}
		p := sonicdb.ConfigDBPath(f.table, f.key, f.field)
		if f.replaceOnly {
			c.Batch.ReplaceField(p, f.value)
		} else {
			c.Batch.UpdateField(p, f.value)
		}
		c.after.SetField(f.table, f.key, f.field, f.value)
	}
}

// checkRelease refuses, before anything is sent, what the switch's GCU allowlist would reject.
func (c *sonicChanges) checkRelease(observed sonicmodel.DB, f Facts) error {
	if err := c.Batch.Err(); err != nil {
		return err
	}
	if err := sonicmodel.Check(f.Release, f.HWSKU, observed, c.after); err != nil {
		return fmt.Errorf("SONiC %s on %s would reject this change: %w", f.Release, f.HWSKU, err)
	}
	return nil
}
