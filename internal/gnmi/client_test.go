package gnmi_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	"github.com/clusterbid/terraform-provider-roce/internal/gnmi/gnmitest"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// The switch twin speaks SONiC, so the transport is exercised with CONFIG_DB paths built
// by hand; package sonicdb owns them in the product.

// configDB is the sonic-db path of a CONFIG_DB table, entry or field.
func configDB(table, key, field string) gnmi.Path {
	elems := []string{"CONFIG_DB", "localhost", table}
	if key != "" {
		elems = append(elems, key)
	}
	if field != "" {
		elems = append(elems, field)
	}
	return gnmi.Path{Origin: "sonic-db", Elems: elems}
}

// mtu9000 is a SetRequest that sets the mtu of PORT|port to 9000.
func mtu9000(port string) *gpb.SetRequest {
	return &gpb.SetRequest{Update: []*gpb.Update{{
		Path: configDB("PORT", port, "mtu").Proto(),
		Val:  &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(`"9000"`)}},
	}}}
}

func TestSetEmptyRequestSendsNothing(t *testing.T) {
	tw := gnmitest.Twin(t, switchtwin.Options{})
	c := gnmitest.Client(t, gnmitest.Fast(tw.Addr()))
	if _, err := c.Set(gnmitest.Ctx(t), &gpb.SetRequest{}); err == nil || !strings.Contains(err.Error(), "empty request") {
		t.Fatalf("err = %v, want an empty-request error", err)
	}
	if n := tw.Stats().RPCs["Set"]; n != 0 {
		t.Errorf("Set sent %d times", n)
	}
}

func TestGetMissingIsNotFound(t *testing.T) {
	tw := gnmitest.Twin(t, switchtwin.Options{})
	c := gnmitest.Client(t, gnmitest.Fast(tw.Addr()))
	_, err := c.Get(gnmitest.Ctx(t), configDB("WRED_PROFILE", "ROCE", ""))
	if !gnmi.IsNotFound(err) {
		t.Fatalf("err = %v, want NotFound", err)
	}
	if !strings.Contains(err.Error(), "gnmi get "+tw.Addr()) || !strings.Contains(err.Error(), "No valid entry found") {
		t.Errorf("err = %q, want the address and SONiC's message", err)
	}
	if n := tw.Stats().RPCs["Get"]; n != 1 {
		t.Errorf("NotFound Get sent %d times, want 1", n)
	}
}

func TestSetRetries(t *testing.T) {
	b := mtu9000("Ethernet0")
	t.Run("not retried after send by default", func(t *testing.T) {
		tw := gnmitest.Twin(t, switchtwin.Options{})
		cfg := gnmitest.Fast(tw.Addr())
		cfg.Retries = 3
		tw.FailNextSet(codes.Unavailable)
		_, err := gnmitest.Client(t, cfg).Set(gnmitest.Ctx(t), b)
		var se *gnmi.SetError
		if !errors.As(err, &se) || se.Code != codes.Unavailable || se.NotSent {
			t.Fatalf("err = %v, want a SetError Unavailable, sent", err)
		}
		if n := tw.Stats().RPCs["Set"]; n != 1 {
			t.Errorf("Set sent %d times, want 1", n)
		}
	})
	t.Run("retried with opt-in", func(t *testing.T) {
		tw := gnmitest.Twin(t, switchtwin.Options{})
		cfg := gnmitest.Fast(tw.Addr())
		cfg.Retries, cfg.RetrySetAfterSend = 3, true
		tw.FailNextSet(codes.Unavailable)
		tw.FailNextSet(codes.ResourceExhausted)
		res, err := gnmitest.Client(t, cfg).Set(gnmitest.Ctx(t), b)
		if err != nil {
			t.Fatalf("Set: %v", err)
		}
		if res.Attempts != 3 || tw.Stats().RPCs["Set"] != 3 {
			t.Errorf("attempts = %d, sent = %d, want 3", res.Attempts, tw.Stats().RPCs["Set"])
		}
	})
	t.Run("invalid argument is never retried", func(t *testing.T) {
		tw := gnmitest.Twin(t, switchtwin.Options{})
		cfg := gnmitest.Fast(tw.Addr())
		cfg.Retries, cfg.RetrySetAfterSend = 3, true
		tw.FailNextSet(codes.InvalidArgument)
		if _, err := gnmitest.Client(t, cfg).Set(gnmitest.Ctx(t), b); status.Code(err) != codes.InvalidArgument {
			t.Fatalf("err = %v, want InvalidArgument", err)
		}
		if n := tw.Stats().RPCs["Set"]; n != 1 {
			t.Errorf("Set sent %d times, want 1", n)
		}
	})
	t.Run("switch down: retried, never sent", func(t *testing.T) {
		tw := gnmitest.Twin(t, switchtwin.Options{})
		addr := tw.Addr()
		tw.Stop()
		cfg := gnmitest.Fast(addr)
		cfg.Retries, cfg.DialTimeout = 2, 100*time.Millisecond
		_, err := gnmitest.Client(t, cfg).Set(gnmitest.Ctx(t), b)
		var se *gnmi.SetError
		if !errors.As(err, &se) || !se.NotSent || se.Code != codes.Unavailable {
			t.Fatalf("err = %v, want a SetError not sent, Unavailable", err)
		}
		if !strings.Contains(err.Error(), "nothing was sent") {
			t.Errorf("err = %q", err)
		}
	})
}

func TestGetRetries(t *testing.T) {
	tw := gnmitest.Twin(t, switchtwin.Options{})
	cfg := gnmitest.Fast(tw.Addr())
	cfg.Retries = 3
	c := gnmitest.Client(t, cfg)
	p := configDB("PORT", "Ethernet0", "mtu")

	tw.FailNextGet(codes.Unavailable)
	tw.FailNextGet(codes.Aborted)
	if _, err := c.Get(gnmitest.Ctx(t), p); err != nil {
		t.Fatalf("Get after two retryable failures: %v", err)
	}
	if n := tw.Stats().RPCs["Get"]; n != 3 {
		t.Errorf("Get sent %d times, want 3", n)
	}

	tw.ResetStats()
	tw.FailNextGet(codes.InvalidArgument)
	if _, err := c.Get(gnmitest.Ctx(t), p); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("err = %v, want InvalidArgument", err)
	}
	if n := tw.Stats().RPCs["Get"]; n != 1 {
		t.Errorf("InvalidArgument Get sent %d times, want 1", n)
	}
}

func TestBackoffStopsOnContext(t *testing.T) {
	tw := gnmitest.Twin(t, switchtwin.Options{})
	cfg := gnmitest.Fast(tw.Addr())
	cfg.Retries, cfg.RetryDelay, cfg.RetryMaxDelay = 5, 10*time.Second, 10*time.Second
	c := gnmitest.Client(t, cfg)
	for range 6 {
		tw.FailNextGet(codes.Unavailable)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Get(ctx, configDB("PORT", "", ""))
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Fatalf("Get returned after %s; backoff slept past the context", elapsed)
	}
	if !errors.Is(err, context.DeadlineExceeded) || status.Code(err) != codes.Unavailable {
		t.Errorf("err = %v, want DeadlineExceeded and the last Unavailable", err)
	}
}

func TestIdleCloseThenCall(t *testing.T) {
	tw := gnmitest.Twin(t, switchtwin.Options{IdleTimeout: 200 * time.Millisecond})
	c := gnmitest.Client(t, gnmitest.Fast(tw.Addr())) // Retries 0: only the built-in read retry
	if _, err := c.Capabilities(gnmitest.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for tw.Stats().Conns.Active != 0 {
		if time.Now().After(deadline) {
			t.Fatal("twin did not close the idle connection")
		}
		time.Sleep(10 * time.Millisecond)
	}
	b := mtu9000("Ethernet0")
	if _, err := c.Set(gnmitest.Ctx(t), b); err != nil {
		t.Fatalf("Set after idle close: %v", err)
	}
	if _, err := c.Get(gnmitest.Ctx(t), configDB("PORT", "Ethernet0", "mtu")); err != nil {
		t.Fatalf("Get after idle close: %v", err)
	}
	st := tw.Stats()
	if st.Failed["Set"] != 0 || st.Conns.Accepted < 2 {
		t.Errorf("stats = %+v, want a re-dial and no failed Set", st)
	}
}

func TestReadAfterDroppedConnection(t *testing.T) {
	tw := gnmitest.Twin(t, switchtwin.Options{})
	c := gnmitest.Client(t, gnmitest.Fast(tw.Addr()))
	if _, err := c.Capabilities(gnmitest.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	tw.DropConnections()
	if _, err := c.Get(gnmitest.Ctx(t), configDB("PORT", "Ethernet0", "")); err != nil {
		t.Fatalf("Get after the switch dropped the connection: %v", err)
	}
}

func TestOneSetInFlight(t *testing.T) {
	tw := gnmitest.Twin(t, switchtwin.Options{RecordRPCs: true})
	c := gnmitest.Client(t, gnmitest.Fast(tw.Addr()))
	tw.SlowSet(150 * time.Millisecond)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Set(gnmitest.Ctx(t), mtu9000("Ethernet0"))
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
		_, _ = c.Set(gnmitest.Ctx(t), mtu9000("Ethernet4"))
	}()
	gnmitest.WaitFor(t, 3*time.Second, "the slow Set in flight", func() bool { return tw.SlowSetsWaiting() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Set(ctx, mtu9000("Ethernet8"))
	var se *gnmi.SetError
	if !errors.As(err, &se) || !se.NotSent || se.Code != codes.DeadlineExceeded {
		t.Errorf("err = %v, want a SetError not sent with DeadlineExceeded", err)
	}
	<-done
	if e, _ := tw.Entry("PORT", "Ethernet8"); e["mtu"] != "9100" {
		t.Errorf("the Set that timed out waiting was applied: %v", e)
	}
}

func TestPool(t *testing.T) {
	tw := gnmitest.Twin(t, switchtwin.Options{})
	p := gnmi.NewPool()
	c1, err := p.Client(gnmitest.Fast(tw.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	c2, err := p.Client(gnmitest.Fast(tw.Addr()))
	if err != nil || c1 != c2 {
		t.Fatalf("second Client = %p, %v; want the same client %p", c2, err, c1)
	}
	other := gnmitest.Fast(tw.Addr())
	other.Username, other.Password = "a", "b"
	if _, err := p.Client(other); err == nil {
		t.Error("a second configuration for the same address was accepted")
	}
	if _, err := p.Client(gnmi.Config{Address: "nope"}); err == nil {
		t.Error("an invalid config was accepted")
	}
	if _, err := c1.Capabilities(gnmitest.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	_ = c1.Close()
	c3, err := p.Client(gnmitest.Fast(tw.Addr()))
	if err != nil || c3 == c1 {
		t.Fatalf("closed client not replaced: %p, %v", c3, err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c3.Capabilities(gnmitest.Ctx(t)); err == nil {
		t.Error("client works after Pool.Close")
	}
	if _, err := p.Client(gnmitest.Fast(tw.Addr())); err == nil {
		t.Error("closed pool handed out a client")
	}
}
