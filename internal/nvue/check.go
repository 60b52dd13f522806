package nvue

import (
	"errors"
	"fmt"
	"net"
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
	// to verify with.
	RuleInsecureCA
)

// ConfigError is one problem that [Config.Check] found. It names the rule, the field it is
// about and the fields it depends on, so that a caller can put the problem on its own
// setting and leave a rule alone while one of its inputs is not known yet. Its text never
// contains a secret.
type ConfigError struct {
	// Rule is the check that failed.
	Rule Rule
	// Field is the field the problem is about, by its Go name: for [RuleLogin] the one set
	// without its partner, empty when neither is set; Insecure for [RuleInsecureCA].
	Field string
	// Fields are the fields the problem depends on, Field first when there is one.
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
		return fmt.Errorf("nvue %s: %w", c.Address, err)
	}
	return nil
}

// Check returns every problem of c, in a stable order, without touching the network or the
// file system.
func (c Config) Check() []*ConfigError {
	var errs []*ConfigError
	add := func(rule Rule, field string, cause error, msg string, fields ...string) {
		errs = append(errs, &ConfigError{Rule: rule, Field: field, Fields: fields, Err: cause, msg: msg})
	}
	if _, _, err := net.SplitHostPort(c.Address); err != nil {
		add(RuleAddress, "Address", err, "address: "+err.Error(), "Address")
	}
	switch {
	case c.Username != "" && c.Password == "":
		add(RuleLogin, "Username", nil, "a username and a password are required", "Username", "Password")
	case c.Username == "" && c.Password != "":
		add(RuleLogin, "Password", nil, "a username and a password are required", "Password", "Username")
	case c.Username == "":
		add(RuleLogin, "", nil, "a username and a password are required", "Username", "Password")
	}
	if c.Insecure && c.CAFile != "" {
		add(RuleInsecureCA, "Insecure", nil, "insecure skips the certificate verification that ca_file is for", "Insecure", "CAFile")
	}
	return errs
}
