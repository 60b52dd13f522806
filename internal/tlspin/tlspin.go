// Package tlspin checks a server certificate against a pinned public key: the SHA-256 of its
// SubjectPublicKeyInfo, written as curl's --pinnedpubkey takes it ("sha256//<base64>",
// RFC 7469's pin-sha256 value). A pin trusts one key whoever signed it, which is how to verify
// a switch that has only the self-signed certificate Cumulus makes at first boot.
package tlspin

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

const prefix = "sha256//"

// Pin is one pinned key.
type Pin [sha256.Size]byte

// Parse reads "sha256//<base64 of the SHA-256 of the DER SubjectPublicKeyInfo>".
func Parse(s string) (Pin, error) {
	var p Pin
	b64, ok := strings.CutPrefix(strings.TrimSpace(s), prefix)
	if !ok {
		return p, fmt.Errorf("certificate pin %q: want %s<base64 SHA-256 of the public key>", s, prefix)
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(raw) != sha256.Size {
		return p, fmt.Errorf("certificate pin %q: want the base64 of a 32-byte SHA-256", s)
	}
	copy(p[:], raw)
	return p, nil
}

// Of is the pin of cert's public key.
func Of(cert *x509.Certificate) Pin { return sha256.Sum256(cert.RawSubjectPublicKeyInfo) }

func (p Pin) String() string { return prefix + base64.StdEncoding.EncodeToString(p[:]) }

// ErrMismatch is a server certificate whose key is not the pinned one.
var ErrMismatch = errors.New("the server's certificate key is not the pinned one")

// Apply makes cfg accept only a server whose leaf certificate carries the pinned key. The
// chain is still verified when cfg has its own RootCAs (a CA bundle was given), for host (an
// address or name: cfg.ServerName when set, else the dialled host); without one, the pin
// alone is the trust, as a pinned SSH host key is, and the system roots are not consulted.
func Apply(cfg *tls.Config, pin Pin, host string) {
	if cfg.ServerName != "" {
		host = cfg.ServerName
	}
	verifyChain := cfg.RootCAs != nil
	cfg.InsecureSkipVerify = true //nolint:gosec // replaced by VerifyConnection below
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("the server sent no certificate")
		}
		leaf := cs.PeerCertificates[0]
		if got := Of(leaf); got != pin {
			return fmt.Errorf("%w: it is %s, the pin is %s", ErrMismatch, got, pin)
		}
		if !verifyChain {
			return nil
		}
		opts := x509.VerifyOptions{Roots: cfg.RootCAs, DNSName: host, Intermediates: x509.NewCertPool()}
		for _, c := range cs.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
		_, err := leaf.Verify(opts)
		return err
	}
}
