package nvue_test

import (
	"context"
	"crypto/tls"
	"strings"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/tlspin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/nvuetwin"
)

// TestCertificatePin reads a Cumulus twin's certificate with its key pinned and no CA bundle,
// as a switch with only its first-boot self-signed certificate is reached, and refuses another
// switch's key.
func TestCertificatePin(t *testing.T) {
	start := func() *nvuetwin.Twin {
		tw, _, err := nvuetwin.StartWithCA(t.TempDir(), nvuetwin.Options{Release: "5.14", Ports: 2, Username: "cumulus", Password: "Passw0rd!"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(tw.Stop)
		return tw
	}
	tw, other := start(), start()
	conn, err := tls.Dial("tcp", tw.Addr(), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // reading the certificate to pin
	if err != nil {
		t.Fatal(err)
	}
	pin := tlspin.Of(conn.ConnectionState().PeerCertificates[0]).String()
	conn.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	read := func(addr string) error {
		c, err := nvue.Dial(nvue.Config{Address: addr, Username: "cumulus", Password: "Passw0rd!", CertificatePin: pin})
		if err != nil {
			return err
		}
		defer c.Close()
		_, err = c.Get(ctx, "", nvue.RevApplied)
		return err
	}
	if err := read(tw.Addr()); err != nil {
		t.Fatalf("read with the switch's pin and no CA: %v", err)
	}
	if err := read(other.Addr()); err == nil || !strings.Contains(err.Error(), "not the pinned one") {
		t.Fatalf("read of a switch with another key = %v, want a refusal naming the pin", err)
	}
	if _, err := nvue.Dial(nvue.Config{Address: tw.Addr(), Username: "cumulus", Password: "x", CertificatePin: "sha256//short"}); err == nil {
		t.Error("Dial took a pin that is no SHA-256")
	}
}
