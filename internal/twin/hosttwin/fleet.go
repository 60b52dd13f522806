package hosttwin

import (
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
)

// Fleet is a set of running twin hosts. Start or Attach one; Stop it.
// Its methods are safe for concurrent use.
type Fleet struct {
	id        string // random; fleet.json of this fleet has it
	stateDir  string
	temporary bool // StateDir was created by Start and is removed by Stop
	logDir    string
	rootview  bool // see setupScript
	timeout   time.Duration
	network   bool // Options.Network
	rtt       time.Duration

	twins  []*twin // in Options.Hosts order
	byName map[string]*twin

	mu      sync.Mutex // guards stopped and fleet.json
	stopped bool
}

// twin is the fleet's record of one host.
type twin struct {
	mu      sync.Mutex // serializes operations on the host
	host    Host
	index   int
	profile hostprofile.Profile
	paths   hostPaths
	logFile string
	listen  string // the address sshd listens on, in its own namespace

	// With Options.Network: the host's relay (nil in an attached fleet)
	// and the outer end of its current veth link.
	relay *relay
	link  string

	proc  *process // set when this process started the running sshd
	pid   int      // the twin's first process (sshd); 0 when not running
	start uint64   // pid's start time, to tell it from a reused PID
	ns    string   // its mount namespace, "mnt:[inode]"
	// marker is the source of the launch's root overlay mount,
	// "twin-<name>-<random>": it tells the launch's namespace from a later
	// one that got the same number.
	marker string
}

// StateDir is the directory that holds the fleet's files; pass it to
// Attach from another process.
func (f *Fleet) StateDir() string { return f.stateDir }

// Hosts returns the fleet's hosts in the order they were asked for.
func (f *Fleet) Hosts() []Host {
	out := make([]Host, 0, len(f.twins))
	for _, t := range f.twins {
		t.mu.Lock()
		out = append(out, t.host)
		t.mu.Unlock()
	}
	return out
}

// Host returns the host called name.
func (f *Fleet) Host(name string) (Host, bool) {
	t, ok := f.byName[name]
	if !ok {
		return Host{}, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.host, true
}

// KnownHostsFile is a known_hosts file with the entries of all hosts as
// they were when the fleet started.
func (f *Fleet) KnownHostsFile() string { return fleetKnownHostsPath(f.stateDir) }

// UserKeyFile is a private key that every host of the fleet accepts for root, as one
// cluster-wide key would: with KnownHostsFile it is all one provider configuration needs.
func (f *Fleet) UserKeyFile() string { return fleetUserKeyPath(f.stateDir) }

// Root returns the path under which this machine sees host name's root
// directory (/proc/<pid>/root), for reading or editing the twin's files
// from outside. It is valid while the host runs.
func (f *Fleet) Root(name string) (string, error) {
	t, err := f.lookup(name)
	if err != nil {
		return "", err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.running(); err != nil {
		return "", err
	}
	return t.root(), nil
}

// lookup finds a host by name.
func (f *Fleet) lookup(name string) (*twin, error) {
	t, ok := f.byName[name]
	if !ok {
		return nil, fmt.Errorf("host %s: no such host in fleet %s", name, f.stateDir)
	}
	return t, nil
}

// running reports an error unless the twin's first process is alive.
// The caller holds t.mu.
func (t *twin) running() error {
	if t.pid == 0 || !sameProcess(t.pid, t.start) {
		return fmt.Errorf("host %s: sshd is not running", t.host.Name)
	}
	return nil
}

// root is /proc/<pid>/root of the running twin. The caller holds t.mu.
func (t *twin) root() string { return "/proc/" + strconv.Itoa(t.pid) + "/root" }
