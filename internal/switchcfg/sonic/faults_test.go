package sonic

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// TestApplyAcrossConnectionReset resets the connection in the middle of the SetRequest: before
// the switch applied it, Apply fails naming the switch and nothing is half-applied; after, Apply
// succeeds with a warning. Either way the next apply or plan converges.
func TestApplyAcrossConnectionReset(t *testing.T) {
	p := testPolicy()
	t.Run("before apply", func(t *testing.T) {
		tw, b := startTwin(t, switchtwin.Options{Release: "202511"})
		before := tw.Snapshot()
		c, err := observe(t, b).plan(p)
		if err != nil {
			t.Fatal(err)
		}
		tw.ResetNextSet(false)
		warning, err := b.Apply(context.Background(), c)
		if err == nil || !strings.Contains(err.Error(), tw.Addr()) || warning != "" {
			t.Fatalf("apply = warning %q, err %v; want an error naming %s", warning, err, tw.Addr())
		}
		if diff := cmp.Diff(before, tw.Snapshot()); diff != "" {
			t.Fatalf("the reset Set left changes behind (-before +after):\n%s", diff)
		}
		again, err := observe(t, b).plan(p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.Lines(), again.Lines()); diff != "" {
			t.Errorf("plan after the reset differs from the first (-first +after):\n%s", diff)
		}
		apply(t, b, again)
		wantEmptyPlan(t, b, p)
	})
	t.Run("after apply", func(t *testing.T) {
		tw, b := startTwin(t, switchtwin.Options{Release: "202511"})
		c, err := observe(t, b).plan(p)
		if err != nil {
			t.Fatal(err)
		}
		tw.ResetNextSet(true)
		warning, err := b.Apply(context.Background(), c)
		if err != nil || !strings.Contains(warning, tw.Addr()) {
			t.Fatalf("apply = warning %q, err %v; want success with a warning naming %s", warning, err, tw.Addr())
		}
		if n := tw.Stats().RPCs["Set"]; n != 1 {
			t.Errorf("apply sent %d SetRequests, want 1", n)
		}
		wantEmptyPlan(t, b, p)
	})
}

func wantEmptyPlan(t *testing.T, b *Backend, p switchcfg.Policy) {
	t.Helper()
	c, err := observe(t, b).plan(p)
	if err != nil {
		t.Fatalf("plan after apply: %v", err)
	}
	if !c.Empty() {
		t.Fatalf("plan after apply is not empty: %v", c.Lines())
	}
}
