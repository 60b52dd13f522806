package sonic

import (
	"slices"
	"strings"

	sonicmodel "github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/sonicdb"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
)

// record stores the current values of d's shared fields. A value that names an object d owns
// (a port already on the policy's maps) was written by an earlier apply of this policy that
// ended before it could record anything, an interrupted create: what the field held before
// is lost, so the restore point is SONiC's stock value, as after an import, and never the
// provider's own object, whose deletion the switch would refuse while ports use it.
//
// For a new resource (first) on a switch that already holds d's own entries, a field that
// holds d's value and has a stock value (pfc_enable, pfcwd_sw_enable) gets the stock value
// too; other such fields (cable lengths, watchdog times, the stock WRED profile's thresholds)
// keep what the switch holds, since nothing better is known.
func record(s switchcfg.Snapshot, d desired, observed sonicmodel.DB, first bool) {
	owned := map[string]bool{}
	leftover := false
	for _, e := range d.entries {
		owned[e.key] = true
		_, exists := observed.Entry(e.table, e.key)
		leftover = leftover || exists && first
	}
	var stock switchcfg.Snapshot
	for _, f := range d.fields {
		e, ok := observed.Entry(f.table, f.key)
		if !ok {
			continue
		}
		k := f.key3()
		v, ok := e[f.field]
		if _, recorded := s[k]; !ok || recorded {
			continue // a value recorded by an earlier attempt is the one from before the provider
		}
		if (leftover || owned[v]) && v == f.value {
			if stock == nil {
				stock = stockSnapshot(d, observed)
			}
			if sv, ok := stock[k]; ok {
				s[k] = sv
				continue
			}
			if owned[v] {
				continue // never the provider's own object: the removal deletes the field
			}
		}
		s[k] = v
	}
}

// stockFields are SONiC's template values (sonic-buildimage
// files/build_templates/qos_config.j2) for the shared PORT_QOS_MAP fields, used to restore a
// switch whose resource was imported and so has no snapshot.
var stockFields = map[string]string{
	"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE", "tc_to_pg_map": "AZURE",
	"pfc_to_queue_map": "AZURE", "pfc_to_pg_map": "AZURE", "pfc_enable": "3,4", "pfcwd_sw_enable": "3,4",
}

// stockQueueField is qos_config.j2's QUEUE entry field for queue q: the lossless queues 3 and
// 4 take scheduler.1 and the AZURE_LOSSLESS WRED profile, queues 0-2, 5 and 6 scheduler.0.
func stockQueueField(q, field string) (value, table string, ok bool) {
	lossless := q == "3" || q == "4"
	switch {
	case field == "scheduler" && lossless:
		return "scheduler.1", tableScheduler, true
	case field == "scheduler" && slices.Contains([]string{"0", "1", "2", "5", "6"}, q):
		return "scheduler.0", tableScheduler, true
	case field == "wred_profile" && lossless:
		return stockWREDProfile, tableWRED, true
	}
	return "", "", false
}

// stockSnapshot is the restore point of an imported resource: SONiC's stock maps, schedulers
// and WRED profile where the switch still has them; other fields are removed.
func stockSnapshot(d desired, observed sonicmodel.DB) switchcfg.Snapshot {
	s := switchcfg.Snapshot{}
	for _, f := range d.fields {
		if f.table == tableQueue {
			_, q, _ := strings.Cut(f.key, "|")
			if v, table, ok := stockQueueField(q, f.field); ok {
				if _, exists := observed.Entry(table, v); exists {
					s[f.key3()] = v
				}
			}
			continue
		}
		v, ok := stockFields[f.field]
		if !ok || f.table != tablePortQoS {
			continue
		}
		if f.field != "pfc_enable" && f.field != "pfcwd_sw_enable" {
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
func (c *sonicChanges) restore(d desired, snap switchcfg.Snapshot) {
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
