package gnmi

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"
)

// Defaults applied to zero Config fields.
const (
	DefaultDialTimeout   = 10 * time.Second
	DefaultSetTimeout    = 10 * time.Minute
	DefaultRetryDelay    = 200 * time.Millisecond
	DefaultRetryMaxDelay = 5 * time.Second
)

// DefaultRetries is the retry count for a caller to put in [Config.Retries] when its own
// configuration names none. A zero Retries means no retries, so Config does not apply it.
const DefaultRetries = 3

// Config says how to reach and authenticate to one switch.
type Config struct {
	// Address is host:port of the switch's gNMI server. SONiC has no safe
	// default port (8080 and 50051 are both common), so it is required.
	Address string
	// Username and Password are sent as gRPC metadata "username" and
	// "password" with every call (SONiC password authentication).
	Username string
	Password string
	// CAFile is a PEM bundle of the CAs that sign the switch's certificate;
	// empty means the system roots.
	CAFile string
	// CertFile and KeyFile are a PEM client certificate and key for mTLS
	// (SONiC cert authentication: the certificate's CN needs the role
	// gnmi_config_db_readwrite in GNMI_CLIENT_CERT).
	CertFile string
	KeyFile  string
	// ServerName overrides the name checked against the switch's
	// certificate, for switches reached by IP address.
	ServerName string
	// Insecure sends everything in plaintext, the password included. It is
	// an explicit opt-in for labs and twins only and excludes the TLS
	// settings.
	Insecure bool
	// DialTimeout bounds establishing a connection. Default
	// DefaultDialTimeout.
	DialTimeout time.Duration
	// SetTimeout bounds one Set call; GCU-validated Sets are slow. Default
	// DefaultSetTimeout.
	SetTimeout time.Duration
	// Retries is how many times a call failing with Unavailable,
	// ResourceExhausted, DeadlineExceeded or Aborted is retried; 0 means
	// never, except that reads are always retried once so that a connection
	// the switch closed does not fail the next call. A Set that may have
	// reached the switch is retried only with RetrySetAfterSend.
	Retries int
	// RetrySetAfterSend lets Set retry failures that happened after the
	// request left the client. CONFIG_DB operations are idempotent, but a
	// Set can be applied and still report failure (sonic-gnmi#238), so this
	// is off by default.
	RetrySetAfterSend bool
	// RetryDelay is the first backoff delay; each retry doubles it, up to
	// RetryMaxDelay, with jitter. Defaults DefaultRetryDelay and
	// DefaultRetryMaxDelay.
	RetryDelay    time.Duration
	RetryMaxDelay time.Duration
}

// Validate reports every problem of c, joined.
func (c Config) Validate() error {
	var errs []error
	if c.Address == "" {
		errs = append(errs, errors.New("address is required (host:port; SONiC uses 8080 or 50051)"))
	} else if host, port, err := net.SplitHostPort(c.Address); err != nil {
		errs = append(errs, fmt.Errorf("address %q: want host:port: %w", c.Address, err))
	} else if n, err := strconv.Atoi(port); host == "" || err != nil || n < 1 || n > 65535 {
		errs = append(errs, fmt.Errorf("address %q: want a host and a port in 1..65535", c.Address))
	}
	if (c.Username == "") != (c.Password == "") {
		errs = append(errs, errors.New("username and password must be set together"))
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		errs = append(errs, errors.New("cert_file and key_file must be set together"))
	}
	if c.Insecure && (c.CAFile != "" || c.CertFile != "" || c.KeyFile != "" || c.ServerName != "") {
		errs = append(errs, errors.New("insecure (plaintext) excludes ca_file, cert_file, key_file and server_name"))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"dial_timeout", c.DialTimeout}, {"set_timeout", c.SetTimeout}, {"retry_delay", c.RetryDelay}, {"retry_max_delay", c.RetryMaxDelay}} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("%s %s must not be negative", d.name, d.v))
		}
	}
	if c.Retries < 0 {
		errs = append(errs, fmt.Errorf("retries %d must not be negative", c.Retries))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("gnmi config %s: %w", c.Address, err)
	}
	return nil
}

// withDefaults returns c with zero durations replaced by the defaults.
func (c Config) withDefaults() Config {
	if c.DialTimeout == 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	if c.SetTimeout == 0 {
		c.SetTimeout = DefaultSetTimeout
	}
	if c.RetryDelay == 0 {
		c.RetryDelay = DefaultRetryDelay
	}
	if c.RetryMaxDelay == 0 {
		c.RetryMaxDelay = DefaultRetryMaxDelay
	}
	if c.RetryMaxDelay < c.RetryDelay {
		c.RetryMaxDelay = c.RetryDelay
	}
	return c
}
