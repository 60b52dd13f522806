package sonicdb

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	gpb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// opKind is a Set operation, in the order SONiC applies them.
type opKind int

const (
	opDelete opKind = iota
	opReplace
	opUpdate
)

func (k opKind) String() string {
	return [...]string{"delete", "replace", "update"}[k]
}

// batchOp is one operation of a Batch.
type batchOp struct {
	kind  opKind
	path  Path
	entry map[string]string // value of an entry-level replace or update
	value string            // value of a field-level replace or update
}

// Batch is the CONFIG_DB changes of one Set, built first and sent last. The
// zero value is an empty batch. Values are copied when added. Mistakes (a
// field path given to Update, an empty entry) are collected and reported by
// Err; Client.Set refuses a batch with errors before sending anything.
//
// On SONiC an update is a JSON-patch "add": an entry-level Update REPLACES
// THE WHOLE ENTRY, and fields left out of value disappear from the switch.
// Use UpdateField for one field, or Update only for entries whose every
// field the caller owns. Replace fails on the switch when the path does not
// exist yet; Delete of a missing path is silently ignored.
type Batch struct {
	ops  []batchOp
	errs []error
}

// Update sets the entry at p (a CONFIG_DB entry path) to exactly value,
// creating it when missing and dropping fields not in value.
func (b *Batch) Update(p Path, value map[string]string) *Batch {
	return b.addEntry(opUpdate, p, value)
}

// Replace sets the existing entry at p to exactly value; the switch rejects
// it when the entry does not exist.
func (b *Batch) Replace(p Path, value map[string]string) *Batch {
	return b.addEntry(opReplace, p, value)
}

// UpdateField sets one field (p is a CONFIG_DB field path), creating the
// entry when missing and leaving its other fields alone.
func (b *Batch) UpdateField(p Path, value string) *Batch {
	return b.addField(opUpdate, p, value)
}

// ReplaceField sets one existing field; the switch rejects it when the
// field does not exist.
func (b *Batch) ReplaceField(p Path, value string) *Batch {
	return b.addField(opReplace, p, value)
}

// Delete removes a table, an entry or a field.
func (b *Batch) Delete(p Path) *Batch {
	if err := p.validate(); err != nil {
		b.errs = append(b.errs, fmt.Errorf("delete: %w", err))
		return b
	}
	b.ops = append(b.ops, batchOp{kind: opDelete, path: p})
	return b
}

func (b *Batch) addEntry(kind opKind, p Path, value map[string]string) *Batch {
	switch err := p.validate(); {
	case err != nil:
		b.errs = append(b.errs, fmt.Errorf("%s: %w", kind, err))
	case p.Key == "" || p.Field != "":
		b.errs = append(b.errs, fmt.Errorf("%s %s: want an entry path (TABLE/KEY); use %sField for a field", kind, p, strings.ToUpper(kind.String()[:1])+kind.String()[1:]))
	case len(value) == 0:
		b.errs = append(b.errs, fmt.Errorf("%s %s: an entry needs at least one field", kind, p))
	default:
		entry := make(map[string]string, len(value))
		for f, v := range value {
			entry[f] = v
		}
		b.ops = append(b.ops, batchOp{kind: kind, path: p, entry: entry})
	}
	return b
}

func (b *Batch) addField(kind opKind, p Path, value string) *Batch {
	switch err := p.validate(); {
	case err != nil:
		b.errs = append(b.errs, fmt.Errorf("%s: %w", kind, err))
	case p.Field == "":
		b.errs = append(b.errs, fmt.Errorf("%s %s: want a field path (TABLE/KEY/field)", kind, p))
	default:
		b.ops = append(b.ops, batchOp{kind: kind, path: p, value: value})
	}
	return b
}

// Len returns the number of operations.
func (b *Batch) Len() int { return len(b.ops) }

// Err returns the mistakes made while building the batch, joined, or nil.
func (b *Batch) Err() error {
	if len(b.errs) == 0 {
		return nil
	}
	return fmt.Errorf("gnmi batch: %w", errors.Join(b.errs...))
}

// sorted returns the operations in SONiC's order (deletes, replaces,
// updates), each kind ordered by path with numbers compared as numbers, so
// a batch built in any order gives the same request. Operations on the
// same path keep the order they were added in.
func (b *Batch) sorted() []batchOp {
	ops := slices.Clone(b.ops)
	slices.SortStableFunc(ops, func(x, y batchOp) int {
		if x.kind != y.kind {
			return cmp.Compare(x.kind, y.kind)
		}
		return comparePaths(x.path, y.path)
	})
	return ops
}

// comparePaths orders by table, key and field, a table before its entries and an entry
// before its fields.
func comparePaths(a, b Path) int {
	for _, e := range [...][2]string{{a.Table, b.Table}, {a.Key, b.Key}, {a.Field, b.Field}} {
		if c := sonic.NaturalCompare(e[0], e[1]); c != 0 {
			return c
		}
	}
	return 0
}

// Request returns the batch as one gNMI SetRequest: paths with origin
// sonic-db, values JSON_IETF, every CONFIG_DB value a JSON string.
func (b *Batch) Request() *gpb.SetRequest {
	req := &gpb.SetRequest{}
	for _, o := range b.sorted() {
		if o.kind == opDelete {
			req.Delete = append(req.Delete, o.path.GNMI().Proto())
			continue
		}
		var raw []byte
		if o.entry != nil {
			raw, _ = json.Marshal(o.entry) // a map[string]string always encodes; keys sorted
		} else {
			raw, _ = json.Marshal(o.value)
		}
		u := &gpb.Update{Path: o.path.GNMI().Proto(), Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: raw}}}
		if o.kind == opReplace {
			req.Replace = append(req.Replace, u)
		} else {
			req.Update = append(req.Update, u)
		}
	}
	return req
}

// Lines returns the operations readably, in request order, for a Terraform plan:
//
//	delete CONFIG_DB/QUEUE/Ethernet0|4
//	replace CONFIG_DB/WRED_PROFILE/AZURE_LOSSLESS/green_min_threshold = 102400
//	update CONFIG_DB/WRED_PROFILE/ROCE {ecn=ecn_all, green_max_threshold=122880}
//	update CONFIG_DB/PORT_QOS_MAP/{Ethernet0,Ethernet4}/pfc_enable = 3
//
// Operations that differ only in their key (the same change on many ports) share one line,
// their keys in braces in request order, so that a 32-port switch plans a dozen lines rather
// than hundreds: the lines are what the plan shows and what the state keeps. The lines still
// name every operation, so two batches with equal lines send equal requests. Keys that hold
// a brace or a comma (none of the tables a policy writes has one) and batches that write a
// path twice get a line each. Fields are sorted with numbers compared as numbers; values that
// are empty or contain spaces, commas, braces, quotes or "=" are quoted.
func (b *Batch) Lines() []string {
	ops := b.sorted()
	type line struct {
		head, tail string
		keys       []string
	}
	var lines []*line
	groups := map[[2]string]*line{}
	groupable := !b.writesPathTwice()
	for _, o := range ops {
		head, key, tail := o.lineParts()
		share := groupable && key != "" && !strings.ContainsAny(key, "{},")
		l := groups[[2]string{head, tail}]
		if l == nil || !share {
			l = &line{head: head, tail: tail}
			lines = append(lines, l)
			if share {
				groups[[2]string{head, tail}] = l
			}
		}
		if key != "" {
			l.keys = append(l.keys, key)
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		switch len(l.keys) {
		case 0:
			out[i] = l.head + l.tail
		case 1:
			out[i] = l.head + "/" + l.keys[0] + l.tail
		default:
			out[i] = l.head + "/{" + strings.Join(l.keys, ",") + "}" + l.tail
		}
	}
	return out
}

// lineParts splits the readable line of o around its key: "update CONFIG_DB/QUEUE",
// "Ethernet0|3" and " {scheduler=roce}"; a table operation has no key.
func (o batchOp) lineParts() (head, key, tail string) {
	esc := func(e string) string { return gnmi.Path{Elems: []string{e}}.String() }
	head = o.kind.String() + " " + esc(o.path.DB) + "/" + esc(o.path.Table)
	if o.path.Key != "" || o.path.Field != "" {
		key = esc(o.path.Key)
	}
	if o.path.Field != "" {
		tail = "/" + esc(o.path.Field)
	}
	switch {
	case o.entry != nil:
		fields := make([]string, 0, len(o.entry))
		for f := range o.entry {
			fields = append(fields, f)
		}
		slices.SortFunc(fields, sonic.NaturalCompare)
		parts := make([]string, len(fields))
		for i, f := range fields {
			parts[i] = f + "=" + quoteIfNeeded(o.entry[f])
		}
		tail += " {" + strings.Join(parts, ", ") + "}"
	case o.kind != opDelete:
		tail += " = " + quoteIfNeeded(o.value)
	}
	return head, key, tail
}

// writesPathTwice reports whether two operations of b write the same path.
func (b *Batch) writesPathTwice() bool {
	seen := make(map[Path]bool, len(b.ops))
	for _, o := range b.ops {
		if seen[o.path] {
			return true
		}
		seen[o.path] = true
	}
	return false
}

func quoteIfNeeded(v string) string {
	if v == "" || strings.ContainsAny(v, " \t,{}=\"\\") || strconv.Quote(v) != `"`+v+`"` {
		return strconv.Quote(v)
	}
	return v
}

// tables returns the distinct tables the batch touches, sorted.
func (b *Batch) tables() []string {
	var out []string
	for _, o := range b.ops {
		if !slices.Contains(out, o.path.Table) {
			out = append(out, o.path.Table)
		}
	}
	slices.Sort(out)
	return out
}
