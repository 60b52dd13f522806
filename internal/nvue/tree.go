package nvue

import (
	"encoding/json"
	"strings"
)

// Tree is NVUE configuration as JSON decodes it: objects are map[string]any, keys of
// collections ("3", "swp1") are object keys, values are strings and numbers.
type Tree = map[string]any

// DecodeTree decodes a JSON object, numbers as float64.
func DecodeTree(raw []byte) (Tree, error) {
	t := Tree{}
	if len(raw) == 0 {
		return t, nil
	}
	err := json.Unmarshal(raw, &t)
	return t, err
}

// Path splits "qos/pfc/ROCE" into its keys.
func Path(p string) []string { return strings.Split(strings.Trim(p, "/"), "/") }

// Lookup returns the value at keys and whether it exists.
func Lookup(t Tree, keys ...string) (any, bool) {
	var cur any = t
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// Object returns the object at keys, nil when there is none.
func Object(t Tree, keys ...string) Tree {
	v, _ := Lookup(t, keys...)
	m, _ := v.(map[string]any)
	return m
}

// Merge applies patch to t as NVUE's PATCH does (a JSON merge patch: objects merge, a null
// removes the key, anything else replaces), creating objects on the way to what it sets; a
// null below an object that is not there changes nothing.
func Merge(t Tree, patch Tree) {
	for k, v := range patch {
		switch pv := v.(type) {
		case nil:
			delete(t, k)
		case map[string]any:
			sub, ok := t[k].(map[string]any)
			if !ok && !setsSomething(pv) {
				continue // unsetting below what is not there changes nothing
			}
			if !ok {
				sub = Tree{}
				t[k] = sub
			}
			Merge(sub, pv)
		default:
			t[k] = v
		}
	}
}

// setsSomething reports whether patch sets a value or a member, not only nulls.
func setsSomething(patch Tree) bool {
	if len(patch) == 0 {
		return true // an empty object is a member
	}
	for _, v := range patch {
		switch pv := v.(type) {
		case nil:
		case map[string]any:
			if setsSomething(pv) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// Clone deep-copies t.
func Clone(t Tree) Tree {
	out := make(Tree, len(t))
	for k, v := range t {
		if m, ok := v.(map[string]any); ok {
			out[k] = Clone(m)
		} else {
			out[k] = v
		}
	}
	return out
}

// Set puts v at keys of t, creating objects on the way.
func Set(t Tree, v any, keys ...string) {
	cur := t
	for _, k := range keys[:len(keys)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = Tree{}
			cur[k] = next
		}
		cur = next
	}
	cur[keys[len(keys)-1]] = v
}

// SplitPatch splits a merge patch into the PATCHes NVUE takes: one of its removals (nulls),
// then one of the rest, each left out when empty. A PATCH "can have either a set or unset
// json object for the same resource, but not both", their order being "not deterministic
// and not supported" (5.14 NVUE API guide, Supported HTTP Methods); in one revision, the
// removals staged first leave the sets the last word.
func SplitPatch(patch Tree) []Tree {
	var out []Tree
	for _, nulls := range []bool{true, false} {
		if part := patchPart(patch, nulls); len(part) > 0 {
			out = append(out, part)
		}
	}
	return out
}

// patchPart is the part of patch made of its nulls (nulls) or of everything else.
func patchPart(patch Tree, nulls bool) Tree {
	out := Tree{}
	for k, v := range patch {
		switch pv := v.(type) {
		case nil:
			if nulls {
				out[k] = nil
			}
		case map[string]any:
			if len(pv) == 0 { // a member: a set
				if !nulls {
					out[k] = Tree{}
				}
				continue
			}
			if sub := patchPart(pv, nulls); len(sub) > 0 {
				out[k] = sub
			}
		default:
			if !nulls {
				out[k] = v
			}
		}
	}
	return out
}
