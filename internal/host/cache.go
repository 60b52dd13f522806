package host

import (
	"context"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// GatherCache lets the engines of one process share what they gathered on a host. Terraform
// reads and plans each resource on its own, so without it three resources on a host cost
// three gathers per walk; with it they cost one. A gather asks for everything the process
// has asked of any host so far (hosts of one fabric carry the same resources), so later
// requests find their facts already read.
//
// Whatever changes a host through a Runner from [GatherCache.Runner] makes the cache forget
// what it could have changed, so a plan never works from facts older than its own last
// write: a command makes it forget the host; a file write forgets only that file, unless the
// file is one that another fact reads ([factSources]). A request that then lacks only files
// reads just those files, so a hundred resources writing a file each on one host cost one
// gather and a hundred small reads instead of two hundred gathers. An entry older than
// maxAge is read again.
type GatherCache struct {
	maxAge time.Duration
	now    func() time.Time

	mu      sync.Mutex
	learned [2]Want // everything asked for, without and with sudo
	hosts   map[cacheKey]*cacheEntry
}

type cacheKey struct {
	host string
	sudo bool
}

type cacheEntry struct {
	gen      uint64 // bumped by every command on the host: drops every gather in flight
	facts    Facts
	at       time.Time // of the last whole gather
	ok       bool
	inflight *cacheCall
	waiters  int // requests waiting for inflight

	writes  uint64            // bumped by every file write to the host
	written map[string]uint64 // path → writes when it was last written
}

// cacheCall is a gather in progress; requests it covers wait for it.
type cacheCall struct {
	set  Want
	done chan struct{}
}

// DefaultGatherCacheAge bounds how long gathered facts serve later requests. A provider
// process serves one Terraform walk, and whatever it changes on a host it forgets, so the age
// only has to outlast a walk: the resources of one host are planned spread over the whole
// walk, and an age shorter than the walk lets a host's later resources gather it again. The
// 2 minutes this was before are shorter than a 128-host plan on 2 CPUs (172 s, bench/results).
const DefaultGatherCacheAge = 30 * time.Minute

// factSources are the files and directories that facts other than file facts read, directly
// or as the programs the gather runs: a write there could change such a fact, so it makes the
// cache forget the host. The engine's own writes (configuration under /etc, scripts) land
// elsewhere, except for its scripts in /usr/local/sbin, which are forgotten conservatively.
var factSources = []string{
	// FactOS
	"/etc/os-release", "/usr/lib/os-release",
	// FactPackages and FactNCCL (dpkg); FactRPMPackages and FactNCCL (rpm)
	"/var/lib/dpkg/", "/var/lib/rpm/", "/usr/lib/sysimage/rpm/",
	// FactDnfLocks (versionlock.list on dnf 4, versionlock.toml on dnf 5)
	"/etc/dnf/",
	// FactNCCL (ldconfig -p)
	"/etc/ld.so.cache",
	// the tools the gather runs
	"/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/", "/usr/local/bin/", "/usr/local/sbin/",
}

// readByFacts reports whether a fact other than a file fact may read path.
func readByFacts(path string) bool {
	for _, s := range factSources {
		if path == s || strings.HasSuffix(s, "/") && strings.HasPrefix(path, s) {
			return true
		}
	}
	return false
}

// NewGatherCache returns an empty cache whose entries serve for maxAge.
func NewGatherCache(maxAge time.Duration) *GatherCache {
	return &GatherCache{maxAge: maxAge, now: time.Now, hosts: map[cacheKey]*cacheEntry{}}
}

// Expect makes every gather also read want: what the process's callers will ask of each
// host, when it is known up front. Terraform reads dependent resources only after the ones
// they depend on, so learning alone would cost every host a second gather.
func (c *GatherCache) Expect(want Want) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.learned {
		c.learned[i] = c.learned[i].Union(want.withDependencies())
	}
}

// Runner wraps r so that every command and file write through it makes the cache forget
// what it may change on r's host, before and after: a gather running meanwhile does not keep
// it either.
func (c *GatherCache) Runner(r Runner) Runner { return forgettingRunner{Runner: r, cache: c} }

type forgettingRunner struct {
	Runner
	cache *GatherCache
}

func (r forgettingRunner) Run(ctx context.Context, cmd shell.Runnable, opts ssh.RunOptions) (ssh.Result, error) {
	r.cache.forget(r.Address())
	defer r.cache.forget(r.Address())
	return r.Runner.Run(ctx, cmd, opts)
}

func (r forgettingRunner) WriteFile(ctx context.Context, path string, data []byte, mode os.FileMode, owner string, sudo bool) error {
	r.cache.forgetFile(r.Address(), path)
	defer r.cache.forgetFile(r.Address(), path)
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

// forget drops everything known of host.
func (c *GatherCache) forget(host string) {
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

// forgetFile drops what is known of the file at path on host, or everything when another
// fact may read it.
func (c *GatherCache) forgetFile(host, path string) {
	if readByFacts(path) {
		c.forget(host)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, sudo := range []bool{false, true} {
		if e := c.hosts[cacheKey{host, sudo}]; e != nil {
			e.writes++
			if e.written == nil {
				e.written = map[string]uint64{}
			}
			e.written[path] = e.writes
			e.facts = withoutFiles(e.facts, []string{path})
		}
	}
}

// gather returns facts covering want, and where they came from: from the cache; else, when
// the cache lacks only files, from one read of those files; else from one gather of want and
// all that was asked before.
func (c *GatherCache) gather(ctx context.Context, r Runner, want Want, sudo bool) (Facts, GatherSource, error) {
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
	cached := FromCache
	for {
		if e.ok && c.now().Sub(e.at) < c.maxAge {
			if e.facts.Gathered.Covers(want) {
				f := e.facts
				c.mu.Unlock()
				return f, cached, nil
			}
			if e.facts.Gathered.bits&want.bits == want.bits {
				f, err := c.readFiles(ctx, r, e, want, sudo)
				return f, FromCacheAndFiles, err
			}
		}
		call := e.inflight
		if call == nil || call.set.bits&want.bits != want.bits {
			break
		}
		// The gather in flight reads every fact asked for; files it lacks are read after it.
		e.waiters++
		c.mu.Unlock()
		select {
		case <-call.done:
		case <-ctx.Done():
			c.mu.Lock()
			e.waiters--
			c.mu.Unlock()
			return Facts{}, FromGatherInFlight, &GatherError{Host: key.host, Err: context.Cause(ctx)}
		}
		c.mu.Lock()
		e.waiters--
		cached = FromGatherInFlight
	}
	set := c.learned[si].Union(want)
	gen, writes := e.gen, e.writes
	call := &cacheCall{set: set, done: make(chan struct{})}
	e.inflight = call
	c.mu.Unlock()

	f, err := gather(ctx, reader(r), set, sudo)

	c.mu.Lock()
	if err == nil && e.gen == gen {
		e.facts = withoutFiles(f, e.writtenSince(writes))
		e.at, e.ok = c.now(), true
	}
	if e.inflight == call {
		e.inflight = nil
	}
	close(call.done)
	c.mu.Unlock()
	return f, FromHost, err
}

// readFiles reads the files of want that e lacks, keeps them unless the host changed
// meanwhile, and returns e's facts with them. c.mu is held on entry and released.
func (c *GatherCache) readFiles(ctx context.Context, r Runner, e *cacheEntry, want Want, sudo bool) (Facts, error) {
	var missing []string
	for _, p := range want.files {
		if _, found := slices.BinarySearch(e.facts.Gathered.files, p); !found {
			missing = append(missing, p)
		}
	}
	base, gen, writes := e.facts, e.gen, e.writes
	c.mu.Unlock()

	f, err := gather(ctx, reader(r), Want{files: missing}, sudo)
	if err != nil {
		return Facts{}, err
	}
	merged := withFiles(base, f)

	c.mu.Lock()
	defer c.mu.Unlock()
	if e.ok && e.gen == gen {
		e.facts = withFiles(e.facts, withoutFiles(f, e.writtenSince(writes)))
	}
	return merged, nil
}

// writtenSince returns the paths written after the write count was writes.
func (e *cacheEntry) writtenSince(writes uint64) []string {
	var out []string
	for p, n := range e.written {
		if n > writes {
			out = append(out, p)
		}
	}
	return out
}

// withoutFiles returns f without the files at paths. f's maps are copied, not changed: callers
// may hold f.
func withoutFiles(f Facts, paths []string) Facts {
	drop := slices.DeleteFunc(slices.Clone(paths), func(p string) bool {
		_, found := slices.BinarySearch(f.Gathered.files, p)
		return !found
	})
	if len(drop) == 0 {
		return f
	}
	f.Gathered = Want{bits: f.Gathered.bits, files: slices.DeleteFunc(slices.Clone(f.Gathered.files),
		func(p string) bool { return slices.Contains(drop, p) })}
	f.Files, f.Absent = maps.Clone(f.Files), maps.Clone(f.Absent)
	for _, p := range drop {
		delete(f.Files, p)
		delete(f.Absent, fileLabel(p))
	}
	return f
}

// withFiles returns base with the files that files read added. base's maps are copied, not
// changed.
func withFiles(base, files Facts) Facts {
	base.Gathered = base.Gathered.Union(Want{files: files.Gathered.files})
	base.Files, base.Absent = maps.Clone(base.Files), maps.Clone(base.Absent)
	if base.Files == nil {
		base.Files = map[string]FileInfo{}
	}
	if base.Absent == nil {
		base.Absent = map[string]string{}
	}
	for _, p := range files.Gathered.files {
		if fi, ok := files.Files[p]; ok {
			base.Files[p] = fi
		}
		if why, ok := files.Absent[fileLabel(p)]; ok {
			base.Absent[fileLabel(p)] = why
		}
	}
	return base
}

// Covers reports whether s holds every fact and file of o.
func (s Want) Covers(o Want) bool {
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
