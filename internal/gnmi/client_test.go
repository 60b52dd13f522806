package gnmi

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

func TestSetAndGet(t *testing.T) {
	tw := newTwin(t, switchtwin.Options{Release: "202511"})
	c := newClient(t, fast(tw.Addr()))
	ctx := testCtx(t)

	b := &Batch{}
	b.Update(ConfigDBPath("SCHEDULER", "scheduler.1", ""), map[string]string{"type": "STRICT"})
	b.UpdateField(ConfigDBPath("PORT_QOS_MAP", "Ethernet0", "pfc_enable"), "3")
	b.Delete(ConfigDBPath("WRED_PROFILE", "NOT_THERE", ""))
	res, err := c.Set(ctx, b)
	if err != nil {
		t.Fatalf("Set: %v", err)
	}
	if res.Attempts != 1 || len(res.Response.GetResponse()) != 3 {
		t.Errorf("result = %+v", res)
	}

	// Update replaced the whole entry: weight vanished.
	got, err := c.GetEntry(ctx, "SCHEDULER", "scheduler.1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sonic.Entry{"type": "STRICT"}, got); diff != "" {
		t.Errorf("SCHEDULER|scheduler.1 (-want +got):\n%s", diff)
	}
	// The field update left the other fields alone.
	qos, err := c.GetEntry(ctx, "PORT_QOS_MAP", "Ethernet0")
	if err != nil {
		t.Fatal(err)
	}
	if qos["pfc_enable"] != "3" || qos["pfcwd_sw_enable"] != "3,4" || qos["dscp_to_tc_map"] != "AZURE" {
		t.Errorf("PORT_QOS_MAP|Ethernet0 = %v", qos)
	}

	values, err := c.Get(ctx, ConfigDBPath("PORT", "Ethernet0", "mtu"), ConfigDBPath("NO_TABLE", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"sonic-db:CONFIG_DB/localhost/PORT/Ethernet0/mtu": `"9100"`}, rawStrings(values)); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}

	db, err := c.GetTables(ctx, "SCHEDULER", "NO_TABLE")
	if err != nil {
		t.Fatal(err)
	}
	if len(db) != 1 || len(db["SCHEDULER"]) != 2 {
		t.Errorf("GetTables = %v", db)
	}
}

func rawStrings[V ~[]byte](m map[string]V) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}

func TestGetMissingIsNotFound(t *testing.T) {
	tw := newTwin(t, switchtwin.Options{})
	c := newClient(t, fast(tw.Addr()))
	_, err := c.GetEntry(testCtx(t), "WRED_PROFILE", "ROCE")
	if !IsNotFound(err) {
		t.Fatalf("err = %v, want NotFound", err)
	}
	if !strings.Contains(err.Error(), "gnmi get "+tw.Addr()) || !strings.Contains(err.Error(), "No valid entry found") {
		t.Errorf("err = %q, want the address and SONiC's message", err)
	}
	if n := tw.Stats().RPCs["Get"]; n != 1 {
		t.Errorf("NotFound Get sent %d times, want 1", n)
	}
}

func TestBuildVersion(t *testing.T) {
	tw := newTwin(t, switchtwin.Options{Release: "202505", BuildVersion: "SONiC.202505.77-abc"})
	c := newClient(t, fast(tw.Addr()))
	v, err := c.BuildVersion(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	rel, err := sonic.ParseRelease(v)
	if err != nil || rel.String() != "202505" {
		t.Errorf("BuildVersion = %q → %v, %v", v, rel, err)
	}
}

func TestSetValidationErrorIsNotApplied(t *testing.T) {
	tw := newTwin(t, switchtwin.Options{Release: "202511"})
	c := newClient(t, fast(tw.Addr()))
	before := tw.Snapshot()
	b := &Batch{}
	b.Update(ConfigDBPath("SCHEDULER", "roce", ""), map[string]string{"type": "DWRR", "weight": "50"})
	b.Update(ConfigDBPath("WRED_PROFILE", "ROCE", ""), map[string]string{"green_min_threshold": "300", "green_max_threshold": "200"})
	_, err := c.Set(testCtx(t), b)

	var se *SetError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want *SetError", err)
	}
	if se.Code != codes.Unknown || se.Applied == nil || *se.Applied || se.NotSent {
		t.Errorf("SetError = %+v, want Unknown, applied false", se)
	}
	wantMismatch := []string{"CONFIG_DB/SCHEDULER/roce", "CONFIG_DB/WRED_PROFILE/ROCE"}
	if diff := cmp.Diff(wantMismatch, se.Mismatches); diff != "" {
		t.Errorf("mismatches (-want +got):\n%s", diff)
	}
	for _, f := range []string{"gnmi set " + tw.Addr(), "WRED_PROFILE|ROCE", "not on the switch"} {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("err %q lacks %q", err, f)
		}
	}
	if diff := cmp.Diff(before, tw.Snapshot()); diff != "" {
		t.Errorf("CONFIG_DB changed (-before +after):\n%s", diff)
	}
	if n := tw.Stats().RPCs["Set"]; n != 1 {
		t.Errorf("Set sent %d times, want 1", n)
	}
}

func TestSetGCURejection(t *testing.T) {
	tw := newTwin(t, switchtwin.Options{Release: "202411"})
	c := newClient(t, fast(tw.Addr()))
	b := (&Batch{}).Update(ConfigDBPath("WRED_PROFILE", "ROCE", ""), map[string]string{"ecn": "ecn_all"})
	_, err := c.Set(testCtx(t), b)
	if status.Code(err) != codes.Unknown || !strings.Contains(err.Error(), "not allowed by sonic gcu") {
		t.Fatalf("err = %v, want a GCU rejection", err)
	}
}

func TestSetInvalidBatchSendsNothing(t *testing.T) {
	tw := newTwin(t, switchtwin.Options{})
	c := newClient(t, fast(tw.Addr()))
	b := (&Batch{}).Update(ConfigDBPath("PORT", "Ethernet0", "mtu"), map[string]string{"mtu": "1"})
	if _, err := c.Set(testCtx(t), b); err == nil || !strings.Contains(err.Error(), "gnmi batch") {
		t.Fatalf("err = %v, want the batch error", err)
	}
	if _, err := c.Set(testCtx(t), &Batch{}); err == nil {
		t.Fatal("empty batch was sent")
	}
	if n := tw.Stats().RPCs["Set"]; n != 0 {
		t.Errorf("Set sent %d times", n)
	}
}

func TestFailedButApplied(t *testing.T) {
	tw := newTwin(t, switchtwin.Options{Release: "202511"})
	c := newClient(t, fast(tw.Addr()))
	tw.FailNextSetButApply(codes.Unknown)
	b := (&Batch{}).Update(ConfigDBPath("SCHEDULER", "roce", ""), map[string]string{"type": "DWRR", "weight": "50"})
	_, err := c.Set(testCtx(t), b)
	var se *SetError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want *SetError", err)
	}
	if se.Applied == nil || !*se.Applied {
		t.Fatalf("Applied = %v (%v), want true", se.Applied, se.VerifyErr)
	}
	if !strings.Contains(err.Error(), "holds the change anyway") {
		t.Errorf("err = %q", err)
	}
}

func TestSetRetries(t *testing.T) {
	b := (&Batch{}).UpdateField(ConfigDBPath("PORT", "Ethernet0", "mtu"), "9000")
	t.Run("not retried after send by default", func(t *testing.T) {
		tw := newTwin(t, switchtwin.Options{})
		cfg := fast(tw.Addr())
		cfg.Retries = 3
		tw.FailNextSet(codes.Unavailable)
		_, err := newClient(t, cfg).Set(testCtx(t), b)
		var se *SetError
		if !errors.As(err, &se) || se.Code != codes.Unavailable || se.Applied == nil || *se.Applied {
			t.Fatalf("err = %v, want a SetError Unavailable, not applied", err)
		}
		if n := tw.Stats().RPCs["Set"]; n != 1 {
			t.Errorf("Set sent %d times, want 1", n)
		}
	})
	t.Run("retried with opt-in", func(t *testing.T) {
		tw := newTwin(t, switchtwin.Options{})
		cfg := fast(tw.Addr())
		cfg.Retries, cfg.RetrySetAfterSend = 3, true
		tw.FailNextSet(codes.Unavailable)
		tw.FailNextSet(codes.ResourceExhausted)
		res, err := newClient(t, cfg).Set(testCtx(t), b)
		if err != nil {
			t.Fatalf("Set: %v", err)
		}
		if res.Attempts != 3 || tw.Stats().RPCs["Set"] != 3 {
			t.Errorf("attempts = %d, sent = %d, want 3", res.Attempts, tw.Stats().RPCs["Set"])
		}
	})
	t.Run("invalid argument is never retried", func(t *testing.T) {
		tw := newTwin(t, switchtwin.Options{})
		cfg := fast(tw.Addr())
		cfg.Retries, cfg.RetrySetAfterSend = 3, true
		tw.FailNextSet(codes.InvalidArgument)
		if _, err := newClient(t, cfg).Set(testCtx(t), b); status.Code(err) != codes.InvalidArgument {
			t.Fatalf("err = %v, want InvalidArgument", err)
		}
		if n := tw.Stats().RPCs["Set"]; n != 1 {
			t.Errorf("Set sent %d times, want 1", n)
		}
	})
	t.Run("switch down: retried, never sent", func(t *testing.T) {
		tw := newTwin(t, switchtwin.Options{})
		addr := tw.Addr()
		tw.Stop()
		cfg := fast(addr)
		cfg.Retries, cfg.DialTimeout = 2, 100*time.Millisecond
		_, err := newClient(t, cfg).Set(testCtx(t), b)
		var se *SetError
		if !errors.As(err, &se) || !se.NotSent || se.Code != codes.Unavailable || se.Applied == nil || *se.Applied {
			t.Fatalf("err = %v, want a SetError not sent, Unavailable, applied false", err)
		}
		if !strings.Contains(err.Error(), "nothing was sent") {
			t.Errorf("err = %q", err)
		}
	})
}

func TestGetRetries(t *testing.T) {
	tw := newTwin(t, switchtwin.Options{})
	cfg := fast(tw.Addr())
	cfg.Retries = 3
	c := newClient(t, cfg)
	p := ConfigDBPath("PORT", "Ethernet0", "mtu")

	tw.FailNextGet(codes.Unavailable)
	tw.FailNextGet(codes.Aborted)
	if _, err := c.Get(testCtx(t), p); err != nil {
		t.Fatalf("Get after two retryable failures: %v", err)
	}
	if n := tw.Stats().RPCs["Get"]; n != 3 {
		t.Errorf("Get sent %d times, want 3", n)
	}

	tw.ResetStats()
	tw.FailNextGet(codes.InvalidArgument)
	if _, err := c.Get(testCtx(t), p); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("err = %v, want InvalidArgument", err)
	}
	if n := tw.Stats().RPCs["Get"]; n != 1 {
		t.Errorf("InvalidArgument Get sent %d times, want 1", n)
	}
}

func TestBackoffStopsOnContext(t *testing.T) {
	tw := newTwin(t, switchtwin.Options{})
	cfg := fast(tw.Addr())
	cfg.Retries, cfg.RetryDelay, cfg.RetryMaxDelay = 5, 10*time.Second, 10*time.Second
	c := newClient(t, cfg)
	for range 6 {
		tw.FailNextGet(codes.Unavailable)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Get(ctx, ConfigDBPath("PORT", "", ""))
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Fatalf("Get returned after %s; backoff slept past the context", elapsed)
	}
	if !errors.Is(err, context.DeadlineExceeded) || status.Code(err) != codes.Unavailable {
		t.Errorf("err = %v, want DeadlineExceeded and the last Unavailable", err)
	}
}

func TestIdleCloseThenCall(t *testing.T) {
	tw := newTwin(t, switchtwin.Options{IdleTimeout: 200 * time.Millisecond})
	c := newClient(t, fast(tw.Addr())) // Retries 0: only the built-in read retry
	if _, err := c.Capabilities(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for tw.Stats().Conns.Active != 0 {
		if time.Now().After(deadline) {
			t.Fatal("twin did not close the idle connection")
		}
		time.Sleep(10 * time.Millisecond)
	}
	b := (&Batch{}).UpdateField(ConfigDBPath("PORT", "Ethernet0", "mtu"), "9000")
	if _, err := c.Set(testCtx(t), b); err != nil {
		t.Fatalf("Set after idle close: %v", err)
	}
	if _, err := c.Get(testCtx(t), ConfigDBPath("PORT", "Ethernet0", "mtu")); err != nil {
		t.Fatalf("Get after idle close: %v", err)
	}
	st := tw.Stats()
	if st.Failed["Set"] != 0 || st.Conns.Accepted < 2 {
		t.Errorf("stats = %+v, want a re-dial and no failed Set", st)
	}
}

func TestReadAfterDroppedConnection(t *testing.T) {
	tw := newTwin(t, switchtwin.Options{})
	c := newClient(t, fast(tw.Addr()))
	if _, err := c.Capabilities(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	tw.DropConnections()
	if _, err := c.Get(testCtx(t), ConfigDBPath("PORT", "Ethernet0", "")); err != nil {
		t.Fatalf("Get after the switch dropped the connection: %v", err)
	}
}

func TestOneSetInFlight(t *testing.T) {
	tw := newTwin(t, switchtwin.Options{RecordRPCs: true})
	c := newClient(t, fast(tw.Addr()))
	tw.SlowSet(150 * time.Millisecond)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Set(testCtx(t), (&Batch{}).UpdateField(ConfigDBPath("PORT", "Ethernet0", "mtu"), "9000"))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var sets []switchtwin.RPCRecord
	for _, r := range tw.RPCLog() {
		if r.Method == "Set" {
			sets = append(sets, r)
		}
	}
	for i := 1; i < len(sets); i++ {
		if prevEnd := sets[i-1].Start.Add(sets[i-1].Duration); sets[i].Start.Before(prevEnd) {
			t.Errorf("Set %d started at %s before Set %d ended at %s", i, sets[i].Start, i-1, prevEnd)
		}
	}

	// A Set that cannot get the slot before its context ends is not sent.
	tw.SlowSet(time.Second)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = c.Set(testCtx(t), (&Batch{}).UpdateField(ConfigDBPath("PORT", "Ethernet4", "mtu"), "9000"))
	}()
	for len(c.setSlot) == 0 { // wait until the slow Set holds the slot
		time.Sleep(5 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Set(ctx, (&Batch{}).UpdateField(ConfigDBPath("PORT", "Ethernet8", "mtu"), "9000"))
	var se *SetError
	if !errors.As(err, &se) || !se.NotSent || se.Code != codes.DeadlineExceeded {
		t.Errorf("err = %v, want a SetError not sent with DeadlineExceeded", err)
	}
	<-done
	if e, _ := tw.Entry("PORT", "Ethernet8"); e["mtu"] != "9100" {
		t.Errorf("the Set that timed out waiting was applied: %v", e)
	}
}

func TestPool(t *testing.T) {
	tw := newTwin(t, switchtwin.Options{})
	p := NewPool()
	c1, err := p.Client(fast(tw.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	c2, err := p.Client(fast(tw.Addr()))
	if err != nil || c1 != c2 {
		t.Fatalf("second Client = %p, %v; want the same client %p", c2, err, c1)
	}
	other := fast(tw.Addr())
	other.Username, other.Password = "a", "b"
	if _, err := p.Client(other); err == nil {
		t.Error("a second configuration for the same address was accepted")
	}
	if _, err := p.Client(Config{Address: "nope"}); err == nil {
		t.Error("an invalid config was accepted")
	}
	if _, err := c1.Capabilities(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	_ = c1.Close()
	c3, err := p.Client(fast(tw.Addr()))
	if err != nil || c3 == c1 {
		t.Fatalf("closed client not replaced: %p, %v", c3, err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c3.Capabilities(testCtx(t)); err == nil {
		t.Error("client works after Pool.Close")
	}
	if _, err := p.Client(fast(tw.Addr())); err == nil {
		t.Error("closed pool handed out a client")
	}
}

func TestSetTimeoutWhileSwitchStillApplies(t *testing.T) {
	tw := newTwin(t, switchtwin.Options{})
	cfg := fast(tw.Addr())
	cfg.SetTimeout = 100 * time.Millisecond
	c := newClient(t, cfg)
	tw.SlowSet(400 * time.Millisecond)
	_, err := c.Set(testCtx(t), (&Batch{}).UpdateField(ConfigDBPath("PORT", "Ethernet0", "mtu"), "9000"))
	var se *SetError
	if !errors.As(err, &se) || se.Code != codes.DeadlineExceeded || se.NotSent || se.Applied == nil || *se.Applied {
		t.Fatalf("err = %v, want DeadlineExceeded, sent, not applied yet", err)
	}
	// Like GCU, the switch finishes the patch after the client gave up.
	deadline := time.Now().Add(3 * time.Second)
	for {
		if e, _ := tw.Entry("PORT", "Ethernet0"); e["mtu"] == "9000" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the slow Set never applied")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
