package nvue_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

// Every apply is commit-confirmed by default: the client confirms it only after the change
// read back, so a read-back that fails leaves the switch rolled back to what it had.
func TestTransactionConfirmsOnlyAfterTheReadBack(t *testing.T) {
	ctx := context.Background()
	t.Run("read-back passes", func(t *testing.T) {
		tw, c := startTwin(t, "5.14")
		calls := 0
		rev, err := c.TransactionVerified(ctx, pfcChange("ROCE", 5), func(context.Context) error { calls++; return nil })
		if err != nil {
			t.Fatal(err)
		}
		if calls != 1 {
			t.Errorf("verify ran %d times, want once, at the confirmation", calls)
		}
		if got := tw.Revisions()[rev]; got != "applied_and_saved" {
			t.Errorf("revision %s is %q, want applied_and_saved once confirmed", rev, got)
		}
		if v, _ := nvue.Lookup(tw.Startup(), "qos", "pfc", "ROCE", "cable-length"); v != 5.0 {
			t.Errorf("startup cable-length = %v, want 5: a confirmed apply is saved", v)
		}
	})
	t.Run("read-back fails", func(t *testing.T) {
		tw, c := startTwin(t, "5.14")
		before := tw.Applied()
		rev, err := c.TransactionVerified(ctx, pfcChange("ROCE", 5), func(context.Context) error { return errors.New("the lossless priority is missing") })
		var rb *nvue.RolledBackError
		if !errors.As(err, &rb) || !nvue.Settled(err) || !strings.Contains(err.Error(), "the lossless priority is missing") || !strings.Contains(err.Error(), "rolled it back") {
			t.Fatalf("err = %v, want a settled RolledBackError with the read-back's failure", err)
		}
		if _, ok := nvue.Lookup(tw.Applied(), "qos", "pfc", "ROCE"); ok || !equalJSON(tw.Applied(), before) {
			t.Error("the refused apply stayed applied")
		}
		if got := tw.Revisions()[rev]; got != "confirm_fail" && got != "" {
			t.Errorf("revision %s is %q, want confirm_fail or detached", rev, got)
		}
		if v, _ := nvue.Lookup(tw.Startup(), "qos", "pfc", "ROCE"); v != nil {
			t.Error("a refused apply reached the startup configuration")
		}
	})
	t.Run("commit-confirm off", func(t *testing.T) {
		tw, _ := startTwin(t, "5.14")
		c, err := nvue.Dial(nvue.Config{Address: tw.Addr(), Username: "cumulus", Password: "Passw0rd!", Insecure: true, ConfirmWindow: -1, PollInterval: 10 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		calls := 0
		if _, err := c.TransactionVerified(ctx, pfcChange("ROCE", 5), func(context.Context) error { calls++; return nil }); err != nil {
			t.Fatal(err)
		}
		if calls != 0 || tw.Applies() != 1 {
			t.Errorf("without commit-confirm: verify ran %d times, %d applies; want 0 and 1", calls, tw.Applies())
		}
	})
}

// A revision of another session waiting for its confirmation (nv config apply --confirm)
// holds the switch: the transaction is refused, naming it, before it creates a revision.
func TestTransactionRefusesBesideAnUnconfirmedRevision(t *testing.T) {
	tw, c := startTwin(t, "5.14")
	other := tw.OperatorRevision("confirm")
	_, err := c.Transaction(context.Background(), pfcChange("ROCE", 5))
	var be *nvue.BusyError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), other+" (confirm)") || !nvue.Settled(err) {
		t.Fatalf("err = %v, want a settled BusyError naming %s", err, other)
	}
}

func equalJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}
