package switchtwin

import "github.com/clusterbid/terraform-provider-roce/internal/sonic"

// Table returns a copy of one CONFIG_DB table, nil when it has no entries.
func (t *Twin) Table(name string) sonic.Table {
	t.dbMu.Lock()
	defer t.dbMu.Unlock()
	return t.db[name].Clone()
}

// Entry returns a copy of table|key and whether it exists.
func (t *Twin) Entry(table, key string) (sonic.Entry, bool) {
	t.dbMu.Lock()
	defer t.dbMu.Unlock()
	e, ok := t.db.Entry(table, key)
	return e.Clone(), ok
}

// Snapshot returns a copy of the whole CONFIG_DB.
func (t *Twin) Snapshot() sonic.DB {
	t.dbMu.Lock()
	defer t.dbMu.Unlock()
	return t.db.Clone()
}

// SetEntry writes table|key out of band, without validation, as an
// operator's `config` command or a second automation would: use it to
// create drift. The buffer manager reacts as to any CONFIG_DB change. An
// empty entry deletes.
func (t *Twin) SetEntry(table, key string, e sonic.Entry) {
	t.outOfBand(func(db sonic.DB) { db.SetEntry(table, key, e) })
}

// DeleteEntry removes table|key out of band; a missing entry is ignored.
func (t *Twin) DeleteEntry(table, key string) {
	t.outOfBand(func(db sonic.DB) { db.DeleteEntry(table, key) })
}

func (t *Twin) outOfBand(edit func(sonic.DB)) {
	t.dbMu.Lock()
	defer t.dbMu.Unlock()
	before := t.db
	after := before.Clone()
	edit(after)
	t.bufs.react(before, after)
	t.counters.syncWatchdog(after)
	t.db = after
}
