package sonicdb

import (
	"errors"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
)

func TestSetErrorUnsettled(t *testing.T) {
	yes, no := ptr(true), ptr(false)
	for _, tc := range []struct {
		name    string
		err     *SetError
		unknown bool
	}{
		{"never sent", &SetError{SetError: &gnmi.SetError{NotSent: true, Code: codes.Unavailable}, Applied: no}, false},
		{"refused by the switch", &SetError{SetError: &gnmi.SetError{Code: codes.Unknown}, Applied: no}, false},
		{"cancelled, not there yet", &SetError{SetError: &gnmi.SetError{Code: codes.Canceled}, Applied: no}, true},
		{"deadline, not there yet", &SetError{SetError: &gnmi.SetError{Code: codes.DeadlineExceeded}, Applied: no}, true},
		{"connection lost", &SetError{SetError: &gnmi.SetError{Code: codes.Unavailable}, Applied: no}, true},
		{"re-read failed", &SetError{SetError: &gnmi.SetError{Code: codes.Unknown}, VerifyErr: errors.New("x")}, true},
		{"applied anyway", &SetError{SetError: &gnmi.SetError{Code: codes.Unknown}, Applied: yes}, true},
	} {
		if got := tc.err.Unsettled(); got != tc.unknown {
			t.Errorf("%s: Unsettled = %v, want %v", tc.name, got, tc.unknown)
		}
	}
}
