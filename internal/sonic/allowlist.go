package sonic

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrNotAllowed marks a change that GCU's field/operation validators reject
// on the given release and ASIC.
var ErrNotAllowed = errors.New("not allowed by sonic gcu")

// Allowed reports whether GCU on release rel, on a switch of the given HWSKU,
// accepts one change (one element of the difference Diff computes). It
// returns nil when the table has no GCU validator on that release (only YANG
// applies) or when the change is allowlisted, and otherwise an error wrapping
// ErrNotAllowed that names the change and the rule.
func Allowed(rel Release, hwsku string, c Change) error {
	if c.Op == OpRemove && slices.Contains(illegalRemovals, c.Path()) {
		return notAllowed(rel, hwsku, c, "gcu never allows removing "+c.Path())
	}
	rule, ok := rulesFor(rel)[c.Table]
	if !ok {
		return nil
	}
	asic := ASIC(hwsku)
	if asic == ASICUnknown {
		return notAllowed(rel, hwsku, c, fmt.Sprintf("hwsku %q is not in gcu's asic lists, so %s rejects every %s edit", hwsku, rule.validator, c.Table))
	}
	if len(rule.objectOps) > 0 && c.Key != "" && c.Field == "" {
		if slices.Contains(rule.objectOps, c.Op) {
			return nil
		}
		return notAllowed(rel, hwsku, c, fmt.Sprintf("%s of a whole %s entry is not allowed", c.Op, c.Table))
	}
	for _, field := range patchFields(c, rule.match) {
		sc, found := findScenario(rule, field)
		switch {
		case !found:
			return notAllowed(rel, hwsku, c, fmt.Sprintf("%q is not allowlisted; %s", field, describe(rule)))
		case !slices.Contains(sc.asics, asic):
			return notAllowed(rel, hwsku, c, fmt.Sprintf("%q (%s) is not enabled for %s", field, sc.name, asic))
		case !slices.Contains(sc.ops, c.Op):
			return notAllowed(rel, hwsku, c, fmt.Sprintf("%s of %q is not allowed; %s", c.Op, field, describe(rule)))
		}
	}
	return nil
}

// Check computes the difference between before and after the way GCU does
// and returns every change that release rel rejects on the given HWSKU,
// joined; nil when GCU would accept the patch.
func Check(rel Release, hwsku string, before, after DB) error {
	var errs []error
	for _, c := range Diff(before, after) {
		if err := Allowed(rel, hwsku, c); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// rulesFor returns the table rules in force on rel.
func rulesFor(rel Release) map[string]tableRule {
	for _, a := range allowlists {
		if rel.AtLeast(a.from) {
			return a.tables
		}
	}
	return allowlists[len(allowlists)-1].tables
}

// patchFields returns the strings GCU compares with the allowlist for one
// change (field_operation_validators.py _get_fields_in_patch): the path
// after the table, cleaned for the match mode and lowercased, with the member
// names of an object value appended as they are (not lowercased).
func patchFields(c Change, mode matchMode) []string {
	var parts []string
	for _, p := range []string{c.Key, c.Field} {
		if p == "" {
			break
		}
		if mode == matchCleanedExact && strings.ContainsAny(p, "0123456789") {
			continue
		}
		parts = append(parts, p)
	}
	cleaned := strings.ToLower(strings.Join(parts, "/"))
	if c.Field != "" || c.Op == OpRemove || len(c.Fields) == 0 {
		return []string{cleaned}
	}
	out := make([]string, 0, len(c.Fields))
	for _, member := range c.Fields {
		if cleaned == "" {
			out = append(out, member)
		} else {
			out = append(out, cleaned+"/"+member)
		}
	}
	return out
}

func findScenario(rule tableRule, field string) (scenario, bool) {
	for _, sc := range rule.scenarios {
		for _, allowed := range sc.fields {
			if fieldMatches(rule.match, field, allowed) {
				return sc, true
			}
		}
	}
	return scenario{}, false
}

func fieldMatches(mode matchMode, field, allowed string) bool {
	if mode == matchLastElement {
		return field[strings.LastIndex(field, "/")+1:] == allowed
	}
	return field == allowed
}

// describe lists what a rule allows, for error messages.
func describe(rule tableRule) string {
	var allowed []string
	for _, sc := range rule.scenarios {
		for _, f := range sc.fields {
			if f == "" {
				f = "<whole entry>"
			}
			ops := make([]string, len(sc.ops))
			for i, op := range sc.ops {
				ops[i] = string(op)
			}
			allowed = append(allowed, strings.Join(ops, "/")+" of "+f)
		}
	}
	if len(rule.objectOps) > 0 {
		allowed = append(allowed, "add/remove/replace of a whole entry")
	}
	if len(allowed) == 0 {
		return "gcu allows no edits of this table"
	}
	return "gcu allows only " + strings.Join(allowed, ", ")
}

func notAllowed(rel Release, hwsku string, c Change, reason string) error {
	return fmt.Errorf("%s on sonic %s (%s): %s: %w", c, rel, hwsku, reason, ErrNotAllowed)
}
