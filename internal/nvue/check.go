package nvue

import (
	"fmt"
	"net"

	"github.com/clusterbid/terraform-provider-roce/internal/configcheck"
	"github.com/clusterbid/terraform-provider-roce/internal/tlspin"
)

// A Rule is one of the checks of [Config.Check].
type Rule int

// The rules of [Config.Check].
const (
	// RuleAddress: Address is not host:port.
	RuleAddress Rule = iota + 1
	// RuleLogin: Username or Password is empty; NVUE needs both (HTTP basic authentication).
	RuleLogin
	// RuleInsecureCA: Insecure skips certificate verification while CAFile names the CAs
	// to verify with, or CertificatePin the key.
	RuleInsecureCA
	// RulePin: CertificatePin is not "sha256//<base64 SHA-256>".
	RulePin
)

// ConfigError is one problem that [Config.Check] found: the rule, the field it is about and
// the fields it depends on, Field first when there is one. For [RuleLogin] Field is the one
// set without its partner, empty when neither is set; Insecure for [RuleInsecureCA]. Err is
// the cause when Address does not parse.
type ConfigError = configcheck.Problem[Rule]

// Validate checks c as [Config.Check] does and joins the problems into one error that names
// the address; nil when there are none. [Dial], and so [Pool.Client], refuses a Config that
// does not validate.
func (c Config) Validate() error {
	if err := configcheck.Join(c.Check()); err != nil {
		return fmt.Errorf("nvue %s: %w", c.Address, err)
	}
	return nil
}

// Check returns every problem of c, in a stable order, without touching the network or the
// file system.
func (c Config) Check() []*ConfigError {
	var l configcheck.List[Rule]
	if _, _, err := net.SplitHostPort(c.Address); err != nil {
		l.Add(RuleAddress, "Address", err, "address: "+err.Error())
	}
	const login = "a username and a password are required"
	switch {
	case c.Username != "" && c.Password == "":
		l.Add(RuleLogin, "Username", nil, login, "Password")
	case c.Username == "" && c.Password != "":
		l.Add(RuleLogin, "Password", nil, login, "Username")
	case c.Username == "":
		l.Add(RuleLogin, "", nil, login, "Username", "Password")
	}
	if c.Insecure && c.CAFile != "" {
		l.Add(RuleInsecureCA, "Insecure", nil, "insecure skips the certificate verification that ca_file is for", "CAFile")
	}
	if c.Insecure && c.CertificatePin != "" {
		l.Add(RuleInsecureCA, "Insecure", nil, "insecure skips the certificate verification that certificate_pin is for", "CertificatePin")
	}
	if c.CertificatePin != "" {
		if _, err := tlspin.Parse(c.CertificatePin); err != nil {
			l.Add(RulePin, "CertificatePin", err, err.Error())
		}
	}
	return l.Problems
}
