package gnmi

import (
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
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

// explainCap adds the answer cap to a ResourceExhausted failure of a read: grpc fails an
// answer over Config.MaxResponseSize with that code (the switch can also send it when
// overloaded, so the note says both). Other errors pass unchanged.
func (c *Client) explainCap(err error) error {
	if status.Code(err) != codes.ResourceExhausted {
		return err
	}
	return fmt.Errorf("%w (the switch is overloaded, or its answer exceeds the client's %s cap, MaxResponseSize)", err, byteSize(c.cfg.MaxResponseSize))
}

// byteSize writes n bytes in MiB or KiB when it is a whole number of them.
func byteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d-byte", n)
}
