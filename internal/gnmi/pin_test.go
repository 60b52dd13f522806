package gnmi_test

import (
	"crypto/tls"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi/gnmitest"
	"github.com/clusterbid/terraform-provider-roce/internal/tlspin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// serverPin reads the key pin of the certificate a TLS server at addr presents, as a user
// would with openssl s_client.
func serverPin(t *testing.T, addr string) string {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}}) //nolint:gosec // reading the certificate to pin
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return tlspin.Of(conn.ConnectionState().PeerCertificates[0]).String()
}

// TestCertificatePin connects with the switch's key pinned and no CA bundle, and refuses a
// switch whose key is another; with the CA bundle too, both must hold.
func TestCertificatePin(t *testing.T) {
	pki, files := gnmitest.PKIFiles(t)
	tw := gnmitest.Twin(t, switchtwin.Options{Username: "admin", Password: "s3cret", TLS: pki.ServerTLS(false)})
	cfg := gnmitest.Fast(tw.Addr())
	cfg.Insecure, cfg.Username, cfg.Password = false, "admin", "s3cret"
	cfg.CertificatePin = serverPin(t, tw.Addr())
	if _, err := gnmitest.Client(t, cfg).Capabilities(gnmitest.Ctx(t)); err != nil {
		t.Fatalf("Capabilities with the switch's pin and no CA: %v", err)
	}
	withCA := cfg
	withCA.CAFile = files.CA
	if _, err := gnmitest.Client(t, withCA).Capabilities(gnmitest.Ctx(t)); err != nil {
		t.Fatalf("Capabilities with the pin and the CA: %v", err)
	}

	otherPKI, _ := gnmitest.PKIFiles(t)
	other := gnmitest.Twin(t, switchtwin.Options{Username: "admin", Password: "s3cret", TLS: otherPKI.ServerTLS(false)})
	cfg.Address = other.Addr()
	cfg.Retries = 0
	_, err := gnmitest.Client(t, cfg).Capabilities(gnmitest.Ctx(t))
	if err == nil || !strings.Contains(err.Error(), "not the pinned one") {
		t.Fatalf("Capabilities of a switch with another key = %v, want a refusal naming the pin", err)
	}
}
