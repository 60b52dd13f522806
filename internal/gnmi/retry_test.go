package gnmi

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestRetryable(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{status.Error(codes.Unavailable, "x"), true},
		{status.Error(codes.ResourceExhausted, "x"), true},
		{status.Error(codes.DeadlineExceeded, "x"), true},
		{status.Error(codes.Aborted, "x"), true},
		{fmt.Errorf("wrapped: %w", status.Error(codes.Unavailable, "x")), true},
		{status.Error(codes.InvalidArgument, "connection unavailable"), false}, // the message does not count
		{status.Error(codes.Unknown, "x"), false},
		{status.Error(codes.Unauthenticated, "x"), false},
		{status.Error(codes.NotFound, "x"), false},
		{context.DeadlineExceeded, false},
		{errors.New("unavailable"), false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := Retryable(tt.err); got != tt.want {
			t.Errorf("Retryable(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

func TestBackoffDelay(t *testing.T) {
	b := backoff{base: 100 * time.Millisecond, max: time.Second}
	for n, want := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, time.Second, time.Second} {
		for range 20 {
			if d := b.delay(n); d < want/2 || d > want {
				t.Fatalf("delay(%d) = %s, want in [%s, %s]", n, d, want/2, want)
			}
		}
	}
}

func TestRetryStopsOnCode(t *testing.T) {
	fast := backoff{base: time.Millisecond, max: time.Millisecond}
	tests := []struct {
		name     string
		errs     []error
		retries  int
		attempts int
		code     codes.Code
	}{
		{"unavailable then success", []error{status.Error(codes.Unavailable, "x"), nil}, 3, 2, codes.OK},
		{"invalid argument is final", []error{status.Error(codes.InvalidArgument, "x"), nil}, 3, 1, codes.InvalidArgument},
		{"retries used up", []error{status.Error(codes.Aborted, "x"), status.Error(codes.Aborted, "x"), status.Error(codes.Aborted, "x")}, 2, 3, codes.Aborted},
		{"no retries", []error{status.Error(codes.Unavailable, "x"), nil}, 0, 1, codes.Unavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			attempts, err := retry(context.Background(), tt.retries, fast, func(context.Context) error {
				calls++
				return tt.errs[calls-1]
			})
			if attempts != tt.attempts || calls != tt.attempts {
				t.Errorf("attempts = %d, calls = %d, want %d", attempts, calls, tt.attempts)
			}
			if status.Code(err) != tt.code {
				t.Errorf("err = %v, want code %s", err, tt.code)
			}
		})
	}
}

func TestRetryBackoffStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := retry(ctx, 10, backoff{base: time.Hour, max: time.Hour}, func(context.Context) error {
		return status.Error(codes.Unavailable, "switch away")
	})
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Fatalf("retry slept %s past cancellation", elapsed)
	}
	if !errors.Is(err, context.Canceled) || status.Code(err) != codes.Unavailable {
		t.Errorf("err = %v, want context.Canceled wrapping the last Unavailable", err)
	}
}
