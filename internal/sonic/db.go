package sonic

import "maps"

// Entry is one CONFIG_DB entry: field name to value. Every CONFIG_DB value is
// a string.
type Entry map[string]string

// Table is one CONFIG_DB table: entry key to entry. Composite keys keep
// SONiC's separator, e.g. "Ethernet0|3" in QUEUE.
type Table map[string]Entry

// DB is a CONFIG_DB image: table name to table.
type DB map[string]Table

// Clone returns a deep copy of e.
func (e Entry) Clone() Entry {
	if e == nil {
		return nil
	}
	return maps.Clone(e)
}

// Clone returns a deep copy of t.
func (t Table) Clone() Table {
	if t == nil {
		return nil
	}
	out := make(Table, len(t))
	for k, e := range t {
		out[k] = e.Clone()
	}
	return out
}

// Clone returns a deep copy of db.
func (db DB) Clone() DB {
	if db == nil {
		return nil
	}
	out := make(DB, len(db))
	for name, t := range db {
		out[name] = t.Clone()
	}
	return out
}

// Entry returns the entry table|key and whether it exists.
func (db DB) Entry(table, key string) (Entry, bool) {
	e, ok := db[table][key]
	return e, ok
}

// SetEntry stores a copy of e as table|key, replacing any existing entry.
// An empty e removes the entry: CONFIG_DB has no entries without fields.
func (db DB) SetEntry(table, key string, e Entry) {
	if len(e) == 0 {
		db.DeleteEntry(table, key)
		return
	}
	t := db[table]
	if t == nil {
		t = Table{}
		db[table] = t
	}
	t[key] = e.Clone()
}

// DeleteEntry removes table|key; a missing entry is ignored. A table left
// empty is removed too.
func (db DB) DeleteEntry(table, key string) {
	t, ok := db[table]
	if !ok {
		return
	}
	delete(t, key)
	if len(t) == 0 {
		delete(db, table)
	}
}

// SetField sets one field of table|key, creating the entry when missing.
func (db DB) SetField(table, key, field, value string) {
	t := db[table]
	if t == nil {
		t = Table{}
		db[table] = t
	}
	e := t[key]
	if e == nil {
		e = Entry{}
		t[key] = e
	}
	e[field] = value
}

// DeleteField removes one field; an entry left without fields is removed,
// like SONiC does. Missing paths are ignored.
func (db DB) DeleteField(table, key, field string) {
	e, ok := db[table][key]
	if !ok {
		return
	}
	delete(e, field)
	if len(e) == 0 {
		db.DeleteEntry(table, key)
	}
}

// SetTable stores a copy of t as the whole table, replacing what was there.
// Empty entries are dropped; an empty table removes the table.
func (db DB) SetTable(name string, t Table) {
	out := Table{}
	for k, e := range t {
		if len(e) > 0 {
			out[k] = e.Clone()
		}
	}
	if len(out) == 0 {
		delete(db, name)
		return
	}
	db[name] = out
}

// Equal reports whether two entries hold the same fields and values.
func (e Entry) Equal(o Entry) bool { return maps.Equal(e, o) }
