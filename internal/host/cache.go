package host

import (
	"context"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// FactCache lets the engines of one process share what they gathered on a host. Terraform
// reads and plans each resource on its own, so without it three resources on a host cost
// three gathers per walk; with it they cost one. A gather asks for everything the process
// has asked of any host so far (hosts of one fabric carry the same resources), so later
// requests find their facts already read. Whatever writes to a host through a Runner from
// [FactCache.Runner] makes the cache forget that host, and an entry older than maxAge is
// read again, so a plan never works from facts older than its own last write.
type FactCache struct {
	maxAge time.Duration
	now    func() time.Time

	mu      sync.Mutex
	learned [2]FactSet // everything asked for, without and with sudo
	hosts   map[cacheKey]*cacheEntry
}

type cacheKey struct {
	host string
	sudo bool
}

type cacheEntry struct {
	gen      uint64 // bumped by every write to the host
	facts    Facts
	have     FactSet
	at       time.Time
	ok       bool
	inflight *cacheCall
}

// cacheCall is a gather in progress; requests it covers wait for it.
type cacheCall struct {
	set  FactSet
	done chan struct{}
}

// DefaultFactCacheAge bounds how long gathered facts serve later requests.
const DefaultFactCacheAge = 2 * time.Minute

// NewFactCache returns an empty cache whose entries serve for maxAge.
func NewFactCache(maxAge time.Duration) *FactCache {
	return &FactCache{maxAge: maxAge, now: time.Now, hosts: map[cacheKey]*cacheEntry{}}
}

// Expect makes every gather also read want: what the process's callers will ask of each
// host, when it is known up front. Terraform reads dependent resources only after the ones
// they depend on, so learning alone would cost every host a second gather.
func (c *FactCache) Expect(want FactSet) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.learned {
		c.learned[i] = c.learned[i].Union(want.withDependencies())
	}
}

// Runner wraps r so that every command and file write through it makes the cache forget
// r's host, before and after: a gather running meanwhile is not kept either.
func (c *FactCache) Runner(r Runner) Runner { return forgettingRunner{Runner: r, cache: c} }

type forgettingRunner struct {
	Runner
	cache *FactCache
}

func (r forgettingRunner) Run(ctx context.Context, cmd shell.Runnable, opts ssh.RunOptions) (ssh.Result, error) {
	r.cache.forget(r.Address())
	defer r.cache.forget(r.Address())
	return r.Runner.Run(ctx, cmd, opts)
}

func (r forgettingRunner) WriteFile(ctx context.Context, path string, data []byte, mode os.FileMode, owner string, sudo bool) error {
	r.cache.forget(r.Address())
	defer r.cache.forget(r.Address())
	return r.Runner.WriteFile(ctx, path, data, mode, owner, sudo)
}

// reader is the runner a gather uses: reading does not make the cache forget.
func reader(r Runner) Runner {
	switch v := r.(type) {
	case forgettingRunner:
		return v.Runner
	case *countingRunner:
		return &countingRunner{Runner: reader(v.Runner), parent: v}
	}
	return r
}

func (c *FactCache) forget(host string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, sudo := range []bool{false, true} {
		if e := c.hosts[cacheKey{host, sudo}]; e != nil {
			e.gen++
			e.ok = false
			e.facts = Facts{}
		}
	}
}

// gather returns facts covering want, from the cache or from one gather of want and all
// that was asked before.
func (c *FactCache) gather(ctx context.Context, r Runner, want FactSet, sudo bool) (Facts, error) {
	want = want.withDependencies()
	key := cacheKey{r.Address(), sudo}
	si := 0
	if sudo {
		si = 1
	}
	c.mu.Lock()
	c.learned[si] = c.learned[si].Union(want)
	e := c.hosts[key]
	if e == nil {
		e = &cacheEntry{}
		c.hosts[key] = e
	}
	for {
		if e.ok && e.have.Covers(want) && c.now().Sub(e.at) < c.maxAge {
			f := e.facts
			c.mu.Unlock()
			return f, nil
		}
		call := e.inflight
		if call == nil || !call.set.Covers(want) {
			break
		}
		c.mu.Unlock()
		select {
		case <-call.done:
		case <-ctx.Done():
			return Facts{}, &GatherError{Host: key.host, Err: context.Cause(ctx)}
		}
		c.mu.Lock()
	}
	set := c.learned[si].Union(want)
	gen := e.gen
	call := &cacheCall{set: set, done: make(chan struct{})}
	e.inflight = call
	c.mu.Unlock()

	f, err := gather(ctx, reader(r), set, sudo)

	c.mu.Lock()
	if err == nil && e.gen == gen {
		e.facts, e.have, e.at, e.ok = f, set, c.now(), true
	}
	if e.inflight == call {
		e.inflight = nil
	}
	close(call.done)
	c.mu.Unlock()
	return f, err
}

// Covers reports whether s holds every fact and file of o.
func (s FactSet) Covers(o FactSet) bool {
	if o.bits&^s.bits != 0 {
		return false
	}
	for _, p := range o.files {
		if _, found := slices.BinarySearch(s.files, p); !found {
			return false
		}
	}
	return true
}
