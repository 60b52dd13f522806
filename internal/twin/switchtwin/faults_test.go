package switchtwin

import (
	"strings"
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestResetNextSet(t *testing.T) {
	tw := startTwin(t, Options{Release: "202511", RecordRPCs: true})
	c := dial(t, tw, nil)
	set := func(weight string) error {
		_, err := c.Set(ctxT(t), &gpb.SetRequest{Update: []*gpb.Update{upd(cfg("SCHEDULER", "scheduler.0", "weight"), `"`+weight+`"`)}})
		return err
	}
	weight := func() string { e, _ := tw.Entry("SCHEDULER", "scheduler.0"); return e["weight"] }

	for _, tc := range []struct {
		afterApply  bool
		send, want  string
		logFragment string
	}{
		{afterApply: false, send: "20", want: "14", logFragment: "reset before the Set was applied"},
		{afterApply: true, send: "21", want: "21", logFragment: "reset after the Set was applied"},
	} {
		tw.ResetStats()
		tw.ResetNextSet(tc.afterApply)
		err := set(tc.send)
		wantCode(t, err, codes.Unavailable)
		// The client sees the transport die, not a status the twin chose.
		if msg := status.Convert(err).Message(); strings.Contains(msg, "switchtwin") {
			t.Errorf("afterApply %v: client got the handler's status %q, want a transport error", tc.afterApply, msg)
		}
		if got := weight(); got != tc.want {
			t.Errorf("afterApply %v: weight %s, want %s", tc.afterApply, got, tc.want)
		}
		if log := tw.RPCLog(); len(log) != 1 || !strings.Contains(log[0].Message, tc.logFragment) {
			t.Errorf("afterApply %v: RPC log = %+v, want one Set with %q", tc.afterApply, log, tc.logFragment)
		}
	}

	// Faults are used up, and the client re-dials: one connection per reset.
	if err := set("22"); err != nil {
		t.Fatalf("Set after the resets: %v", err)
	}
	if got := tw.Stats().Conns.Accepted; got != 3 {
		t.Errorf("accepted connections = %d, want 3", got)
	}
}

func TestResetAfterApplyWaitsForAValidSet(t *testing.T) {
	tw := startTwin(t, Options{Release: "202511"})
	c := dial(t, tw, nil)
	tw.ResetNextSet(true)
	// An unknown scheduler type fails validation: no reset, the fault stays queued.
	bad := &gpb.SetRequest{Update: []*gpb.Update{upd(cfg("SCHEDULER", "scheduler.0", "type"), `"FAST"`)}}
	_, err := c.Set(ctxT(t), bad)
	wantCode(t, err, codes.Unknown, "apply patch")
	good := &gpb.SetRequest{Update: []*gpb.Update{upd(cfg("SCHEDULER", "scheduler.0", "weight"), `"30"`)}}
	_, err = c.Set(ctxT(t), good)
	wantCode(t, err, codes.Unavailable)
	if e, _ := tw.Entry("SCHEDULER", "scheduler.0"); e["weight"] != "30" {
		t.Errorf("weight = %s, want 30", e["weight"])
	}
}
