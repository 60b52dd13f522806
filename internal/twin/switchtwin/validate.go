package switchtwin

import (
	"errors"
	"fmt"
	"slices"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// fieldError names the table, key and field a value failed on.
func fieldError(table, key, field, value, problem string) error {
	return fmt.Errorf("%s|%s: field %s %q: %s", table, key, field, value, problem)
}

// entryError names the table and key of an entry-level problem.
func entryError(table, key, problem string) error {
	return fmt.Errorf("%s|%s: %s", table, key, problem)
}

// validateChanges plays YANG's part of a GCU apply: every entry the patch
// added or changed must be valid, ports can be neither created nor
// removed, and the patch must leave no reference dangling that was not
// dangling before. Entries the patch did not touch are not re-checked, so
// out-of-band drift does not block unrelated Sets.
func validateChanges(before, after sonic.DB) error {
	var errs []error
	touched := map[[2]string]bool{}
	for _, c := range sonic.Diff(before, after) {
		if c.Table == "PORT" {
			if err := checkPortChange(c, before); err != nil {
				errs = append(errs, err)
			}
		}
		switch {
		case c.Key != "":
			touched[[2]string{c.Table, c.Key}] = true
		case c.Op != sonic.OpRemove:
			for key := range after[c.Table] {
				touched[[2]string{c.Table, key}] = true
			}
		}
	}
	keys := make([][2]string, 0, len(touched))
	for k := range touched {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int {
		if c := compareStrings(a[0], b[0]); c != 0 {
			return c
		}
		return compareStrings(a[1], b[1])
	})
	for _, k := range keys {
		entry, ok := after[k[0]][k[1]]
		if !ok {
			continue
		}
		if v := validators[k[0]]; v != nil {
			errs = append(errs, v(k[1], entry)...)
		}
	}
	errs = append(errs, newDanglingRefs(before, after)...)
	return errors.Join(errs...)
}

// checkPortChange refuses creating or removing PORT entries: the twin
// models a fixed front panel (no breakout).
func checkPortChange(c sonic.Change, before sonic.DB) error {
	switch {
	case c.Key == "" && c.Op == sonic.OpRemove:
		return errors.New("PORT: the port table cannot be removed")
	case c.Key == "" && c.Op == sonic.OpAdd:
		return errors.New("PORT: the port table cannot be created")
	case c.Field == "" && c.Op == sonic.OpRemove:
		return entryError("PORT", c.Key, "ports cannot be removed (breakout is not modelled)")
	case c.Field == "" && c.Op == sonic.OpAdd:
		if _, existed := before["PORT"][c.Key]; !existed {
			return entryError("PORT", c.Key, "no such port on this switch")
		}
	}
	return nil
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// validateDB checks every entry and reference of db; the seed must pass it.
func validateDB(db sonic.DB) error {
	var errs []error
	for _, table := range sortedKeys(db) {
		v := validators[table]
		if v == nil {
			continue
		}
		for _, key := range sortedKeys(db[table]) {
			errs = append(errs, v(key, db[table][key])...)
		}
	}
	errs = append(errs, newDanglingRefs(sonic.DB{}, db)...)
	return errors.Join(errs...)
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
