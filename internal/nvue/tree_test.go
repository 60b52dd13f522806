package nvue

import (
	"encoding/json"
	"testing"
)

// SplitPatch keeps every removal and every set, each in its own patch, removals first.
func TestSplitPatch(t *testing.T) {
	patch := Tree{"qos": Tree{
		"pfc":     Tree{"P": Tree{"switch-priority": Tree{"3": nil, "4": Tree{}}, "cable-length": 5.0}},
		"mapping": Tree{"OLD": nil},
	}}
	parts := SplitPatch(patch)
	got := make([]string, len(parts))
	for i, p := range parts {
		b, _ := json.Marshal(p)
		got[i] = string(b)
	}
	want := []string{
		`{"qos":{"mapping":{"OLD":null},"pfc":{"P":{"switch-priority":{"3":null}}}}}`,
		`{"qos":{"pfc":{"P":{"cable-length":5,"switch-priority":{"4":{}}}}}}`,
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("SplitPatch = %q, want %q", got, want)
	}
	if n := len(SplitPatch(Tree{"a": Tree{"b": 1.0}})); n != 1 {
		t.Errorf("a patch of sets alone split into %d", n)
	}
}
