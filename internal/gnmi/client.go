package gnmi

import (
	"context"
	"errors"
	"fmt"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	grpcbackoff "google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"
)

// ErrClosed is returned by calls on a closed Client.
var ErrClosed = errors.New("gnmi client closed")

// Client talks gNMI to one switch over one gRPC connection, which
// reconnects by itself after the switch closes it (SONiC closes idle
// connections after 5 s). Its methods are safe for concurrent use; Sets are
// serialised, one in flight at a time.
type Client struct {
	cfg  Config
	conn *grpc.ClientConn
	rpc  gpb.GNMIClient
	// setSlot holds a token while a Set is in flight.
	setSlot chan struct{}
}

// Dial validates cfg and returns a Client for cfg.Address. It does not
// connect: the connection is made on the first call and re-made whenever the
// switch has closed it.
func Dial(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	creds, err := transportCredentials(cfg)
	if err != nil {
		return nil, fmt.Errorf("gnmi dial %s: %w", cfg.Address, err)
	}
	opts := []grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff: grpcbackoff.Config{
				BaseDelay:  cfg.RetryDelay,
				Multiplier: 1.6,
				Jitter:     0.2,
				MaxDelay:   cfg.RetryMaxDelay,
			},
			MinConnectTimeout: cfg.DialTimeout,
		}),
		// PermitWithoutStream stays false: sonic-gnmi before 202511 keeps grpc-go's default
		// enforcement, which counts any ping on a connection without a call as a strike
		// (see DefaultKeepaliveTime).
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: cfg.KeepaliveTime, Timeout: cfg.KeepaliveTimeout}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(cfg.MaxResponseSize)),
	}
	if cfg.Username != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(passwordCredentials{
			username: cfg.Username, password: cfg.Password, plaintextOK: cfg.Insecure,
		}))
	}
	conn, err := grpc.NewClient(cfg.Address, opts...)
	if err != nil {
		return nil, fmt.Errorf("gnmi dial %s: %w", cfg.Address, err)
	}
	return &Client{cfg: cfg, conn: conn, rpc: gpb.NewGNMIClient(conn), setSlot: make(chan struct{}, 1)}, nil
}

// Address returns the switch address the client talks to.
func (c *Client) Address() string { return c.cfg.Address }

// Close closes the connection; calls in flight fail.
func (c *Client) Close() error {
	if err := c.conn.Close(); err != nil && status.Code(err) != codes.Canceled {
		return fmt.Errorf("gnmi close %s: %w", c.cfg.Address, err)
	}
	return nil
}

func (c *Client) closed() bool { return c.conn.GetState() == connectivity.Shutdown }

func (c *Client) backoff() backoff {
	return backoff{base: c.cfg.RetryDelay, max: c.cfg.RetryMaxDelay}
}

// readRetries is Config.Retries, but at least one: a read is idempotent, and
// one retry absorbs a connection the switch reset between calls.
func (c *Client) readRetries() int { return max(c.cfg.Retries, 1) }

// awaitReady waits, at most DialTimeout, until the connection is ready,
// connecting it when idle. An error here means no request was sent.
func (c *Client) awaitReady(parent context.Context) error {
	ctx, cancel := context.WithTimeout(parent, c.cfg.DialTimeout)
	defer cancel()
	for {
		state := c.conn.GetState()
		switch state {
		case connectivity.Ready:
			return nil
		case connectivity.Shutdown:
			return ErrClosed
		case connectivity.Idle:
			c.conn.Connect()
		}
		if !c.conn.WaitForStateChange(ctx, state) {
			if err := parent.Err(); err != nil {
				return err
			}
			return status.Errorf(codes.Unavailable, "connect %s: not ready within %s (state %s)", c.cfg.Address, c.cfg.DialTimeout, state)
		}
	}
}

// Capabilities returns the switch's gNMI capabilities (models, encodings,
// version); a cheap way to check reachability and credentials. Each attempt is
// bounded by Config.GetTimeout.
func (c *Client) Capabilities(ctx context.Context) (*gpb.CapabilityResponse, error) {
	var resp *gpb.CapabilityResponse
	err := c.read(ctx, func(ctx context.Context) error {
		var err error
		resp, err = c.rpc.Capabilities(ctx, &gpb.CapabilityRequest{})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("gnmi capabilities %s: %w", c.cfg.Address, err)
	}
	return resp, nil
}
