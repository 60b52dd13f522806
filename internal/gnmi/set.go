package gnmi

import (
	"context"
	"fmt"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

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

// Set sends req, after any Set already in flight to this switch has finished: a switch
// applies one configuration transaction at a time (SONiC's config lock), so the client keeps
// one in flight. Each attempt is bounded by Config.SetTimeout. An attempt that fails before
// the request leaves the client (no connection within DialTimeout) is retried per
// Config.Retries; one that may have reached the switch is retried only with
// Config.RetrySetAfterSend. Every failure is a *SetError, whose NotSent says whether the
// switch can have seen the request.
func (c *Client) Set(ctx context.Context, req *gpb.SetRequest) (*SetResult, error) {
	if len(req.GetDelete())+len(req.GetReplace())+len(req.GetUpdate())+len(req.GetUnionReplace()) == 0 {
		return nil, fmt.Errorf("gnmi set %s: empty request", c.cfg.Address)
	}
	select {
	case c.setSlot <- struct{}{}:
		defer func() { <-c.setSlot }()
	case <-ctx.Done():
		return nil, c.setError(false, fmt.Errorf("waiting for the Set in flight: %w", ctx.Err()))
	}
	start := time.Now()
	for attempt := 1; ; attempt++ {
		resp, sent, err := c.setOnce(ctx, req)
		if err == nil {
			return &SetResult{Response: resp, Attempts: attempt, Duration: time.Since(start)}, nil
		}
		again := Retryable(err) && ctx.Err() == nil && attempt <= c.cfg.Retries &&
			(!sent || c.cfg.RetrySetAfterSend)
		if !again {
			return nil, c.setError(sent, err)
		}
		if serr := sleep(ctx, c.backoff().delay(attempt-1)); serr != nil {
			return nil, c.setError(sent, &interruptedError{ctx: serr, last: err})
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

func (c *Client) setError(sent bool, err error) *SetError {
	return &SetError{Address: c.cfg.Address, Code: codeOf(err), Err: err, NotSent: !sent}
}

// codeOf returns the gRPC code of err, mapping bare context errors to
// Canceled or DeadlineExceeded.
func codeOf(err error) codes.Code {
	if s, ok := status.FromError(err); ok {
		return s.Code()
	}
	return status.FromContextError(err).Code()
}
