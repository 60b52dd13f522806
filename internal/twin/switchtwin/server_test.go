package switchtwin

import (
	"context"
	"crypto/tls"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
)

func withCreds(ctx context.Context, user, pass string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "username", user, "password", pass)
}

func TestPasswordAuth(t *testing.T) {
	pki, err := NewPKI("admin")
	if err != nil {
		t.Fatal(err)
	}
	tw := startTwin(t, Options{Username: "admin", Password: "s3cret", TLS: pki.ServerTLS(false)})
	c := dial(t, tw, &tls.Config{RootCAs: pki.ClientTLS().RootCAs})
	req := &gpb.GetRequest{Path: []*gpb.Path{cfg("PORT", "Ethernet0", "mtu")}, Encoding: gpb.Encoding_JSON_IETF}

	if _, err := c.Get(withCreds(ctxT(t), "admin", "s3cret"), req); err != nil {
		t.Fatalf("Get with the right password: %v", err)
	}
	for name, ctx := range map[string]context.Context{
		"wrong password": withCreds(ctxT(t), "admin", "nope"),
		"wrong user":     withCreds(ctxT(t), "root", "s3cret"),
		"no metadata":    ctxT(t),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := c.Get(ctx, req)
			wantCode(t, err, codes.Unauthenticated, "Unauthenticated")
			_, err = c.Set(ctx, &gpb.SetRequest{Delete: []*gpb.Path{cfg("QUEUE", "Ethernet0|0")}})
			wantCode(t, err, codes.Unauthenticated)
		})
	}
	if _, ok := tw.Entry("QUEUE", "Ethernet0|0"); !ok {
		t.Error("an unauthenticated Set changed CONFIG_DB")
	}
	if got := tw.Stats().Failed["Get"]; got != 3 {
		t.Errorf("failed Gets = %d, want 3", got)
	}
}

func TestMutualTLS(t *testing.T) {
	pki, err := NewPKI("roce-provider")
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := NewPKI("stranger")
	if err != nil {
		t.Fatal(err)
	}
	tw := startTwin(t, Options{TLS: pki.ServerTLS(true)})
	req := &gpb.CapabilityRequest{}

	if _, err := dial(t, tw, pki.ClientTLS()).Capabilities(ctxT(t), req); err != nil {
		t.Fatalf("Capabilities with a client certificate: %v", err)
	}
	noCert := &tls.Config{RootCAs: pki.ClientTLS().RootCAs}
	wrongCA := &tls.Config{RootCAs: pki.ClientTLS().RootCAs, Certificates: stranger.ClientTLS().Certificates}
	for name, cfg := range map[string]*tls.Config{"no client certificate": noCert, "certificate of another CA": wrongCA} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			if _, err := dial(t, tw, cfg).Capabilities(ctx, req); err == nil {
				t.Fatal("Capabilities succeeded without a valid client certificate")
			}
		})
	}
	// A client that does not trust the twin's CA is refused too.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if _, err := dial(t, tw, stranger.ClientTLS()).Capabilities(ctx, req); err == nil {
		t.Fatal("client trusted a server certificate of another CA")
	}
}

func TestIdleConnectionsClose(t *testing.T) {
	tw := startTwin(t, Options{IdleTimeout: 200 * time.Millisecond})
	c := dial(t, tw, nil)
	if _, err := c.Capabilities(ctxT(t), &gpb.CapabilityRequest{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 3*time.Second, func() bool { return tw.Stats().Conns.Active == 0 })
	if _, err := c.Capabilities(ctxT(t), &gpb.CapabilityRequest{}); err != nil {
		t.Fatalf("call after idle close: %v", err)
	}
	if got := tw.Stats().Conns.Accepted; got != 2 {
		t.Errorf("accepted connections = %d, want 2 (one re-dial)", got)
	}
}

func TestConnectionCap(t *testing.T) {
	tw := startTwin(t, Options{MaxConns: 1})
	if _, err := dial(t, tw, nil).Capabilities(ctxT(t), &gpb.CapabilityRequest{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := dial(t, tw, nil).Capabilities(ctx, &gpb.CapabilityRequest{})
	if err == nil {
		t.Fatal("second connection was served beyond MaxConns 1")
	}
	if tw.Stats().Conns.Refused == 0 {
		t.Errorf("no refused connection counted: %+v", tw.Stats().Conns)
	}
}

func TestFaults(t *testing.T) {
	tw := startTwin(t, Options{Release: "202511", RecordRPCs: true})
	c := dial(t, tw, nil)
	set := func(weight string) error {
		_, err := c.Set(ctxT(t), &gpb.SetRequest{Update: []*gpb.Update{upd(cfg("SCHEDULER", "scheduler.0", "weight"), `"`+weight+`"`)}})
		return err
	}
	weight := func() string { e, _ := tw.Entry("SCHEDULER", "scheduler.0"); return e["weight"] }

	tw.FailNextSet(codes.Unavailable)
	wantCode(t, set("20"), codes.Unavailable, "nothing was applied")
	if weight() != "14" {
		t.Errorf("FailNextSet applied the Set: weight %s", weight())
	}

	tw.FailNextSetButApply(codes.Unknown)
	wantCode(t, set("21"), codes.Unknown, "Failed to apply patch")
	if weight() != "21" {
		t.Errorf("FailNextSetButApply did not apply: weight %s", weight())
	}
	if err := set("22"); err != nil {
		t.Fatalf("faults should be used up: %v", err)
	}

	tw.FailNextGet(codes.ResourceExhausted)
	_, err := c.Get(ctxT(t), &gpb.GetRequest{Path: []*gpb.Path{cfg("PORT")}, Encoding: gpb.Encoding_JSON_IETF})
	wantCode(t, err, codes.ResourceExhausted)

	// A slow Set: Gets meanwhile see the old value.
	tw.SlowSet(300 * time.Millisecond)
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- set("23") }()
	waitFor(t, 3*time.Second, func() bool { return tw.SlowSetsWaiting() == 1 })
	if weight() != "22" {
		t.Errorf("weight during a slow Set = %s, want 22", weight())
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("slow Set took %s", d)
	}
	tw.SlowSet(0)

	if n := tw.DropConnections(); n != 1 {
		t.Errorf("DropConnections = %d, want 1", n)
	}
	// The raw client may try the dead connection once before it notices.
	if err := set("24"); err != nil {
		wantCode(t, err, codes.Unavailable)
		if err := set("24"); err != nil {
			t.Fatalf("second Set after DropConnections: %v", err)
		}
	}

	st := tw.Stats()
	if st.RPCs["Set"] != 5 || st.Failed["Set"] != 2 || st.RPCs["Get"] != 1 {
		t.Errorf("stats = %+v", st)
	}
	log := tw.RPCLog()
	if len(log) != 6 || log[0].Method != "Set" || log[0].Code != codes.Unavailable ||
		log[0].Ops[0] != "update sonic-db:CONFIG_DB/localhost/SCHEDULER/scheduler.0/weight" {
		t.Errorf("RPC log = %+v", log)
	}
	tw.ResetStats()
	if len(tw.Stats().RPCs) != 0 || len(tw.RPCLog()) != 0 {
		t.Error("ResetStats kept counters")
	}
}

func TestLifecycle(t *testing.T) {
	tw, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	tw.Stop() // before Start: harmless
	if _, err := tw.Start(""); err == nil {
		t.Error("Start after Stop succeeded")
	}

	tw = startTwin(t, Options{})
	if _, err := tw.Start(""); err == nil {
		t.Error("second Start succeeded")
	}
	tw.Stop()
	tw.Stop()

	for _, bad := range []Options{
		{Release: "next"},
		{Username: "admin"},
		{Ports: 129},
		{HWSKU: "ACS-SN5600", Ports: 65},
	} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%+v) succeeded", bad)
		}
	}
}

func TestStopEndsSlowSet(t *testing.T) {
	tw, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Start(""); err != nil {
		t.Fatal(err)
	}
	tw.SlowSet(time.Hour)
	c := dial(t, tw, nil)
	done := make(chan error, 1)
	go func() {
		_, err := c.Set(ctxT(t), &gpb.SetRequest{Delete: []*gpb.Path{cfg("QUEUE", "Ethernet0|0")}})
		done <- err
	}()
	waitFor(t, 3*time.Second, func() bool { return tw.SlowSetsWaiting() == 1 })
	tw.Stop()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Set in flight succeeded across Stop")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Set in flight did not end after Stop")
	}
}

func waitFor(t *testing.T, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
