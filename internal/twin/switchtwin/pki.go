package switchtwin

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// PKI is a throw-away certificate authority with one server and one client
// certificate, for running the twin with TLS or mTLS in tests and CI.
// All PEM fields are ready to write to files.
type PKI struct {
	CAPEM         []byte
	ServerCertPEM []byte
	ServerKeyPEM  []byte
	ClientCertPEM []byte
	ClientKeyPEM  []byte

	pool   *x509.CertPool
	server tls.Certificate
	client tls.Certificate
}

// PKIFiles are the paths WriteFiles wrote.
type PKIFiles struct {
	CA, ServerCert, ServerKey, ClientCert, ClientKey string
}

// NewPKI creates a CA (ECDSA P-256, valid 24 h), a server certificate for
// hosts (IP addresses or DNS names; default 127.0.0.1 and localhost) and a
// client certificate with common name clientCN, which SONiC would look up
// in GNMI_CLIENT_CERT.
func NewPKI(clientCN string, hosts ...string) (*PKI, error) {
	if len(hosts) == 0 {
		hosts = []string{"127.0.0.1", "localhost"}
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("switchtwin pki: ca key: %w", err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "switchtwin test ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("switchtwin pki: ca certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("switchtwin pki: ca certificate: %w", err)
	}
	p := &PKI{CAPEM: pemBlock("CERTIFICATE", caDER), pool: x509.NewCertPool()}
	p.pool.AddCert(ca)

	serverTmpl := leafTemplate(2, "switchtwin", now, x509.ExtKeyUsageServerAuth)
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			serverTmpl.IPAddresses = append(serverTmpl.IPAddresses, ip)
		} else {
			serverTmpl.DNSNames = append(serverTmpl.DNSNames, h)
		}
	}
	if p.ServerCertPEM, p.ServerKeyPEM, p.server, err = issue(serverTmpl, ca, caKey); err != nil {
		return nil, fmt.Errorf("switchtwin pki: server certificate: %w", err)
	}
	clientTmpl := leafTemplate(3, clientCN, now, x509.ExtKeyUsageClientAuth)
	if p.ClientCertPEM, p.ClientKeyPEM, p.client, err = issue(clientTmpl, ca, caKey); err != nil {
		return nil, fmt.Errorf("switchtwin pki: client certificate: %w", err)
	}
	return p, nil
}

func leafTemplate(serial int64, cn string, now time.Time, usage x509.ExtKeyUsage) *x509.Certificate {
	return &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
	}
}

func issue(tmpl, ca *x509.Certificate, caKey *ecdsa.PrivateKey) (certPEM, keyPEM []byte, pair tls.Certificate, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, tls.Certificate{}, err
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, tls.Certificate{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, tls.Certificate{}, err
	}
	certPEM, keyPEM = pemBlock("CERTIFICATE", der), pemBlock("EC PRIVATE KEY", keyDER)
	pair, err = tls.X509KeyPair(certPEM, keyPEM)
	return certPEM, keyPEM, pair, err
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// ServerTLS returns a server configuration for Options.TLS; with
// requireClientCert the twin demands a client certificate signed by this CA
// (mTLS).
func (p *PKI) ServerTLS(requireClientCert bool) *tls.Config {
	cfg := &tls.Config{Certificates: []tls.Certificate{p.server}, MinVersion: tls.VersionTLS12}
	if requireClientCert {
		cfg.ClientCAs = p.pool
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg
}

// ClientTLS returns a client configuration that trusts this CA and presents
// the client certificate.
func (p *PKI) ClientTLS() *tls.Config {
	return &tls.Config{RootCAs: p.pool, Certificates: []tls.Certificate{p.client}, MinVersion: tls.VersionTLS12}
}

// WriteFiles writes the PEM files into dir (keys with mode 0600) and returns
// their paths.
func (p *PKI) WriteFiles(dir string) (PKIFiles, error) {
	f := PKIFiles{
		CA:         filepath.Join(dir, "ca.pem"),
		ServerCert: filepath.Join(dir, "server.pem"),
		ServerKey:  filepath.Join(dir, "server-key.pem"),
		ClientCert: filepath.Join(dir, "client.pem"),
		ClientKey:  filepath.Join(dir, "client-key.pem"),
	}
	for _, w := range []struct {
		path string
		data []byte
		mode os.FileMode
	}{
		{f.CA, p.CAPEM, 0o644},
		{f.ServerCert, p.ServerCertPEM, 0o644},
		{f.ServerKey, p.ServerKeyPEM, 0o600},
		{f.ClientCert, p.ClientCertPEM, 0o644},
		{f.ClientKey, p.ClientKeyPEM, 0o600},
	} {
		if err := os.WriteFile(w.path, w.data, w.mode); err != nil {
			return PKIFiles{}, fmt.Errorf("switchtwin pki: write %s: %w", w.path, err)
		}
	}
	return f, nil
}
