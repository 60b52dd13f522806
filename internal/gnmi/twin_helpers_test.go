package gnmi

import (
	"context"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// newTwin starts a switch twin on loopback for the test.
func newTwin(t *testing.T, opts switchtwin.Options) *switchtwin.Twin {
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

// fast is a plaintext Config with short timeouts and backoff for tests.
func fast(addr string) Config {
	return Config{
		Address:       addr,
		Insecure:      true,
		DialTimeout:   2 * time.Second,
		SetTimeout:    5 * time.Second,
		RetryDelay:    5 * time.Millisecond,
		RetryMaxDelay: 20 * time.Millisecond,
	}
}

// newClient dials cfg and closes the client when the test ends.
func newClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	c, err := Dial(cfg)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// pkiFiles writes a fresh PKI into a temporary directory.
func pkiFiles(t *testing.T) (*switchtwin.PKI, switchtwin.PKIFiles) {
	t.Helper()
	pki, err := switchtwin.NewPKI("roce-provider")
	if err != nil {
		t.Fatal(err)
	}
	files, err := pki.WriteFiles(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return pki, files
}
