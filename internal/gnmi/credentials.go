package gnmi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/clusterbid/terraform-provider-roce/internal/tlspin"
)

// transportCredentials returns TLS (with the CA and client certificate of
// c) or, with c.Insecure, plaintext.
func transportCredentials(c Config) (credentials.TransportCredentials, error) {
	if c.Insecure {
		return insecure.NewCredentials(), nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: c.ServerName}
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("read ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("ca_file %s: no PEM certificates found", c.CAFile)
		}
		cfg.RootCAs = pool
	}
	if c.CertFile != "" {
		pair, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("load cert_file %s and key_file %s: %w", c.CertFile, c.KeyFile, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	if c.CertificatePin != "" {
		pin, err := tlspin.Parse(c.CertificatePin)
		if err != nil {
			return nil, err
		}
		host, _, _ := net.SplitHostPort(c.Address)
		tlspin.Apply(cfg, pin, host)
	}
	return credentials.NewTLS(cfg), nil
}

// passwordCredentials sends SONiC's username and password metadata with
// every call. Over plaintext it is allowed only because Config.Insecure
// opted in.
type passwordCredentials struct {
	username, password string
	plaintextOK        bool
}

// GetRequestMetadata implements credentials.PerRPCCredentials.
func (p passwordCredentials) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"username": p.username, "password": p.password}, nil
}

// RequireTransportSecurity implements credentials.PerRPCCredentials.
func (p passwordCredentials) RequireTransportSecurity() bool { return !p.plaintextOK }
