package gnmi

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/configcheck"
	"github.com/clusterbid/terraform-provider-roce/internal/tlspin"
)

// A Rule is one of the checks of [Config.Check].
type Rule int

// The rules of [Config.Check].
const (
	// RuleAddress: Address is empty, not host:port, or its port is outside 1-65535.
	RuleAddress Rule = iota + 1
	// RuleCredentials: one of Username and Password is set without the other.
	RuleCredentials
	// RuleClientCertificate: one of CertFile and KeyFile is set without the other.
	RuleClientCertificate
	// RuleInsecureTLS: Insecure turns TLS off while CAFile, CertFile, KeyFile, ServerName or
	// CertificatePin is set.
	RuleInsecureTLS
	// RulePin: CertificatePin is not "sha256//<base64 SHA-256>".
	RulePin
	// RuleNegative: DialTimeout, SetTimeout, GetTimeout, KeepaliveTime, KeepaliveTimeout,
	// RetryDelay, RetryMaxDelay, Retries or MaxResponseSize is negative.
	RuleNegative
)

// ConfigError is one problem that [Config.Check] found: the rule, the field it is about and
// the fields whose values make the problem, Field first. Field is the one set without its
// partner ([RuleCredentials], [RuleClientCertificate]), Insecure ([RuleInsecureTLS]) or the
// negative one ([RuleNegative]); for a pair Fields are both fields, for [RuleInsecureTLS]
// Insecure and each TLS field that is set. Err is the cause when Address does not parse.
type ConfigError = configcheck.Problem[Rule]

// Validate checks c as [Config.Check] does and joins the problems into one error that names
// the address; nil when there are none. [Dial], and so [Pool.Client], refuses a Config that
// does not validate.
func (c Config) Validate() error {
	if err := configcheck.Join(c.Check()); err != nil {
		return fmt.Errorf("gnmi config %s: %w", c.Address, err)
	}
	return nil
}

// Check returns every problem of c, in a stable order, without touching the network or the
// file system. The zero value of a duration is valid (it means the default).
func (c Config) Check() []*ConfigError {
	var l configcheck.List[Rule]
	if c.Address == "" {
		l.Add(RuleAddress, "Address", nil, "address is required (host:port; SONiC uses 8080 or 50051)")
	} else if host, port, err := net.SplitHostPort(c.Address); err != nil {
		l.Add(RuleAddress, "Address", err, fmt.Sprintf("address %q: want host:port: %v", c.Address, err))
	} else if n, err := strconv.Atoi(port); host == "" || err != nil || n < 1 || n > 65535 {
		l.Add(RuleAddress, "Address", nil, fmt.Sprintf("address %q: want a host and a port in 1..65535", c.Address))
	}
	if set, unset, ok := half(c.Username, c.Password, "Username", "Password"); ok {
		l.Add(RuleCredentials, set, nil, "username and password must be set together", unset)
	}
	if set, unset, ok := half(c.CertFile, c.KeyFile, "CertFile", "KeyFile"); ok {
		l.Add(RuleClientCertificate, set, nil, "cert_file and key_file must be set together", unset)
	}
	if c.Insecure {
		var tls []string
		for _, f := range []struct{ name, v string }{{"CAFile", c.CAFile}, {"CertFile", c.CertFile}, {"KeyFile", c.KeyFile}, {"ServerName", c.ServerName}, {"CertificatePin", c.CertificatePin}} {
			if f.v != "" {
				tls = append(tls, f.name)
			}
		}
		if len(tls) > 0 {
			l.Add(RuleInsecureTLS, "Insecure", nil, "insecure (plaintext) excludes ca_file, cert_file, key_file, server_name and certificate_pin", tls...)
		}
	}
	if c.CertificatePin != "" {
		if _, err := tlspin.Parse(c.CertificatePin); err != nil {
			l.Add(RulePin, "CertificatePin", err, err.Error())
		}
	}
	for _, d := range []struct {
		field, name string
		v           time.Duration
	}{
		{"DialTimeout", "dial_timeout", c.DialTimeout}, {"SetTimeout", "set_timeout", c.SetTimeout},
		{"GetTimeout", "get_timeout", c.GetTimeout}, {"KeepaliveTime", "keepalive_time", c.KeepaliveTime},
		{"KeepaliveTimeout", "keepalive_timeout", c.KeepaliveTimeout},
		{"RetryDelay", "retry_delay", c.RetryDelay}, {"RetryMaxDelay", "retry_max_delay", c.RetryMaxDelay},
	} {
		if d.v < 0 {
			l.Add(RuleNegative, d.field, nil, fmt.Sprintf("%s %s must not be negative", d.name, d.v))
		}
	}
	if c.Retries < 0 {
		l.Add(RuleNegative, "Retries", nil, fmt.Sprintf("retries %d must not be negative", c.Retries))
	}
	if c.MaxResponseSize < 0 {
		l.Add(RuleNegative, "MaxResponseSize", nil, fmt.Sprintf("max_response_size %d must not be negative", c.MaxResponseSize))
	}
	return l.Problems
}

// half reports whether exactly one of a pair of fields is set, and names the set one and the
// other.
func half(a, b, nameA, nameB string) (set, unset string, ok bool) {
	switch {
	case a != "" && b == "":
		return nameA, nameB, true
	case a == "" && b != "":
		return nameB, nameA, true
	}
	return "", "", false
}
