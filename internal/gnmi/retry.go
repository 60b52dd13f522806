package gnmi

import (
	"context"
	"math/rand/v2"
	"slices"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// retryableCodes are the gRPC codes worth another attempt: the switch or
// the path to it was busy or away, not the request wrong.
var retryableCodes = []codes.Code{codes.Unavailable, codes.ResourceExhausted, codes.DeadlineExceeded, codes.Aborted}

// Retryable reports whether err carries a gRPC code worth retrying
// (Unavailable, ResourceExhausted, DeadlineExceeded, Aborted). It reads the
// code with status.Code, never the message. Context errors are not
// retryable.
func Retryable(err error) bool {
	if err == nil {
		return false
	}
	if _, ok := status.FromError(err); !ok {
		return false
	}
	return slices.Contains(retryableCodes, status.Code(err))
}

// backoff is exponential backoff with jitter.
type backoff struct {
	base, max time.Duration
}

// delay returns the wait before retry n (0-based): base·2ⁿ capped at max,
// then a uniformly random point in its upper half.
func (b backoff) delay(n int) time.Duration {
	d := b.base
	for i := 0; i < n && d < b.max; i++ {
		d *= 2
	}
	d = min(d, b.max)
	if d <= 1 {
		return d
	}
	half := d / 2
	return half + rand.N(d-half)
}

// sleep waits for d or until ctx ends, whichever comes first, and returns
// ctx.Err() in the second case.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retry calls op until it succeeds, fails with a code that is not
// retryable, retries are used up, or ctx ends; it never sleeps past ctx.
// It returns the attempts made and the last error; when ctx ended during a
// wait, the error wraps both ctx.Err() and the last failure.
func retry(ctx context.Context, retries int, b backoff, op func(context.Context) error) (int, error) {
	for attempt := 0; ; attempt++ {
		err := op(ctx)
		if err == nil || !Retryable(err) || attempt >= retries || ctx.Err() != nil {
			return attempt + 1, err
		}
		if serr := sleep(ctx, b.delay(attempt)); serr != nil {
			return attempt + 1, &interruptedError{ctx: serr, last: err}
		}
	}
}

// interruptedError is a retry loop cut short by its context.
type interruptedError struct {
	ctx, last error
}

func (e *interruptedError) Error() string {
	return e.ctx.Error() + " while waiting to retry; last attempt: " + e.last.Error()
}

// Unwrap returns both the context error and the last failure, so errors.Is
// finds context.Canceled and status.Code finds the gRPC code.
func (e *interruptedError) Unwrap() []error { return []error{e.ctx, e.last} }
