package sonic

import (
	"slices"
	"strings"
)

// Op is a JSON-patch operation as GCU sees it. SONiC maps gNMI Set
// operations onto them: delete → OpRemove, replace → OpReplace,
// update → OpAdd (which replaces a whole entry).
type Op string

// The JSON-patch operations GCU validates.
const (
	OpAdd     Op = "add"
	OpRemove  Op = "remove"
	OpReplace Op = "replace"
)

// Change is one element of the JSON patch GCU validates: one difference
// between the running and the target CONFIG_DB.
type Change struct {
	Op    Op
	Table string
	// Key is the entry key; empty for a change of a whole table.
	Key string
	// Field is the field name; empty for a change of a whole entry or table.
	Field string
	// Fields lists, for an add or replace whose value is an object, the
	// object's member names: field names of an entry, or entry keys of a
	// table. GCU validates each of them.
	Fields []string
}

// pointerEscaper escapes a JSON pointer's reference token (RFC 6901, section 3). It is built
// once: a Replacer builds its tables on first use.
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// Path returns the JSON pointer of the change, e.g.
// "/WRED_PROFILE/AZURE_LOSSLESS/green_min_threshold".
func (c Change) Path() string {
	var b strings.Builder
	for _, part := range []string{c.Table, c.Key, c.Field} {
		if part == "" {
			break
		}
		b.WriteByte('/')
		b.WriteString(pointerEscaper.Replace(part))
	}
	return b.String()
}

// String returns "op path", e.g. "replace /WRED_PROFILE/AZURE_LOSSLESS/ecn".
func (c Change) String() string { return string(c.Op) + " " + c.Path() }

// Diff returns the changes that turn before into after, the way GCU's
// jsonpatch.JsonPatch.from_diff computes them: a table or entry present on
// one side only is one add or remove of the whole object; an entry present on
// both sides differs field by field (add, remove, replace of a field). The
// result is sorted by table, key and field. jsonpatch's "move" detection
// (an identical value removed in one place and added in another) is not
// modelled.
func Diff(before, after DB) []Change {
	var out []Change
	for _, table := range unionKeys(before, after) {
		bt, inBefore := before[table]
		at, inAfter := after[table]
		switch {
		case !inAfter:
			out = append(out, Change{Op: OpRemove, Table: table})
		case !inBefore:
			out = append(out, Change{Op: OpAdd, Table: table, Fields: sortedKeys(at)})
		default:
			out = append(out, diffTable(table, bt, at)...)
		}
	}
	return out
}

func diffTable(table string, before, after Table) []Change {
	var out []Change
	for _, key := range unionKeys(before, after) {
		be, inBefore := before[key]
		ae, inAfter := after[key]
		switch {
		case !inAfter:
			out = append(out, Change{Op: OpRemove, Table: table, Key: key})
		case !inBefore:
			out = append(out, Change{Op: OpAdd, Table: table, Key: key, Fields: sortedKeys(ae)})
		default:
			for _, field := range unionKeys(be, ae) {
				bv, inB := be[field]
				av, inA := ae[field]
				switch {
				case !inA:
					out = append(out, Change{Op: OpRemove, Table: table, Key: key, Field: field})
				case !inB:
					out = append(out, Change{Op: OpAdd, Table: table, Key: key, Field: field})
				case av != bv:
					out = append(out, Change{Op: OpReplace, Table: table, Key: key, Field: field})
				}
			}
		}
	}
	return out
}

func unionKeys[M ~map[string]V, V any](a, b M) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
