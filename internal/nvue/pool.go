package nvue

import (
	"fmt"
	"sync"
)

// Pool keeps one Client per switch address for the life of a process, so every resource on a
// switch shares its connections and its one-revision-at-a-time lock.
type Pool struct {
	mu      sync.Mutex
	clients map[string]*Client
}

// NewPool returns an empty pool.
func NewPool() *Pool { return &Pool{clients: map[string]*Client{}} }

// Client returns the pool's client for cfg.Address, made on first use. Another Config for an
// address already in use is an error: two configurations for one switch are a mistake.
func (p *Pool) Client(cfg Config) (*Client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.clients[cfg.Address]; ok {
		if c.cfg != cfg.withDefaults() {
			return nil, fmt.Errorf("nvue %s: already in use with different settings", cfg.Address)
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

// Close drops every client's idle connections.
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for addr, c := range p.clients {
		c.Close()
		delete(p.clients, addr)
	}
}
