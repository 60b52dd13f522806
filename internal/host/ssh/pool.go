package ssh

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	xssh "golang.org/x/crypto/ssh"
)

// Backoff bounds for connection retries. Each wait is drawn uniformly from
// [d/2, d], d doubling from backoffBase up to backoffMax.
const (
	backoffBase = 250 * time.Millisecond
	backoffMax  = 10 * time.Second
	// cancelGrace is how long a cancelled session may take to close before
	// its (apparently hung) connection is dropped.
	cancelGrace = 5 * time.Second
	// sessionRetries bounds the session opens refused by sshd (about 30 s
	// of sessionBackoff).
	sessionRetries = 40
)

// Pool holds one SSH connection per host for the whole provider process and
// shares it between all callers. It is safe for concurrent use. Connections
// are dialled on first use and redialled after they die; Close releases them.
type Pool struct {
	cfg   Config
	hops  []endpoint // jump chain, in order
	hosts endpoint   // template for the hosts: everything but addr

	ctx    context.Context // ended by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // connection watchers

	mu     sync.Mutex
	closed bool
	states map[string]*hostState // by route key
}

// endpoint is one SSH server on a route: a jump host or the host itself.
type endpoint struct {
	addr   string // host:port
	user   string
	auth   *auth
	policy hostKeyPolicy
}

// hostState is the pooled connection to one endpoint of one route.
type hostState struct {
	key    string
	ep     endpoint
	parent *hostState // previous jump host; nil when dialled directly

	dialLock ctxLock // held while dialling
	sem      chan struct{}

	mu      sync.Mutex
	conn    *conn
	dialSeq uint64 // dials completed
	lastErr error  // result of the last dial

	dials, dialFailures, sessions atomic.Int64
}

// conn is one established SSH connection.
type conn struct {
	client *xssh.Client
	done   chan struct{} // closed when the connection has ended
}

// HostStats counts the activity of a [Pool] towards one address.
type HostStats struct {
	// Dials is the number of connection attempts, retries included.
	Dials int64
	// DialFailures is the number of attempts that failed.
	DialFailures int64
	// Sessions is the number of sessions (commands, SFTP) opened.
	Sessions int64
	// Connected reports whether a connection is open now.
	Connected bool
}

// NewPool validates cfg, loads its keys, certificates and jump hosts and
// returns an empty pool. It does not connect anywhere.
func NewPool(cfg Config) (*Pool, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("ssh config: %w", err)
	}
	cfg = cfg.withDefaults()
	hostAuth, err := loadAuth(cfg)
	if err != nil {
		return nil, fmt.Errorf("ssh config: %w", err)
	}
	policy, err := newHostKeyPolicy(cfg.HostKey, cfg.KnownHostsFile, cfg.InsecureIgnoreHostKey)
	if err != nil {
		return nil, fmt.Errorf("ssh config: %w", err)
	}
	p := &Pool{
		cfg:    cfg,
		hosts:  endpoint{user: cfg.User, auth: hostAuth, policy: policy},
		states: make(map[string]*hostState),
	}
	for i, h := range cfg.Jumps {
		ep, err := hopEndpoint(h, cfg, hostAuth)
		if err != nil {
			return nil, fmt.Errorf("ssh config: jump %d (%s): %w", i+1, h.Address, err)
		}
		p.hops = append(p.hops, ep)
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p, nil
}

func hopEndpoint(h Hop, cfg Config, hostAuth *auth) (endpoint, error) {
	addr, err := hostPort(h.Address, DefaultPort)
	if err != nil {
		return endpoint{}, err
	}
	a, err := loadHopAuth(h, cfg, hostAuth)
	if err != nil {
		return endpoint{}, err
	}
	known := h.KnownHostsFile
	if known == "" {
		known = cfg.KnownHostsFile
	}
	policy, err := newHostKeyPolicy(h.HostKey, known, cfg.InsecureIgnoreHostKey)
	if err != nil {
		return endpoint{}, err
	}
	user := h.User
	if user == "" {
		user = cfg.User
	}
	return endpoint{addr: addr, user: user, auth: a, policy: policy}, nil
}

// Client returns the client for the host at address ("host" or
// "host:port"; the Config's port when absent). It does not connect.
func (p *Pool) Client(address string) *Client {
	addr, err := hostPort(address, p.cfg.Port)
	if err != nil {
		addr = address
	}
	return &Client{pool: p, addr: addr, err: err}
}

// Close closes every connection and waits for their watchers to exit.
// Calls in progress fail; later calls return [ErrClosed].
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	states := make([]*hostState, 0, len(p.states))
	for _, hs := range p.states {
		states = append(states, hs)
	}
	p.mu.Unlock()

	p.cancel()
	for _, hs := range states {
		hs.mu.Lock()
		c := hs.conn
		hs.conn = nil
		hs.mu.Unlock()
		if c != nil {
			c.client.Close()
		}
	}
	p.wg.Wait()
	return nil
}

// Stats returns the counters per address ("host:port"), jump hosts included.
func (p *Pool) Stats() map[string]HostStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]HostStats, len(p.states))
	for _, hs := range p.states {
		s := out[hs.ep.addr]
		s.Dials += hs.dials.Load()
		s.DialFailures += hs.dialFailures.Load()
		s.Sessions += hs.sessions.Load()
		s.Connected = s.Connected || hs.current() != nil
		out[hs.ep.addr] = s
	}
	return out
}

// String describes the pool's routes, for logs. It contains no secrets.
func (p *Pool) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	keys := make([]string, 0, len(p.states))
	for k := range p.states {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return fmt.Sprintf("ssh pool (user %s, %d routes: %s)", p.cfg.User, len(keys), strings.Join(keys, ", "))
}

// state returns the state of the route to addr through the jump chain.
func (p *Pool) state(addr string) (*hostState, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	var parent *hostState
	var key string
	for _, hop := range p.hops {
		key += hop.addr + ">"
		parent = p.stateLocked(key, hop, parent)
	}
	ep := p.hosts
	ep.addr = addr
	return p.stateLocked(key+addr, ep, parent), nil
}

func (p *Pool) stateLocked(key string, ep endpoint, parent *hostState) *hostState {
	if hs, ok := p.states[key]; ok {
		return hs
	}
	hs := &hostState{
		key:      key,
		ep:       ep,
		parent:   parent,
		dialLock: newCtxLock(),
		sem:      make(chan struct{}, p.cfg.MaxSessions),
	}
	p.states[key] = hs
	return hs
}

func (hs *hostState) current() *conn {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.conn
}

// drop forgets c, if it is still the current connection, and closes it.
func (hs *hostState) drop(c *conn) {
	hs.mu.Lock()
	if hs.conn == c {
		hs.conn = nil
	}
	hs.mu.Unlock()
	c.client.Close()
}

// ConnEvents hears of a pool's connections, for logs. Its methods are called with the
// context of the request that needed the connection and must not block.
type ConnEvents interface {
	// Dialled reports a new connection to host, or the failed dial (err), and how long the
	// dial with its retries took.
	Dialled(ctx context.Context, host string, took time.Duration, err error)
	// Reused reports a request served by the open connection to host.
	Reused(ctx context.Context, host string)
}

// connect returns the live connection of hs, dialling it when there is none.
// Concurrent callers share one dial: the first dials under the lock, the
// others wait for it and take its connection, or its error.
func (p *Pool) connect(ctx context.Context, hs *hostState) (*conn, error) {
	hs.mu.Lock()
	c, seq := hs.conn, hs.dialSeq
	hs.mu.Unlock()
	if c != nil {
		if ev := p.cfg.Events; ev != nil {
			ev.Reused(ctx, hs.ep.addr)
		}
		return c, nil
	}
	if err := hs.dialLock.lock(ctx); err != nil {
		return nil, &ConnectError{Host: hs.ep.addr, Err: err}
	}
	defer hs.dialLock.unlock()

	hs.mu.Lock()
	c, lastErr, dialled := hs.conn, hs.lastErr, hs.dialSeq != seq
	hs.mu.Unlock()
	switch {
	case c != nil:
		return c, nil
	case dialled && lastErr != nil:
		return nil, lastErr // the dial we waited for failed
	}

	began := time.Now()
	c, err := p.dial(ctx, hs)
	if ev := p.cfg.Events; ev != nil {
		ev.Dialled(ctx, hs.ep.addr, time.Since(began), err)
	}
	if err != nil {
		hs.mu.Lock()
		hs.dialSeq++
		hs.lastErr = err
		if ctx.Err() != nil {
			hs.lastErr = nil // our context ended: let waiters try with theirs
		}
		hs.mu.Unlock()
		return nil, err
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.client.Close()
		return nil, &ConnectError{Host: hs.ep.addr, Err: ErrClosed}
	}
	hs.mu.Lock()
	hs.conn, hs.lastErr = c, nil
	hs.dialSeq++
	hs.mu.Unlock()
	p.watch(hs, c)
	return c, nil
}

// dial connects hs with retries and backoff on connection errors. The
// previous hop, if any, is connected (and retried) first by connect; its
// failure is returned as is.
func (p *Pool) dial(ctx context.Context, hs *hostState) (*conn, error) {
	for attempt := 0; ; attempt++ {
		var via *xssh.Client
		if hs.parent != nil {
			pc, err := p.connect(ctx, hs.parent)
			if err != nil {
				return nil, viaError(hs.ep.addr, err)
			}
			via = pc.client
		}
		c, err := p.dialOnce(ctx, hs, via)
		if err == nil {
			return c, nil
		}
		if attempt >= p.cfg.Retries || !retryable(err) || ctx.Err() != nil || p.ctx.Err() != nil {
			return nil, connectError(hs.ep.addr, err)
		}
		if werr := p.sleep(ctx, backoff(attempt)); werr != nil {
			return nil, connectError(hs.ep.addr, errors.Join(werr, err))
		}
	}
}

// forwardError is the failure of a jump host to open a channel to the next
// hop (no forwarding allowed, next hop unreachable).
type forwardError struct {
	via string
	err error
}

func (e *forwardError) Error() string {
	return fmt.Sprintf("jump host %s could not forward the connection: %v", e.via, e.err)
}

func (e *forwardError) Unwrap() error { return e.err }

func connectError(host string, err error) *ConnectError {
	ce := &ConnectError{Host: host, Err: err}
	var fe *forwardError
	if errors.As(err, &fe) {
		ce.Via = fe.via
	}
	return ce
}

// viaError turns the failure of a jump host into the failure of host.
func viaError(host string, err error) error {
	var ce *ConnectError
	if !errors.As(err, &ce) {
		return &ConnectError{Host: host, Err: err}
	}
	via := ce.Via
	if via == "" {
		via = ce.Host
	}
	return &ConnectError{Host: host, Via: via, Err: ce.Err}
}

// dialOnce makes one connection attempt, bounded by ConnectTimeout: TCP (or
// a channel through the jump host via) and the SSH handshake.
func (p *Pool) dialOnce(ctx context.Context, hs *hostState, via *xssh.Client) (*conn, error) {
	hs.dials.Add(1)
	c, err := p.handshake(ctx, hs, via)
	if err != nil {
		hs.dialFailures.Add(1)
	}
	return c, err
}

func (p *Pool) handshake(ctx context.Context, hs *hostState, via *xssh.Client) (*conn, error) {
	ep := hs.ep
	timeout := p.cfg.ConnectTimeout
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stopPool := context.AfterFunc(p.ctx, cancel)
	defer stopPool()

	callback, algos, err := ep.policy.prepare(ep.addr)
	if err != nil {
		return nil, err
	}
	methods, done, err := ep.auth.methods(timeout)
	if err != nil {
		return nil, err
	}
	defer done()

	nc, err := p.dialTCP(actx, ep.addr, via)
	if err != nil {
		err = p.attemptError(ctx, actx, err)
		if via != nil {
			err = &forwardError{via: hs.parent.ep.addr, err: err}
		}
		return nil, err
	}
	// The handshake has no context: closing the connection aborts it.
	stop := context.AfterFunc(actx, func() { nc.Close() })
	cc, chans, reqs, err := xssh.NewClientConn(nc, ep.addr, &xssh.ClientConfig{
		User:              ep.user,
		Auth:              methods,
		HostKeyCallback:   callback,
		HostKeyAlgorithms: algos,
	})
	if !stop() {
		if err == nil {
			cc.Close()
		}
		return nil, p.attemptError(ctx, actx, err)
	}
	if err != nil {
		nc.Close()
		return nil, err
	}
	return &conn{client: xssh.NewClient(cc, chans, reqs), done: make(chan struct{})}, nil
}

func (p *Pool) dialTCP(ctx context.Context, addr string, via *xssh.Client) (net.Conn, error) {
	if via != nil {
		return via.DialContext(ctx, "tcp", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}

// attemptError explains why an attempt was cut short: the caller's context,
// the pool closing, or ConnectTimeout.
func (p *Pool) attemptError(ctx, actx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return context.Cause(ctx)
	case p.ctx.Err() != nil:
		return ErrClosed
	case actx.Err() != nil:
		return fmt.Errorf("timed out after %s: %w", p.cfg.ConnectTimeout, context.DeadlineExceeded)
	}
	return err
}

// watch starts the goroutines that notice the end of c: one waits for the
// connection to end, one sends keepalives. Both exit when c ends; Close
// waits for them. Called with p.mu held.
func (p *Pool) watch(hs *hostState, c *conn) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		_ = c.client.Wait() // the reason a connection ended matters less than that it did
		close(c.done)
		hs.drop(c)
	}()
	if p.cfg.KeepAlive > 0 {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.keepAlive(hs, c)
		}()
	}
}

// keepAlive sends a keepalive request every interval and drops c when one is
// not answered within two intervals.
func (p *Pool) keepAlive(hs *hostState, c *conn) {
	interval := p.cfg.KeepAlive
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-ticker.C:
		}
		reply := make(chan error, 1)
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			// Returns on the reply or when the connection closes.
			_, _, err := c.client.SendRequest("keepalive@openssh.com", true, nil)
			reply <- err
		}()
		timer := time.NewTimer(2 * interval)
		select {
		case err := <-reply:
			timer.Stop()
			if err != nil {
				hs.drop(c)
				return
			}
		case <-timer.C:
			hs.drop(c)
			return
		case <-c.done:
			timer.Stop()
			return
		}
	}
}

// session opens a session on the connection of hs, holding one of its
// MaxSessions slots until release is called. Opening a channel is safe to
// retry: no command has started. A connection found dead is dropped and
// redialled once; a refusal by the server (its own session limit) is retried
// with backoff.
func (p *Pool) session(ctx context.Context, hs *hostState) (s *xssh.Session, c *conn, release func(), err error) {
	if ctx.Err() != nil {
		return nil, nil, nil, fmt.Errorf("session on %s: %w", hs.ep.addr, context.Cause(ctx))
	}
	select {
	case hs.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, nil, fmt.Errorf("wait for a session on %s: %w", hs.ep.addr, context.Cause(ctx))
	}
	unlock := func() { <-hs.sem }
	redialled := false
	for attempt := 0; ; attempt++ {
		c, err := p.connect(ctx, hs)
		if err != nil {
			unlock()
			return nil, nil, nil, err
		}
		s, err := c.client.NewSession()
		if err == nil {
			hs.sessions.Add(1)
			return s, c, func() { s.Close(); unlock() }, nil
		}
		var oce *xssh.OpenChannelError
		switch {
		case errors.As(err, &oce):
			// sshd frees a closed session one loop turn after our close,
			// so a refusal right after another session ended is normal;
			// a persistent one means sshd's MaxSessions is lower than ours.
			if attempt < sessionRetries {
				if werr := p.sleep(ctx, sessionBackoff(attempt)); werr == nil {
					continue
				}
			}
			err = fmt.Errorf("open session (is sshd's MaxSessions below %d?): %w", p.cfg.MaxSessions, err)
		case !redialled:
			hs.drop(c)
			redialled = true
			continue
		}
		unlock()
		return nil, nil, nil, &ConnectError{Host: hs.ep.addr, Err: err}
	}
}

// sleep waits for d, or until ctx ends or the pool closes.
func (p *Pool) sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-p.ctx.Done():
		return ErrClosed
	}
}

// backoff returns the wait before retry attempt+1: exponential with jitter.
func backoff(attempt int) time.Duration {
	d := backoffMax
	if attempt < 16 {
		d = min(backoffBase<<attempt, backoffMax)
	}
	return d/2 + rand.N(d/2+1)
}

// sessionBackoff returns the wait before another session open after sshd
// refused one: from 5 ms, doubling, up to 1 s, with jitter.
func sessionBackoff(attempt int) time.Duration {
	d := time.Second
	if attempt < 8 {
		d = 5 * time.Millisecond << attempt
	}
	return d/2 + rand.N(d/2+1)
}

// ctxLock is a mutex whose Lock gives up when a context ends.
type ctxLock chan struct{}

func newCtxLock() ctxLock { return make(ctxLock, 1) }

func (l ctxLock) lock(ctx context.Context) error {
	select {
	case l <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (l ctxLock) unlock() { <-l }
