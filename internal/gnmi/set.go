package gnmi

import (
	"context"
	"fmt"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// verifyTimeout bounds the re-read after a failed Set; it runs even when
// the caller's context has ended, because knowing whether the switch holds
// the change matters most then.
const verifyTimeout = 30 * time.Second

// SetResult describes a successful Set.
type SetResult struct {
	// Response is the switch's answer.
	Response *gpb.SetResponse
	// Attempts is how many times the request was tried.
	Attempts int
	// Duration is the time from the first attempt to success, waits
	// included.
	Duration time.Duration
}

// Set sends b as one SetRequest, after any Set already in flight to this
// switch has finished. Each attempt is bounded by Config.SetTimeout. An
// attempt that fails before the request leaves the client (no connection
// within DialTimeout) is retried per Config.Retries; one that may have
// reached the switch is retried only with Config.RetrySetAfterSend.
//
// An invalid batch is an error before anything is sent. Every other failure
// is a *SetError, for which the client has re-read the tables b touches to
// tell whether the switch holds what b sent (SetError.Applied).
func (c *Client) Set(ctx context.Context, b *Batch) (*SetResult, error) {
	if err := b.Err(); err != nil {
		return nil, fmt.Errorf("gnmi set %s: %w", c.cfg.Address, err)
	}
	if b.Len() == 0 {
		return nil, fmt.Errorf("gnmi set %s: empty batch", c.cfg.Address)
	}
	select {
	case c.setSlot <- struct{}{}:
		defer func() { <-c.setSlot }()
	case <-ctx.Done():
		return nil, c.setFailed(ctx, b, false, fmt.Errorf("waiting for the Set in flight: %w", ctx.Err()))
	}

	req := b.Request()
	start := time.Now()
	for attempt := 1; ; attempt++ {
		resp, sent, err := c.setOnce(ctx, req)
		if err == nil {
			return &SetResult{Response: resp, Attempts: attempt, Duration: time.Since(start)}, nil
		}
		again := Retryable(err) && ctx.Err() == nil && attempt <= c.cfg.Retries &&
			(!sent || c.cfg.RetrySetAfterSend)
		if !again {
			return nil, c.setFailed(ctx, b, sent, err)
		}
		if serr := sleep(ctx, c.backoff().delay(attempt-1)); serr != nil {
			return nil, c.setFailed(ctx, b, sent, &interruptedError{ctx: serr, last: err})
		}
	}
}

// setOnce makes one attempt; sent reports whether the request may have
// reached the switch.
func (c *Client) setOnce(ctx context.Context, req *gpb.SetRequest) (resp *gpb.SetResponse, sent bool, err error) {
	if err := c.awaitReady(ctx); err != nil {
		return nil, false, err
	}
	actx, cancel := context.WithTimeout(ctx, c.cfg.SetTimeout)
	defer cancel()
	resp, err = c.rpc.Set(actx, req)
	return resp, true, err
}

// setFailed builds the SetError of a failed Set, re-reading the switch when
// the request may have reached it.
func (c *Client) setFailed(ctx context.Context, b *Batch, sent bool, err error) *SetError {
	se := &SetError{Address: c.cfg.Address, Code: codeOf(err), Err: err, NotSent: !sent}
	if !sent {
		se.Applied = ptr(false)
		return se
	}
	vctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), verifyTimeout)
	defer cancel()
	applied, mismatches, verr := c.verify(vctx, b)
	if verr != nil {
		se.VerifyErr = verr
		return se
	}
	se.Applied, se.Mismatches = ptr(applied), mismatches
	return se
}

// verify re-reads the tables b touches and reports whether applying b again
// would change nothing, that is whether the switch holds what b sent, and
// otherwise which paths differ.
func (c *Client) verify(ctx context.Context, b *Batch) (bool, []string, error) {
	current, err := c.GetTables(ctx, b.tables()...)
	if err != nil {
		return false, nil, err
	}
	want := current.Clone()
	b.applyTo(want)
	var mismatches []string
	for _, ch := range sonic.Diff(current, want) {
		mismatches = append(mismatches, ConfigDBPath(ch.Table, ch.Key, ch.Field).short())
	}
	return len(mismatches) == 0, mismatches, nil
}

// applyTo applies b to db with SONiC's semantics, in request order.
func (b *Batch) applyTo(db sonic.DB) {
	for _, o := range b.sorted() {
		t, k, f := o.path.Table(), o.path.Key(), o.path.Field()
		switch {
		case o.kind == opDelete && k == "":
			delete(db, t)
		case o.kind == opDelete && f == "":
			db.DeleteEntry(t, k)
		case o.kind == opDelete:
			db.DeleteField(t, k, f)
		case o.entry != nil:
			db.SetEntry(t, k, o.entry)
		default:
			db.SetField(t, k, f, o.value)
		}
	}
}

// codeOf returns the gRPC code of err, mapping bare context errors to
// Canceled or DeadlineExceeded.
func codeOf(err error) codes.Code {
	if s, ok := status.FromError(err); ok {
		return s.Code()
	}
	return status.FromContextError(err).Code()
}

func ptr[T any](v T) *T { return &v }
