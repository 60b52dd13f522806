package gnmi_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi/gnmitest"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// silentSwitch is a gNMI server that accepts every read and never answers, as a wedged
// gnmi container does; a call ends only when its client gives up.
type silentSwitch struct {
	gpb.UnimplementedGNMIServer
	addr  string
	calls atomic.Int32
}

func (s *silentSwitch) Get(ctx context.Context, _ *gpb.GetRequest) (*gpb.GetResponse, error) {
	s.calls.Add(1)
	<-ctx.Done()
	return nil, status.FromContextError(ctx.Err()).Err()
}

func (s *silentSwitch) Capabilities(ctx context.Context, _ *gpb.CapabilityRequest) (*gpb.CapabilityResponse, error) {
	s.calls.Add(1)
	<-ctx.Done()
	return nil, status.FromContextError(ctx.Err()).Err()
}

// startSilentSwitch serves a silentSwitch on loopback until the test ends.
func startSilentSwitch(t *testing.T) *silentSwitch {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &silentSwitch{addr: lis.Addr().String()}
	srv := grpc.NewServer()
	gpb.RegisterGNMIServer(srv, s)
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.Serve(lis)
	}()
	t.Cleanup(func() {
		srv.Stop()
		<-served
	})
	return s
}

// within returns what call returns, failing the test if it has not returned after d.
func within(t *testing.T, d time.Duration, what string, call func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- call() }()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		t.Fatalf("%s still blocked after %s", what, d)
		return nil
	}
}

// TestReadsTimeOutOnSilentSwitch: each attempt of a read is bounded by GetTimeout, so a switch
// that accepts the call and never answers fails it with DeadlineExceeded naming the switch,
// after the built-in read retry, instead of blocking until the caller gives up.
func TestReadsTimeOutOnSilentSwitch(t *testing.T) {
	sw := startSilentSwitch(t)
	cfg := gnmitest.Fast(sw.addr)
	cfg.GetTimeout = 150 * time.Millisecond // Retries 0: one built-in read retry, two attempts
	c := gnmitest.Client(t, cfg)
	reads := []struct {
		name string
		call func(context.Context) error
	}{
		{"Get", func(ctx context.Context) error {
			_, err := c.Get(ctx, configDB("PORT", "Ethernet0", "mtu"))
			return err
		}},
		{"GetTarget", func(ctx context.Context) error {
			_, err := c.GetTarget(ctx, "COUNTERS_DB", []string{"COUNTERS_PORT_NAME_MAP"})
			return err
		}},
		{"Capabilities", func(ctx context.Context) error {
			_, err := c.Capabilities(ctx)
			return err
		}},
	}
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			before := sw.calls.Load()
			start := time.Now()
			// The caller's context outlives the test's patience: only GetTimeout can end the call.
			err := within(t, 5*time.Second, r.name, func() error { return r.call(gnmitest.Ctx(t)) })
			elapsed := time.Since(start)
			if status.Code(err) != codes.DeadlineExceeded {
				t.Fatalf("err = %v, want DeadlineExceeded", err)
			}
			if !strings.Contains(err.Error(), sw.addr) || !strings.Contains(err.Error(), "no answer within 150ms") {
				t.Errorf("err = %q, want the switch %s and the timeout", err, sw.addr)
			}
			if n := sw.calls.Load() - before; n != 2 {
				t.Errorf("%s sent %d times, want 2 (one read retry)", r.name, n)
			}
			if most := 2*cfg.GetTimeout + time.Second; elapsed < 2*cfg.GetTimeout || elapsed > most {
				t.Errorf("%s took %s, want two attempts of %s (at most %s)", r.name, elapsed, cfg.GetTimeout, most)
			}
		})
	}
}

// TestReadRetryStopsWithCallerContext: the caller's context bounds a read's retries: one
// ending before GetTimeout ends the read at once, without another attempt.
func TestReadRetryStopsWithCallerContext(t *testing.T) {
	sw := startSilentSwitch(t)
	cfg := gnmitest.Fast(sw.addr)
	cfg.GetTimeout, cfg.Retries = 10*time.Second, 3
	c := gnmitest.Client(t, cfg)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	err := within(t, 5*time.Second, "Get", func() error {
		_, err := c.Get(ctx, configDB("PORT", "Ethernet0", "mtu"))
		return err
	})
	if status.Code(err) != codes.DeadlineExceeded || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded from the caller's context", err)
	}
	if strings.Contains(err.Error(), "no answer within") {
		t.Errorf("err = %q blames GetTimeout; the caller's context ended first", err)
	}
	if n := sw.calls.Load(); n != 1 {
		t.Errorf("Get sent %d times after the caller's context ended, want 1", n)
	}
}

// TestGetOverResponseCap: an answer larger than MaxResponseSize fails with ResourceExhausted,
// naming the switch and the cap, and smaller answers still pass.
func TestGetOverResponseCap(t *testing.T) {
	tw := gnmitest.Twin(t, switchtwin.Options{})
	cfg := gnmitest.Fast(tw.Addr())
	cfg.MaxResponseSize = 1 << 10
	c := gnmitest.Client(t, cfg)
	if _, err := c.Get(gnmitest.Ctx(t), configDB("PORT", "Ethernet0", "mtu")); err != nil {
		t.Fatalf("Get of one field under the cap: %v", err)
	}
	_, err := c.Get(gnmitest.Ctx(t), configDB("PORT", "", "")) // 32 ports: several KiB
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("err = %v, want ResourceExhausted", err)
	}
	if !strings.Contains(err.Error(), "gnmi get "+tw.Addr()) || !strings.Contains(err.Error(), "1 KiB cap") {
		t.Errorf("err = %q, want the switch and the 1 KiB cap", err)
	}
	t.Logf("over the cap: %v", err)
}
