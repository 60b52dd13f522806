package switchcfg

import (
	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/sonicdb"
)

// Snapshot holds, for every shared field a policy sets, the value it had before the provider
// first wrote it ("TABLE|KEY|field" → value; absent = the field did not exist). Delete puts
// these values back, so destroying the resource returns the ports to the maps, schedulers
// and thresholds they had.
type Snapshot map[string]string

// record stores the current values of d's shared fields.
func (s Snapshot) record(d desired, observed sonic.DB) {
	for _, f := range d.fields {
		if e, ok := observed.Entry(f.table, f.key); ok {
			if v, ok := e[f.field]; ok {
				s[f.key3()] = v
			}
		}
	}
}

// stockFields are SONiC's template values (qos_config.j2) for the shared fields, used to
// restore a switch whose resource was imported and so has no snapshot.
var stockFields = map[string]string{
	"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE", "tc_to_pg_map": "AZURE",
	"pfc_to_queue_map": "AZURE", "pfc_to_pg_map": "AZURE", "pfc_enable": "3,4",
}

// stockSnapshot is the restore point of an imported resource: SONiC's stock maps where the
// switch still has them; other fields are removed.
func stockSnapshot(d desired, observed sonic.DB) Snapshot {
	s := Snapshot{}
	for _, f := range d.fields {
		v, ok := stockFields[f.field]
		if !ok || f.table != tablePortQoS {
			continue
		}
		if f.field != "pfc_enable" {
			if _, exists := observed.Entry(tableDSCPToTC, v); !exists {
				continue
			}
		}
		s[f.key3()] = v
	}
	for _, f := range d.fields {
		if f.replaceOnly { // WRED thresholds cannot be removed: keep what is there
			if e, ok := observed.Entry(f.table, f.key); ok {
				s[f.key3()] = e[f.field]
			}
		}
	}
	return s
}

// restore adds the operations that undo d: owned entries deleted, shared fields restored
// from the snapshot or removed.
func (c *sonicChanges) restore(d desired, snap Snapshot) {
	for _, f := range d.fields {
		p := sonicdb.ConfigDBPath(f.table, f.key, f.field)
		prior, had := snap[f.key3()]
		cur, _ := c.after.Entry(f.table, f.key)
		now, exists := cur[f.field]
		switch {
		case had && exists && now == prior:
		case had && f.replaceOnly:
			c.Batch.ReplaceField(p, prior)
			c.after.SetField(f.table, f.key, f.field, prior)
		case had:
			c.Batch.UpdateField(p, prior)
			c.after.SetField(f.table, f.key, f.field, prior)
		case exists && !f.replaceOnly:
			c.Batch.Delete(p)
			c.after.DeleteField(f.table, f.key, f.field)
		}
	}
	for _, e := range d.entries {
		if _, ok := c.after.Entry(e.table, e.key); ok {
			c.Batch.Delete(sonicdb.ConfigDBPath(e.table, e.key, ""))
			c.after.DeleteEntry(e.table, e.key)
		}
	}
}

// without returns the parts of d that next does not also own: what an update must restore.
func (d desired) without(next desired) desired {
	fields := map[string]bool{}
	for _, f := range next.fields {
		fields[f.key3()] = true
	}
	entries := map[string]bool{}
	for _, e := range next.entries {
		entries[e.table+"|"+e.key] = true
	}
	var left desired
	for _, f := range d.fields {
		if !fields[f.key3()] {
			left.fields = append(left.fields, f)
		}
	}
	for _, e := range d.entries {
		if !entries[e.table+"|"+e.key] {
			left.entries = append(left.entries, e)
		}
	}
	return left
}

// key3 names a field as snapshots do: TABLE|KEY|field.
func (f ownedField) key3() string { return f.table + "|" + f.key + "|" + f.field }
