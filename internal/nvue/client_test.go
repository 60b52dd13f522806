package nvue_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/nvuetwin"
)

func startTwin(t *testing.T, release string) (*nvuetwin.Twin, *nvue.Client) {
	t.Helper()
	return startTwinWith(t, nvuetwin.Options{Release: release})
}

// startTwinWith starts a twin with opts, its ports and login the tests' own.
func startTwinWith(t *testing.T, opts nvuetwin.Options) (*nvuetwin.Twin, *nvue.Client) {
	t.Helper()
	opts.Ports, opts.Username, opts.Password = 4, "cumulus", "Passw0rd!"
	tw, ca, err := nvuetwin.StartWithCA(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tw.Stop)
	c, err := nvue.Dial(nvue.Config{Address: tw.Addr(), Username: "cumulus", Password: "Passw0rd!", CAFile: ca, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return tw, c
}

// pfcChange is a PFC profile as NVUE takes it: with its priority, beside a lossless pool
// (the 5.3 spec's schema-qos-pfc-qos-pfc-constraints and schema-qos-pfc-pfc-constraints).
func pfcChange(name string, cable float64) nvue.Tree {
	return nvue.Tree{"qos": nvue.Tree{
		"pfc":          nvue.Tree{name: nvue.Tree{"cable-length": cable, "switch-priority": nvue.Tree{"3": nvue.Tree{}}}},
		"traffic-pool": nvue.Tree{"default-lossless": nvue.Tree{"memory-percent": 50.0}, "default-lossy": nvue.Tree{"memory-percent": 50.0}},
	}}
}

func TestTransactionAppliesOneRevision(t *testing.T) {
	for _, rel := range []string{"5.9", "5.14"} {
		t.Run(rel, func(t *testing.T) {
			tw, c := startTwin(t, rel)
			ctx := context.Background()
			patch := pfcChange("ROCE", 5)
			if _, err := c.Transaction(ctx, patch); err != nil {
				t.Fatal(err)
			}
			raw, err := c.Get(ctx, "qos/pfc/ROCE", nvue.RevApplied)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(raw), `"cable-length":5`) {
				t.Errorf("applied qos/pfc/ROCE = %s", raw)
			}
			if tw.Applies() != 1 {
				t.Errorf("%d applies, want 1", tw.Applies())
			}
			// The same change again changes nothing and is a success.
			if _, err := c.Transaction(ctx, patch); err != nil {
				t.Fatalf("no-op apply: %v", err)
			}
		})
	}
}

func TestTransactionFailureLeavesNothing(t *testing.T) {
	tw, c := startTwin(t, "5.12")
	before := tw.Applied()
	ctx := context.Background()
	// A valid change and an invalid one in the same transaction: neither is applied.
	patch := nvue.Tree{"qos": nvue.Tree{
		"pfc":                nvue.Tree{"ROCE": nvue.Tree{"cable-length": 5}},
		"congestion-control": nvue.Tree{"ROCE": nvue.Tree{"traffic-class": nvue.Tree{"3": nvue.Tree{"min-threshold": 200000, "max-threshold": 100000, "ecn": "enable"}}}},
	}}
	rev, err := c.Transaction(ctx, patch)
	var ae *nvue.ApplyError
	if !errors.As(err, &ae) || ae.State != "invalid" || !strings.Contains(err.Error(), "min-threshold 200000 is above max-threshold 100000") {
		t.Fatalf("err = %v", err)
	}
	if _, ok := nvue.Lookup(tw.Applied(), "qos", "pfc", "ROCE"); ok {
		t.Error("part of an invalid revision was applied")
	}
	if !nvue.Settled(err) {
		t.Error("Settled = false for a revision NVUE refused as invalid")
	}
	if _, still := tw.Revisions()[rev]; still {
		t.Errorf("the failed revision %s is still staged", rev)
	}
	if len(tw.Applied()) != len(before) {
		t.Error("the applied configuration changed")
	}
}

func TestWrongPasswordIsExplained(t *testing.T) {
	_, c := startTwin(t, "5.12")
	bad, err := nvue.Dial(nvue.Config{Address: c.Address(), Username: "cumulus", Password: "wrong", Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.Get(context.Background(), "qos", nvue.RevApplied)
	var he *nvue.HTTPError
	if !errors.As(err, &he) || he.Status != 401 || !strings.Contains(err.Error(), "check the nvue username and password") {
		t.Fatalf("err = %v", err)
	}
}

func TestConcurrentTransactionsAreSerialized(t *testing.T) {
	tw, c := startTwin(t, "5.12")
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := []string{"A", "B", "C", "D"}[i]
			_, err := c.Transaction(context.Background(), pfcChange(name, 10))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if tw.Applies() != 4 || len(nvue.Object(tw.Applied(), "qos", "pfc")) != 4 {
		t.Errorf("%d applies, pfc profiles %v", tw.Applies(), nvue.Object(tw.Applied(), "qos", "pfc"))
	}
}

func TestTransactionFaults(t *testing.T) {
	ctx := context.Background()
	patch := pfcChange("ROCE", 5)
	t.Run("apply fails", func(t *testing.T) {
		tw, c := startTwin(t, "5.12")
		tw.FailNextApply()
		_, err := c.Transaction(ctx, patch)
		var ae *nvue.ApplyError
		if !errors.As(err, &ae) || ae.State != "apply_fail" || !strings.Contains(err.Error(), "switchd failed") {
			t.Fatalf("err = %v", err)
		}
		if _, ok := nvue.Lookup(tw.Applied(), "qos", "pfc", "ROCE"); ok || tw.Applies() != 0 {
			t.Error("a failed apply changed the switch")
		}
		if nvue.Settled(err) {
			t.Error("Settled = true for a revision that failed while applying: it may have applied in part")
		}
	})
	t.Run("apply hangs", func(t *testing.T) {
		tw, c := startTwin(t, "5.12")
		short, err := nvue.Dial(nvue.Config{Address: c.Address(), Username: "cumulus", Password: "Passw0rd!", Insecure: true, ApplyTimeout: 200 * time.Millisecond, PollInterval: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		tw.HangNextApply()
		_, err = short.Transaction(ctx, patch)
		var ae *nvue.ApplyError
		if !errors.As(err, &ae) || !ae.TimedOut || ae.State != "apply" || !strings.Contains(err.Error(), `still "apply" when the apply timeout ran out`) {
			t.Fatalf("err = %v", err)
		}
		if tw.Applies() != 0 {
			t.Error("a hung apply applied")
		}
		if nvue.Settled(err) {
			t.Error("Settled = true for a revision still applying")
		}
		if _, staged := tw.Revisions()[ae.Revision]; !staged {
			t.Error("the revision still applying was detached")
		}
	})
	t.Run("client gives up while the revision applies", func(t *testing.T) {
		tw, c := startTwin(t, "5.12")
		tw.HangNextApply()
		cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond) // the apply hangs for good
		defer cancel()
		rev, err := c.Transaction(cctx, patch)
		if err == nil || nvue.Settled(err) {
			t.Fatalf("err = %v, want an unsettled failure", err)
		}
		if _, staged := tw.Revisions()[rev]; !staged {
			t.Error("a revision still applying was detached when its client gave up")
		}
	})
	t.Run("proxy answers 504 while the revision applies", func(t *testing.T) {
		tw, c := startTwin(t, "5.12")
		tw.GatewayTimeoutAfterNextApply()
		if _, err := c.Transaction(ctx, patch); err != nil {
			t.Fatalf("the revision was applied behind the 504, but: %v", err)
		}
		if tw.Applies() != 1 {
			t.Errorf("%d applies", tw.Applies())
		}
	})
	t.Run("connection dropped after the apply", func(t *testing.T) {
		tw, c := startTwin(t, "5.12")
		tw.DropAfterNextApply()
		if _, err := c.Transaction(ctx, patch); err != nil {
			t.Fatalf("the revision was applied, but: %v", err)
		}
		if tw.Applies() != 1 {
			t.Errorf("%d applies", tw.Applies())
		}
	})
}

// A change that both sets and removes goes as two PATCHes of one revision, removals first:
// NVUE takes a PATCH that sets or one that unsets, and the twin refuses one that does both.
func TestTransactionSplitsSetsFromUnsets(t *testing.T) {
	tw, c := startTwin(t, "5.14")
	ctx := context.Background()
	first := pfcChange("ROCE", 5)
	if _, err := c.Transaction(ctx, first); err != nil {
		t.Fatal(err)
	}
	move := nvue.Tree{"qos": nvue.Tree{"pfc": nvue.Tree{"ROCE": nvue.Tree{"switch-priority": nvue.Tree{"3": nil, "4": nvue.Tree{}}}}}}
	_, before := tw.Requests()
	if _, err := c.Transaction(ctx, move); err != nil {
		t.Fatalf("a change that sets and unsets: %v", err)
	}
	if _, after := tw.Requests(); after-before != 2 {
		t.Errorf("%d PATCHes, want 2 (the unset, then the set)", after-before)
	}
	if got := nvue.Object(tw.Applied(), "qos", "pfc", "ROCE", "switch-priority"); len(got) != 1 || got["4"] == nil {
		t.Errorf("applied switch priorities %v, want 4 alone", got)
	}
}

// A configuration read asks for what was configured: the twin, like a switch, fills the
// schema's defaults (a mapping's port-default-sp, a PFC profile's rx and tx) into any other.
func TestGetReadsWhatWasConfigured(t *testing.T) {
	_, c := startTwin(t, "5.14")
	ctx := context.Background()
	if _, err := c.Transaction(ctx, nvue.Tree{"qos": nvue.Tree{"mapping": nvue.Tree{"ROCE": nvue.Tree{"trust": "l3"}}}}); err != nil {
		t.Fatal(err)
	}
	raw, err := c.Get(ctx, "qos/mapping/ROCE", nvue.RevApplied)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(raw); !strings.Contains(got, `"trust":"l3"`) || strings.Contains(got, "port-default-sp") {
		t.Errorf("configured read of the mapping = %s, want trust alone", got)
	}
}

// With auto-save off an apply ends "applied" and the switch would boot without it: the
// client saves the applied revision.
func TestTransactionSavesWhenAutoSaveIsOff(t *testing.T) {
	tw, c := startTwinWith(t, nvuetwin.Options{Release: "5.14", AutoSaveOff: true})
	if _, err := c.Transaction(context.Background(), pfcChange("ROCE", 5)); err != nil {
		t.Fatal(err)
	}
	if v, _ := nvue.Lookup(tw.Startup(), "qos", "pfc", "ROCE", "cable-length"); v != 5.0 {
		t.Errorf("startup configuration's qos/pfc/ROCE/cable-length = %v after the apply, want 5 (saved)", v)
	}
}

// An issue of severity error fails the apply although the state reads applied; the switch
// may hold the change, so it is not settled.
func TestTransactionFailsOnAnErrorIssue(t *testing.T) {
	tw, c := startTwin(t, "5.14")
	tw.ErrorIssueOnNextApply()
	_, err := c.Transaction(context.Background(), pfcChange("ROCE", 5))
	var ae *nvue.ApplyError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "could not program") || nvue.Settled(err) {
		t.Fatalf("apply with an error issue: %v, want an unsettled ApplyError naming the issue", err)
	}
}

// An operator's revision that is pending, or one still applying, stops a transaction before
// it creates its own: applying beside it would race it or apply it too.
func TestTransactionRefusesBesideAnotherRevision(t *testing.T) {
	for _, state := range []string{"pending", "apply"} {
		t.Run(state, func(t *testing.T) {
			tw, c := startTwin(t, "5.14")
			other := tw.OperatorRevision(state)
			revs, _ := tw.Requests()
			_, err := c.Transaction(context.Background(), pfcChange("ROCE", 5))
			var be *nvue.BusyError
			if !errors.As(err, &be) || !strings.Contains(err.Error(), other+" ("+state+")") || !nvue.Settled(err) {
				t.Fatalf("transaction beside revision %s (%s): %v, want a settled BusyError naming it", other, state, err)
			}
			if after, _ := tw.Requests(); after != revs || tw.Applies() != 0 {
				t.Errorf("the refused transaction created %d revisions and applied %d", after-revs, tw.Applies())
			}
		})
	}
}

// A change outside the API's schema (an unknown key, a value outside its enum) is refused at
// its PATCH, as the API validates a PATCH against its schema; nothing is applied and the
// revision is dropped. A rule between objects (a binding to a missing profile) waits for the
// apply, which ends invalid.
func TestSchemaViolationsRefusedAtPatch(t *testing.T) {
	tw, c := startTwin(t, "5.14")
	ctx := context.Background()
	_, err := c.Transaction(ctx, nvue.Tree{"qos": nvue.Tree{"pfc": nvue.Tree{"ROCE": nvue.Tree{"xoff": 1.0}}}})
	var he *nvue.HTTPError
	if !errors.As(err, &he) || he.Status != 400 || !strings.Contains(err.Error(), "unknown key") || !strings.Contains(err.Error(), "xoff") || !nvue.Settled(err) {
		t.Fatalf("PATCH with an unknown key: %v, want a settled HTTP 400 naming it", err)
	}
	if tw.Applies() != 0 {
		t.Errorf("%d applies after a refused PATCH", tw.Applies())
	}
	_, err = c.Transaction(ctx, nvue.Tree{"interface": nvue.Tree{"swp1": nvue.Tree{"type": "swp", "qos": nvue.Tree{"pfc": nvue.Tree{"profile": "NOPE"}}}}})
	var ae *nvue.ApplyError
	if !errors.As(err, &ae) || ae.State != "invalid" {
		t.Fatalf("a binding to a missing profile: %v, want the apply to end invalid", err)
	}
}

// A file NVUE manages that was edited by hand makes NVUE ask before it overwrites it. The
// client answers no unless AssumeYes: the apply fails with a PromptError that names the fix,
// the revision is detached and nothing is applied. With AssumeYes it answers yes and applies.
func TestTransactionAnswersPromptsOnlyWhenAsked(t *testing.T) {
	tw, c := startTwin(t, "5.14")
	if err := tw.EditByHand("/etc/cumulus/datapath/qos/qos_features.conf"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rev, err := c.Transaction(ctx, pfcChange("ROCE", 5))
	var pe *nvue.PromptError
	if !errors.As(err, &pe) || pe.State != "ays_fail" || !nvue.Settled(err) {
		t.Fatalf("apply over a hand-edited file: %v, want a settled PromptError", err)
	}
	for _, want := range []string{"Declined apply after warnings", "qos_features.conf", "assume_yes = true", "Nothing was applied"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if _, staged := tw.Revisions()[rev]; staged || tw.Applies() != 0 {
		t.Errorf("after the refused prompt: revision %s staged %v, %d applies", rev, staged, tw.Applies())
	}
	yes, err := nvue.Dial(nvue.Config{Address: c.Address(), Username: "cumulus", Password: "Passw0rd!", Insecure: true, AssumeYes: true, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer yes.Close()
	if _, err := yes.Transaction(ctx, pfcChange("ROCE", 5)); err != nil {
		t.Fatalf("apply answering yes: %v", err)
	}
	if tw.Applies() != 1 {
		t.Errorf("%d applies after answering yes", tw.Applies())
	}
}
