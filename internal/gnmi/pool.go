package gnmi

import (
	"errors"
	"fmt"
	"sync"
)

// Pool keeps one Client per switch address for the life of a process, so
// every resource that talks to a switch shares its connection and its
// one-Set-at-a-time slot. The zero value is not usable; call NewPool.
type Pool struct {
	mu      sync.Mutex
	clients map[string]*Client
	closed  bool
}

// NewPool returns an empty pool.
func NewPool() *Pool { return &Pool{clients: map[string]*Client{}} }

// Client returns the pool's client for cfg.Address, dialling it on first
// use (Dial does not connect) and again if it was closed. Asking for an
// address with a different Config than the pooled client's is an error:
// two configurations for one switch are a provider configuration mistake.
func (p *Pool) Client(cfg Config) (*Client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, fmt.Errorf("gnmi pool %s: %w", cfg.Address, errPoolClosed)
	}
	if c, ok := p.clients[cfg.Address]; ok && !c.closed() {
		if c.cfg != cfg.withDefaults() {
			return nil, fmt.Errorf("gnmi pool %s: already connected with different settings", cfg.Address)
		}
		return c, nil
	}
	c, err := Dial(cfg)
	if err != nil {
		return nil, err
	}
	p.clients[cfg.Address] = c
	return c, nil
}

// Close closes every client and refuses new ones.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	var errs []error
	for addr, c := range p.clients {
		if err := c.Close(); err != nil {
			errs = append(errs, err)
		}
		delete(p.clients, addr)
	}
	return errors.Join(errs...)
}

var errPoolClosed = errors.New("pool closed")
