// Package nvue is a client of NVIDIA Cumulus Linux's NVUE REST API (/nvue_v1, HTTPS, port 8765
// by default from Cumulus 5.6): reads of a revision's configuration and the revision workflow
// that applies a change as one transaction. It knows the API, not QoS.
//
// Sources: the Cumulus Linux 5.12 and 5.14 user guides, "NVUE API" (CumulusNetworks/docs
// content/cumulus-linux-512/System-Configuration/NVIDIA-User-Experience-NVUE/NVUE-API.md).
package nvue

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/tlspin"
)

// DefaultPort is where nginx serves the API on Cumulus 5.6 and later.
const DefaultPort = 8765

// Defaults applied to zero Config fields.
const (
	DefaultRequestTimeout = 30 * time.Second
	DefaultApplyTimeout   = 5 * time.Minute
	defaultPollInterval   = 500 * time.Millisecond
	// DefaultConfirmWindow is nv config apply --confirm's default: "If you do not confirm
	// within ten minutes, the configuration rolls back automatically" (CumulusNetworks/docs
	// content/nvue-reference/Config-Commands.md, nv config apply).
	DefaultConfirmWindow = 10 * time.Minute
)

// Config says how to reach and authenticate to one switch.
type Config struct {
	// Address is host:port of the switch's API.
	Address string
	// Username and Password are sent with HTTP basic authentication (the switch's own users;
	// group nvapply may change the configuration).
	Username string
	Password string
	// CAFile is a PEM bundle of the CAs that sign the switch's certificate; empty means the
	// system roots. The switch makes a self-signed certificate at first boot.
	CAFile string
	// ServerName overrides the name checked against the certificate.
	ServerName string
	// CertificatePin trusts the switch's certificate by its key (package tlspin):
	// "sha256//<base64>". Cumulus makes a self-signed certificate at first boot, which no
	// CA bundle verifies; its pin does. With CAFile the chain must verify too.
	CertificatePin string
	// Insecure skips certificate verification: labs only.
	Insecure bool
	// RequestTimeout bounds one HTTP request. Default DefaultRequestTimeout.
	RequestTimeout time.Duration
	// ApplyTimeout bounds waiting for a revision to be applied. Default DefaultApplyTimeout.
	ApplyTimeout time.Duration
	// PollInterval is how often an apply's state is read. Default 500 ms.
	PollInterval time.Duration
	// AssumeYes answers yes to the "are you sure" prompts NVUE raises on apply (auto-prompt
	// ays_yes, as nv config apply --assume-yes): it overwrites files someone edited by hand
	// outside NVUE. Off, the client answers no (ays_no, as --assume-no) and an apply that
	// prompts fails with a [PromptError], its revision detached and nothing applied. NVIDIA's
	// own Ansible collection answers only when asked (stackhpc/ansible-nvidia-nvue
	// plugins/httpapi/httpapi.py, apply_config: auto-prompt only with force).
	AssumeYes bool
	// ConfirmWindow is the commit-confirm window of every apply: the switch rolls the change
	// back by itself unless the client confirms it within this time, which it does only after
	// reading the change back over a new connection (so a change that cuts the provider off
	// from the switch undoes itself). Zero means DefaultConfirmWindow; negative turns
	// commit-confirm off. NVUE counts it in whole seconds ("state-controls": {"confirm": N},
	// entropia/gpn-noc-gpncfg gpncfg/deployment/__init__.py apply_revision).
	ConfirmWindow time.Duration
}

func (c Config) withDefaults() Config {
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.ApplyTimeout <= 0 {
		c.ApplyTimeout = DefaultApplyTimeout
	}
	if c.PollInterval <= 0 {
		c.PollInterval = defaultPollInterval
	}
	if c.ConfirmWindow == 0 {
		c.ConfirmWindow = DefaultConfirmWindow
	}
	return c
}

// Client talks to one switch. It applies one revision at a time: NVUE serializes applies and
// a second one only waits behind the first, so the client never has two in flight.
type Client struct {
	cfg     Config
	http    *http.Client
	base    string
	applyMu sync.Mutex
}

// Dial validates cfg and returns a client for it; it does not connect.
func Dial(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: cfg.ServerName, InsecureSkipVerify: cfg.Insecure} //nolint:gosec // Insecure is an explicit, warned opt-in
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("nvue %s: ca_file: %w", cfg.Address, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("nvue %s: ca_file %s holds no PEM certificate", cfg.Address, cfg.CAFile)
		}
		tlsCfg.RootCAs = pool
	}
	if cfg.CertificatePin != "" {
		pin, err := tlspin.Parse(cfg.CertificatePin)
		if err != nil {
			return nil, fmt.Errorf("nvue %s: %w", cfg.Address, err)
		}
		host, _, _ := net.SplitHostPort(cfg.Address)
		tlspin.Apply(tlsCfg, pin, host)
	}
	transport := &http.Transport{TLSClientConfig: tlsCfg, MaxIdleConnsPerHost: 2, IdleConnTimeout: time.Minute}
	return &Client{cfg: cfg, http: &http.Client{Transport: transport}, base: "https://" + cfg.Address + "/nvue_v1"}, nil
}

// Address returns the switch's address.
func (c *Client) Address() string { return c.cfg.Address }

// Close drops idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// HTTPError is an answer other than 2xx.
type HTTPError struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("%s %s: HTTP %d", e.Method, e.Path, e.Status)
	switch e.Status {
	case http.StatusUnauthorized:
		msg += " (check the nvue username and password)"
	case http.StatusForbidden:
		msg += " (on Cumulus 5.6 and later the default cumulus password must be changed first, and the user needs group nvapply to change the configuration)"
	}
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// do sends one request and decodes a JSON answer into out (nil: discard).
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	var reader io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return err
		}
		reader = bytes.NewReader(raw)
	}
	rctx, cancel := context.WithTimeout(ctx, c.cfg.RequestTimeout)
	defer cancel()
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(rctx, method, u, reader)
	if err != nil {
		return err
	}
	req.SetBasicAuth(c.cfg.Username, c.cfg.Password)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("nvue %s: %s %s: %w", c.cfg.Address, method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("nvue %s: %s %s: read answer: %w", c.cfg.Address, method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		text := strings.TrimSpace(string(raw))
		if len(text) > 2000 {
			text = text[:2000] + "..."
		}
		return fmt.Errorf("nvue %s: %w", c.cfg.Address, &HTTPError{Method: method, Path: path, Status: resp.StatusCode, Body: text})
	}
	if out == nil || len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("nvue %s: %s %s: decode answer: %w", c.cfg.Address, method, path, err)
	}
	return nil
}

// Revisions a Get can read besides a revision id.
const (
	RevApplied     = "applied"
	RevOperational = "operational"
)

// Get reads the configuration under path ("qos", "interface", "system/version") at revision
// rev (RevApplied, or a revision id); path "" is the whole tree. A configuration read asks for
// what was configured only (filled=false): a filled answer adds the schema's defaults, which
// nobody set ("If false, return only the attributes that differ from the defaults", NVUE
// OpenAPI 5.3 parameter configs-filled; NVIDIA's example reads ?rev=applied&filled=false).
func (c *Client) Get(ctx context.Context, path, rev string) (json.RawMessage, error) {
	var out json.RawMessage
	q := url.Values{}
	if rev != "" {
		q.Set("rev", rev)
	}
	if rev != "" && rev != RevOperational {
		q.Set("filled", "false")
	}
	err := c.do(ctx, http.MethodGet, "/"+strings.TrimPrefix(path, "/"), q, nil, &out)
	return out, err
}
