package gnmi

import "time"

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
