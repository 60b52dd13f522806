package gnmi

import "time"

// Defaults applied to zero Config fields.
const (
	DefaultDialTimeout = 10 * time.Second
	DefaultSetTimeout  = 10 * time.Minute
	// DefaultGetTimeout bounds one Get or Capabilities attempt, as package nvue bounds one
	// request (nvue.DefaultRequestTimeout).
	DefaultGetTimeout    = 30 * time.Second
	DefaultRetryDelay    = 200 * time.Millisecond
	DefaultRetryMaxDelay = 5 * time.Second
	// DefaultMaxResponseSize is the largest answer the client accepts, in bytes: a whole
	// QUEUE table of a 128-port switch fits, and it is the cap package nvue puts on an
	// answer.
	DefaultMaxResponseSize = 64 << 20
	// DefaultKeepaliveTime is how long a connection with a call in flight may stay silent
	// before the client pings the switch. It must not be shorter than the switch's
	// keepalive enforcement: a gRPC server answers pings that come more often than its
	// EnforcementPolicy.MinTime with GOAWAY too_many_pings (after three strikes), which
	// would fail every Set that validates for long. sonic-net/sonic-gnmi telemetry/telemetry.go
	// sets no EnforcementPolicy on branches 202411 (d04415890d8b) and 202505 (9e9223d80b85),
	// so grpc-go's default applies there: MinTime 5 minutes, no pings without a call in
	// flight. Branch 202511 (5fe67765feeb) and later allow pings every 20 s, with or
	// without calls (commit 1bd6083f3776, sonic-gnmi#634). 5 minutes suits every release.
	DefaultKeepaliveTime = 5 * time.Minute
	// DefaultKeepaliveTimeout is how long the client waits for the answer to a ping before
	// it closes the connection and fails the calls on it (grpc-go's own default).
	DefaultKeepaliveTimeout = 20 * time.Second
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
	// CertificatePin trusts the switch's certificate by its key:
	// "sha256//<base64 SHA-256 of its SubjectPublicKeyInfo>" (package tlspin).
	// With CAFile the chain must verify too; without, the pin alone is the
	// trust and the system roots are not consulted.
	CertificatePin string
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
	// GetTimeout bounds one attempt of a Get, GetTarget or Capabilities call: a switch
	// that accepts a call and never answers fails it with DeadlineExceeded, which is
	// retried like any other DeadlineExceeded, so a read can take (retries+1)·GetTimeout
	// plus backoff; the caller's context bounds the whole. Default DefaultGetTimeout.
	GetTimeout time.Duration
	// MaxResponseSize is the largest answer accepted, in bytes; a larger one fails with
	// ResourceExhausted before it is read. Default DefaultMaxResponseSize.
	MaxResponseSize int
	// KeepaliveTime is how long a connection with a call in flight may stay silent
	// before the client pings the switch, and KeepaliveTimeout how long it then waits for
	// the answer before closing the connection, failing its calls with Unavailable. This
	// finds a switch or middlebox that went away without closing the connection. The
	// client never pings an idle connection (SONiC 202411 refuses that); the first call on
	// a connection idle for KeepaliveTime pings at once. grpc-go raises a KeepaliveTime
	// under 10 s to 10 s. Defaults DefaultKeepaliveTime, which a shorter value risks
	// breaking long Sets with GOAWAY too_many_pings, and DefaultKeepaliveTimeout.
	KeepaliveTime    time.Duration
	KeepaliveTimeout time.Duration
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
	if c.GetTimeout == 0 {
		c.GetTimeout = DefaultGetTimeout
	}
	if c.MaxResponseSize == 0 {
		c.MaxResponseSize = DefaultMaxResponseSize
	}
	if c.KeepaliveTime == 0 {
		c.KeepaliveTime = DefaultKeepaliveTime
	}
	if c.KeepaliveTimeout == 0 {
		c.KeepaliveTimeout = DefaultKeepaliveTimeout
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
