package tlspin

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"
)

// selfSigned is a certificate like the one Cumulus makes at first boot: signed by itself,
// for a name the client does not dial.
func selfSigned(t *testing.T) (tls.Certificate, *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cumulus"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"cumulus"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, cert
}

// dial runs one TLS handshake over loopback against a server with cert.
func dial(t *testing.T, cert tls.Certificate, client *tls.Config) error {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			if tc, ok := c.(*tls.Conn); ok {
				_ = tc.Handshake()
			}
			c.Close()
		}
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return tls.Client(conn, client).Handshake()
}

func TestPinTrustsOneKey(t *testing.T) {
	cert, leaf := selfSigned(t)
	other, _ := selfSigned(t)
	pin, err := Parse(Of(leaf).String())
	if err != nil || pin != Of(leaf) {
		t.Fatalf("Parse(String()) = %v, %v", pin, err)
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: "10.0.0.1"}
	Apply(cfg, pin, "10.0.0.1")
	if err := dial(t, cert, cfg); err != nil {
		t.Errorf("the pinned self-signed key was refused: %v", err)
	}
	err = dial(t, other, cfg)
	if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), pin.String()) {
		t.Errorf("another key: %v, want ErrMismatch naming the pin", err)
	}
	// With a CA bundle the chain is verified too: a self-signed key the bundle lacks fails.
	withCA := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: "cumulus", RootCAs: x509.NewCertPool()}
	Apply(withCA, pin, "10.0.0.1")
	if err := dial(t, cert, withCA); err == nil {
		t.Error("the pin passed a certificate the CA bundle does not sign")
	}
}

func TestParseRefuses(t *testing.T) {
	for _, s := range []string{"", "sha256//", "sha256//not base64!", "sha256//AAAA", "pin-sha256=\"x\"", "sha1//AAAAAAAAAAAAAAAAAAAAAAAAAAA="} {
		if _, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) accepted", s)
		}
	}
}

// TestPinWithCAChecksTheName: with a CA bundle, the pinned key's certificate must also be
// for the host dialled, an IP address included (Go leaves the SNI empty for one).
func TestPinWithCAChecksTheName(t *testing.T) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ca"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leafTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "other.example"}, DNSNames: []string{"other.example"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	for host, ok := range map[string]bool{"127.0.0.1": false, "other.example": true} {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: roots}
		Apply(cfg, Of(leaf), host)
		if err := dial(t, cert, cfg); (err == nil) != ok {
			t.Errorf("dialling %s with the pin and the CA: %v, want ok %v", host, err, ok)
		}
	}
}
