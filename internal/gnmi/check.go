package gnmi

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"
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
	// RuleInsecureTLS: Insecure turns TLS off while CAFile, CertFile, KeyFile or ServerName
	// is set.
	RuleInsecureTLS
	// RuleNegative: DialTimeout, SetTimeout, RetryDelay, RetryMaxDelay or Retries is
	// negative.
	RuleNegative
)

// ConfigError is one problem that [Config.Check] found. It names the rule, the field to
// fix and the fields whose values make the problem, so that a caller can put the problem on
// its own setting and leave a rule alone while one of its inputs is not known yet. Its text
// never contains a secret.
type ConfigError struct {
	// Rule is the check that failed.
	Rule Rule
	// Field is the field the problem is about, by its Go name: the one set without its
	// partner ([RuleCredentials], [RuleClientCertificate]), Insecure ([RuleInsecureTLS]),
	// the negative one ([RuleNegative]).
	Field string
	// Fields are the fields the problem depends on, Field first: for a pair both fields,
	// for [RuleInsecureTLS] Insecure and each TLS field that is set.
	Fields []string
	// Err is the cause when Address does not parse; nil otherwise.
	Err error

	msg string
}

// Error implements error.
func (e *ConfigError) Error() string { return e.msg }

// Unwrap returns the cause, if any.
func (e *ConfigError) Unwrap() error { return e.Err }

// Validate checks c as [Config.Check] does and joins the problems into one error that names
// the address; nil when there are none. [Dial], and so [Pool.Client], refuses a Config that
// does not validate.
func (c Config) Validate() error {
	var errs []error
	for _, e := range c.Check() {
		errs = append(errs, e)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("gnmi config %s: %w", c.Address, err)
	}
	return nil
}

// Check returns every problem of c, in a stable order, without touching the network or the
// file system. The zero value of a duration is valid (it means the default).
func (c Config) Check() []*ConfigError {
	var errs []*ConfigError
	add := func(rule Rule, cause error, msg string, fields ...string) {
		errs = append(errs, &ConfigError{Rule: rule, Field: fields[0], Fields: fields, Err: cause, msg: msg})
	}
	if c.Address == "" {
		add(RuleAddress, nil, "address is required (host:port; SONiC uses 8080 or 50051)", "Address")
	} else if host, port, err := net.SplitHostPort(c.Address); err != nil {
		add(RuleAddress, err, fmt.Sprintf("address %q: want host:port: %v", c.Address, err), "Address")
	} else if n, err := strconv.Atoi(port); host == "" || err != nil || n < 1 || n > 65535 {
		add(RuleAddress, nil, fmt.Sprintf("address %q: want a host and a port in 1..65535", c.Address), "Address")
	}
	if f, ok := half(c.Username, c.Password, "Username", "Password"); ok {
		add(RuleCredentials, nil, "username and password must be set together", f...)
	}
	if f, ok := half(c.CertFile, c.KeyFile, "CertFile", "KeyFile"); ok {
		add(RuleClientCertificate, nil, "cert_file and key_file must be set together", f...)
	}
	if c.Insecure {
		fields := []string{"Insecure"}
		for _, f := range []struct{ name, v string }{{"CAFile", c.CAFile}, {"CertFile", c.CertFile}, {"KeyFile", c.KeyFile}, {"ServerName", c.ServerName}} {
			if f.v != "" {
				fields = append(fields, f.name)
			}
		}
		if len(fields) > 1 {
			add(RuleInsecureTLS, nil, "insecure (plaintext) excludes ca_file, cert_file, key_file and server_name", fields...)
		}
	}
	for _, d := range []struct {
		field, name string
		v           time.Duration
	}{{"DialTimeout", "dial_timeout", c.DialTimeout}, {"SetTimeout", "set_timeout", c.SetTimeout}, {"RetryDelay", "retry_delay", c.RetryDelay}, {"RetryMaxDelay", "retry_max_delay", c.RetryMaxDelay}} {
		if d.v < 0 {
			add(RuleNegative, nil, fmt.Sprintf("%s %s must not be negative", d.name, d.v), d.field)
		}
	}
	if c.Retries < 0 {
		add(RuleNegative, nil, fmt.Sprintf("retries %d must not be negative", c.Retries), "Retries")
	}
	return errs
}

// half reports whether exactly one of a pair of fields is set, and names the set one first.
func half(a, b, nameA, nameB string) ([]string, bool) {
	switch {
	case a != "" && b == "":
		return []string{nameA, nameB}, true
	case a == "" && b != "":
		return []string{nameB, nameA}, true
	}
	return nil, false
}
