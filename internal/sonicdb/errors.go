package sonicdb

import (
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
)

// maxMismatchesShown limits the paths SetError.Error lists.
const maxMismatchesShown = 5

// SetError is a failed Set of a Batch, with what a re-read of the switch found.
//
// SONiC can report a failed Set that it applied anyway (sonic-gnmi#238), so the error alone
// does not say whether the switch changed: Applied does. When Code is DeadlineExceeded or
// Canceled the switch may still be working on the request (GCU keeps going after the client
// gives up), so Applied false then means "not yet": read again before relying on it.
type SetError struct {
	*gnmi.SetError
	// Applied is true when the switch holds everything the batch sent, false when it does
	// not (always when nothing was sent), and nil when the re-read failed (VerifyErr).
	Applied *bool
	// Mismatches lists the paths that differ from what was sent, when Applied is false
	// after a re-read.
	Mismatches []string
	// VerifyErr is why the re-read failed.
	VerifyErr error
}

// Error describes the failure and the re-read, e.g.
// "gnmi set 10.0.0.1:8080: rpc error: ...; re-read: the switch holds the change anyway".
func (e *SetError) Error() string {
	var b strings.Builder
	b.WriteString(e.SetError.Error())
	switch {
	case e.NotSent:
	case e.Applied == nil:
		fmt.Fprintf(&b, "; re-read failed, the switch may or may not hold the change: %v", e.VerifyErr)
	case *e.Applied:
		b.WriteString("; re-read: the switch holds the change anyway")
	default:
		shown := e.Mismatches
		if len(shown) > maxMismatchesShown {
			shown = shown[:maxMismatchesShown]
		}
		fmt.Fprintf(&b, "; re-read: the change is not on the switch (%d paths differ: %s", len(e.Mismatches), strings.Join(shown, ", "))
		if len(e.Mismatches) > len(shown) {
			b.WriteString(", ...")
		}
		b.WriteString(")")
	}
	return b.String()
}

// Unsettled reports whether the switch may hold some or all of the batch, now or later: the
// re-read failed, or the call ended without the switch's answer (a deadline, a cancel, a lost
// connection), after which SONiC may still be applying it (GCU keeps going when its client
// gives up). A Set the switch answered with an error and whose re-read shows it absent is
// settled: SONiC applies a SetRequest as one transaction.
func (e *SetError) Unsettled() bool {
	switch {
	case e.NotSent:
		return false
	case e.Applied == nil || *e.Applied:
		return true
	}
	switch e.Code {
	case codes.DeadlineExceeded, codes.Canceled, codes.Unavailable:
		return true
	}
	return false
}

// Unwrap returns the transport's error, so errors.As finds a *gnmi.SetError and status.Code
// the gRPC status.
func (e *SetError) Unwrap() error { return e.SetError }
