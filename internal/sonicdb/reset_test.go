package sonicdb

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	"github.com/clusterbid/terraform-provider-roce/internal/gnmi/gnmitest"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// TestSetConnectionReset covers a connection reset while the switch holds the Set: the
// client cannot tell from the error whether the switch applied it, so it must not re-send
// it by default and must say, from a re-read, which case it is.
func TestSetConnectionReset(t *testing.T) {
	b := (&Batch{}).Update(ConfigDBPath("SCHEDULER", "roce", ""), map[string]string{"type": "DWRR", "weight": "50"})
	// resetSet arms the reset, sends b with the provider's default three retries and
	// returns its SetError, after checking what every case shares.
	resetSet := func(t *testing.T, tw *switchtwin.Twin, c *Client, afterApply bool) *SetError {
		t.Helper()
		tw.ResetNextSet(afterApply)
		_, err := c.Set(gnmitest.Ctx(t), b)
		var se *SetError
		if !errors.As(err, &se) || se.Code != codes.Unavailable || se.NotSent {
			t.Fatalf("err = %v, want a SetError Unavailable after send", err)
		}
		if !strings.Contains(err.Error(), tw.Addr()) {
			t.Errorf("err = %q, want the switch address", err)
		}
		if n := tw.Stats().RPCs["Set"]; n != 1 {
			t.Errorf("Set sent %d times, want 1: a Set that may have applied is not re-sent", n)
		}
		return se
	}
	withRetries := func(addr string) gnmi.Config {
		cfg := gnmitest.Fast(addr)
		cfg.Retries = 3
		return cfg
	}

	t.Run("before apply", func(t *testing.T) {
		tw := gnmitest.Twin(t, switchtwin.Options{Release: "202511"})
		c := client(t, withRetries(tw.Addr()))
		before := tw.Snapshot()
		se := resetSet(t, tw, c, false)
		if se.Applied == nil || *se.Applied || len(se.Mismatches) == 0 {
			t.Errorf("Applied = %v, Mismatches %v (%v), want false with the missing paths", se.Applied, se.Mismatches, se.VerifyErr)
		}
		if diff := cmp.Diff(before, tw.Snapshot()); diff != "" {
			t.Errorf("CONFIG_DB changed (-before +after):\n%s", diff)
		}
		if _, err := c.Set(gnmitest.Ctx(t), b); err != nil {
			t.Fatalf("Set after the reset: %v", err)
		}
		if e, _ := tw.Entry("SCHEDULER", "roce"); e["weight"] != "50" {
			t.Errorf("SCHEDULER|roce = %v after the second Set", e)
		}
	})
	t.Run("after apply", func(t *testing.T) {
		tw := gnmitest.Twin(t, switchtwin.Options{Release: "202511"})
		c := client(t, withRetries(tw.Addr()))
		se := resetSet(t, tw, c, true)
		if se.Applied == nil || !*se.Applied {
			t.Errorf("Applied = %v (%v), want true", se.Applied, se.VerifyErr)
		}
	})
	t.Run("after apply, retried with opt-in", func(t *testing.T) {
		// CONFIG_DB operations are idempotent: re-sending an applied Set converges.
		tw := gnmitest.Twin(t, switchtwin.Options{Release: "202511"})
		cfg := withRetries(tw.Addr())
		cfg.RetrySetAfterSend = true
		tw.ResetNextSet(true)
		res, err := client(t, cfg).Set(gnmitest.Ctx(t), b)
		if err != nil || res.Attempts != 2 {
			t.Fatalf("Set = %+v, %v; want success on the second attempt", res, err)
		}
		if e, _ := tw.Entry("SCHEDULER", "roce"); e["weight"] != "50" {
			t.Errorf("SCHEDULER|roce = %v", e)
		}
	})
}
