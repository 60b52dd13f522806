// Package hosttwintest starts host twins for one test: the start, the failure message and
// the stop at the end that every package's twin tests need, in one place.
package hosttwintest

import (
	"context"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
)

// Start starts a fleet for t and stops it when t ends. It fails t, never skips it, when the
// twins cannot start: a missing prerequisite is an error of the machine, not a pass. The
// fast tier (go test -short) leaves twin tests out; see SkipShort.
func Start(t testing.TB, opts hosttwin.Options) *hosttwin.Fleet {
	t.Helper()
	SkipShort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	f, err := hosttwin.Start(ctx, opts)
	if err != nil {
		t.Fatalf("start host twins: %v\nHost twins need Linux, root and OpenSSH's server (/usr/sbin/sshd; make tools installs it).", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := f.Stop(ctx); err != nil {
			t.Errorf("stop host twins: %v", err)
		}
	})
	return f
}

// SkipShort leaves a test that needs host twins (root, OpenSSH, apt, dnf, namespaces) out
// of the fast tier: go test -short, which make unit runs. make test runs every test.
func SkipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs host twins: left out of the fast tier (-short, make unit); make test runs it")
	}
}
