package gnmi

import (
	"fmt"

	"google.golang.org/grpc/codes"
)

// SetError is a failed Set. Whether the switch applied the request is not known from the
// error alone unless NotSent (a server can fail a Set it applied, and a lost reply looks like
// a failure): the layer that knows the data model re-reads to tell.
type SetError struct {
	// Address is the switch.
	Address string
	// Code is the gRPC code of the failure (status.Code of Err; Canceled or
	// DeadlineExceeded for context errors).
	Code codes.Code
	// Err is the failure of the last attempt.
	Err error
	// NotSent reports that no attempt reached the switch (no connection, or
	// the context ended while another Set was in flight).
	NotSent bool
}

// Error is "gnmi set ADDRESS: cause", with "; nothing was sent" when no attempt reached the
// switch.
func (e *SetError) Error() string {
	if e.NotSent {
		return fmt.Sprintf("gnmi set %s: %v; nothing was sent", e.Address, e.Err)
	}
	return fmt.Sprintf("gnmi set %s: %v", e.Address, e.Err)
}

// Unwrap returns Err, so errors.Is, errors.As and status.Code see the
// underlying failure.
func (e *SetError) Unwrap() error { return e.Err }
