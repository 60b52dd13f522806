package gnmi_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	"github.com/clusterbid/terraform-provider-roce/internal/gnmi/gnmitest"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// pingEvery is the shortest keepalive interval grpc-go lets a client use (it raises
// shorter ones), so these tests take seconds; -short skips them.
const pingEvery = 10 * time.Second

// keepaliveConfig is a Config for addr that pings after pingEvery of silence and gives
// up on a ping after pingWait.
func keepaliveConfig(addr string, pingWait time.Duration) gnmi.Config {
	cfg := gnmitest.Fast(addr)
	cfg.KeepaliveTime, cfg.KeepaliveTimeout = pingEvery, pingWait
	return cfg
}

func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skipf("keepalive pings come at most every %s", pingEvery)
	}
}

// TestKeepaliveDefaultsMeetSONiCEnforcement: the client's default ping interval is no
// shorter than the enforcement of the strictest SONiC release, which the twin applies.
func TestKeepaliveDefaultsMeetSONiCEnforcement(t *testing.T) {
	if gnmi.DefaultKeepaliveTime < switchtwin.DefaultKeepaliveMinTime {
		t.Errorf("DefaultKeepaliveTime %s is under the switch's keepalive MinTime %s: long Sets would end in GOAWAY too_many_pings",
			gnmi.DefaultKeepaliveTime, switchtwin.DefaultKeepaliveMinTime)
	}
}

// TestKeepaliveFailsSetOnHungConnection: a Set in flight on a connection that stops carrying
// bytes fails with Unavailable once a keepalive ping goes unanswered, long before its
// SetTimeout.
func TestKeepaliveFailsSetOnHungConnection(t *testing.T) {
	skipShort(t)
	t.Parallel()
	tw := gnmitest.Twin(t, switchtwin.Options{KeepaliveMinTime: pingEvery})
	tw.SlowSet(time.Minute) // Stop ends it when the test does
	proxy := newStallProxy(t, tw.Addr())
	cfg := keepaliveConfig(proxy.Addr(), 500*time.Millisecond)
	cfg.SetTimeout = 2 * time.Minute
	c := gnmitest.Client(t, cfg)

	result := make(chan error, 1)
	go func() {
		_, err := c.Set(gnmitest.Ctx(t), mtu9000("Ethernet0"))
		result <- err
	}()
	gnmitest.WaitFor(t, 5*time.Second, "the Set at the switch", func() bool { return tw.SlowSetsWaiting() == 1 })
	proxy.Stall()
	limit := pingEvery + cfg.KeepaliveTimeout + 5*time.Second
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case err := <-result:
		var se *gnmi.SetError
		if !errors.As(err, &se) || se.Code != codes.Unavailable || se.NotSent {
			t.Fatalf("err = %v, want a SetError Unavailable, sent", err)
		}
		t.Logf("Set on the hung connection: %v", err)
	case <-timer.C:
		t.Fatalf("Set on a hung connection still blocked after %s (SetTimeout %s)", limit, cfg.SetTimeout)
	}
}

// TestKeepaliveReadRecoversFromHungConnection: a Get on a connection that stopped carrying
// bytes fails over to a new connection when its keepalive ping goes unanswered, well within
// GetTimeout; GetTimeout alone would time out and retry on the same dead connection.
func TestKeepaliveReadRecoversFromHungConnection(t *testing.T) {
	skipShort(t)
	t.Parallel()
	tw := gnmitest.Twin(t, switchtwin.Options{KeepaliveMinTime: pingEvery})
	proxy := newStallProxy(t, tw.Addr())
	cfg := keepaliveConfig(proxy.Addr(), 500*time.Millisecond)
	cfg.GetTimeout = time.Minute
	c := gnmitest.Client(t, cfg)
	p := configDB("PORT", "Ethernet0", "mtu")
	if _, err := c.Get(gnmitest.Ctx(t), p); err != nil {
		t.Fatal(err)
	}
	proxy.Stall()
	start := time.Now()
	err := within(t, pingEvery+cfg.KeepaliveTimeout+5*time.Second, "Get on a hung connection", func() error {
		_, err := c.Get(gnmitest.Ctx(t), p)
		return err
	})
	if err != nil {
		t.Fatalf("Get after the connection hung: %v", err)
	}
	if n := tw.Stats().Conns.Accepted; n != 2 {
		t.Errorf("twin accepted %d connections, want 2 (a new one after the hang)", n)
	}
	t.Logf("recovered after %s", time.Since(start))
}

// TestKeepaliveSetOutlastsPingInterval: the switch's enforcement, scaled down from its
// 5 minutes to the interval the client pings at, as the defaults are, tolerates the pings
// of a Set slower than two intervals: the Set succeeds, and the pings that crossed were
// never closer together than the switch allows.
func TestKeepaliveSetOutlastsPingInterval(t *testing.T) {
	skipShort(t)
	t.Parallel()
	tw := gnmitest.Twin(t, switchtwin.Options{KeepaliveMinTime: pingEvery, RecordRPCs: true})
	tw.SlowSet(2*pingEvery + 3*time.Second)
	proxy := newStallProxy(t, tw.Addr())
	cfg := keepaliveConfig(proxy.Addr(), 2*time.Second)
	cfg.SetTimeout = time.Minute
	c := gnmitest.Client(t, cfg)
	ctx, cancel := context.WithTimeout(t.Context(), cfg.SetTimeout)
	defer cancel()
	if _, err := c.Set(ctx, mtu9000("Ethernet0")); err != nil {
		t.Fatalf("Set slower than the ping interval: %v", err)
	}
	var set switchtwin.RPCRecord
	for _, r := range tw.RPCLog() {
		if r.Method == "Set" {
			set = r
		}
	}
	// Until the handler returned the switch sent nothing, so every PING was a keepalive one.
	pings := proxy.PingsBetween(set.Start, set.Start.Add(set.Duration))
	if len(pings) < 2 {
		t.Fatalf("%d keepalive pings during a %s Set, want at least 2", len(pings), set.Duration)
	}
	t.Logf("%d pings during the %s Set, at %v", len(pings), set.Duration, pings)
	for i := 1; i < len(pings); i++ {
		if gap := pings[i].Sub(pings[i-1]); gap < pingEvery {
			t.Errorf("pings %d and %d %s apart, under the switch's %s", i-1, i, gap, pingEvery)
		}
	}
	if st := tw.Stats(); st.Failed["Set"] != 0 || st.Conns.Accepted != 1 {
		t.Errorf("stats = %+v, want one connection and no failed Set", st)
	}
}
