package switchtwin

import (
	"errors"
	"fmt"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// ref is one YANG leafref: from an entry (its key or a field) to an entry.
type ref struct {
	table, key, field string // the referring entry; field "" = its key
	toTable, toKey    string
}

func (r ref) String() string {
	from := "key"
	if r.field != "" {
		from = "field " + r.field
	}
	return fmt.Sprintf("%s|%s: %s refers to %s|%s, which does not exist", r.table, r.key, from, r.toTable, r.toKey)
}

// references lists every reference the modelled tables hold.
func references(db sonic.DB) []ref {
	var refs []ref
	portOfKey := func(table, key string) {
		port, _, _ := strings.Cut(key, "|")
		refs = append(refs, ref{table: table, key: key, toTable: "PORT", toKey: port})
	}
	fieldRef := func(table, key, field, toTable string, e sonic.Entry) {
		v, ok := e[field]
		if !ok || v == "NULL" || legacyRef.MatchString(v) {
			return
		}
		refs = append(refs, ref{table: table, key: key, field: field, toTable: toTable, toKey: v})
	}
	for key, e := range db["PORT_QOS_MAP"] {
		if key != "global" {
			portOfKey("PORT_QOS_MAP", key)
		}
		for field, table := range mapRefFields {
			fieldRef("PORT_QOS_MAP", key, field, table, e)
		}
	}
	for key, e := range db["QUEUE"] {
		portOfKey("QUEUE", key)
		fieldRef("QUEUE", key, "scheduler", "SCHEDULER", e)
		fieldRef("QUEUE", key, "wred_profile", "WRED_PROFILE", e)
	}
	for _, table := range []string{"BUFFER_PG", "BUFFER_QUEUE"} {
		for key, e := range db[table] {
			portOfKey(table, key)
			fieldRef(table, key, "profile", "BUFFER_PROFILE", e)
		}
	}
	for key, e := range db["BUFFER_PROFILE"] {
		fieldRef("BUFFER_PROFILE", key, "pool", "BUFFER_POOL", e)
	}
	for key, e := range db["CABLE_LENGTH"] {
		for port := range e {
			refs = append(refs, ref{table: "CABLE_LENGTH", key: key, field: port, toTable: "PORT", toKey: port})
		}
	}
	for key := range db["PFC_WD"] {
		if key != "GLOBAL" {
			portOfKey("PFC_WD", key)
		}
	}
	return refs
}

// dangling returns the references of db whose target is missing, as text.
func dangling(db sonic.DB) map[string]bool {
	out := map[string]bool{}
	for _, r := range references(db) {
		if _, ok := db[r.toTable][r.toKey]; !ok {
			out[r.String()] = true
		}
	}
	return out
}

// newDanglingRefs returns references dangling in after that were not
// dangling in before, sorted.
func newDanglingRefs(before, after sonic.DB) []error {
	old := dangling(before)
	var errs []error
	for _, text := range sortedKeys(dangling(after)) {
		if !old[text] {
			errs = append(errs, errors.New(text))
		}
	}
	return errs
}
