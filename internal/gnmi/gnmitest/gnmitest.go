// Package gnmitest starts a SONiC switch twin and a gNMI client to it for tests of the
// packages that talk gNMI.
package gnmitest

import (
	"context"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// Twin starts a switch twin on loopback and stops it when the test ends.
func Twin(t *testing.T, opts switchtwin.Options) *switchtwin.Twin {
	t.Helper()
	tw, err := switchtwin.New(opts)
	if err != nil {
		t.Fatalf("switchtwin.New: %v", err)
	}
	if _, err := tw.Start(""); err != nil {
		t.Fatalf("switchtwin.Start: %v", err)
	}
	t.Cleanup(tw.Stop)
	return tw
}

// Fast is a plaintext Config with short timeouts and backoff.
func Fast(addr string) gnmi.Config {
	return gnmi.Config{
		Address:       addr,
		Insecure:      true,
		DialTimeout:   2 * time.Second,
		SetTimeout:    5 * time.Second,
		RetryDelay:    5 * time.Millisecond,
		RetryMaxDelay: 20 * time.Millisecond,
	}
}

// Client dials cfg and closes the client when the test ends.
func Client(t *testing.T, cfg gnmi.Config) *gnmi.Client {
	t.Helper()
	c, err := gnmi.Dial(cfg)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Ctx is a context that ends after 20 s or with the test.
func Ctx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// WaitFor polls cond every 5 ms until it holds, failing the test after d.
func WaitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// PKIFiles writes a fresh PKI (a CA, a server and a client certificate) into a temporary
// directory.
func PKIFiles(t *testing.T) (*switchtwin.PKI, switchtwin.PKIFiles) {
	t.Helper()
	pki, err := switchtwin.NewPKI("roce-provider-test")
	if err != nil {
		t.Fatal(err)
	}
	files, err := pki.WriteFiles(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return pki, files
}
