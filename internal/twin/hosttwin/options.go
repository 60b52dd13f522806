package hosttwin

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
)

// Options describes a fleet to start.
type Options struct {
	// StateDir holds everything of the fleet: layers, keys, configs, upper
	// directories and fleet.json. Empty means a new temporary directory
	// that Stop removes. It must not contain ':' or ',' (overlay options).
	StateDir string
	// Hosts are the hosts to start, in order; a host's position is its
	// hostprofile.HostID Index.
	Hosts []HostSpec
	// BasePort is the port of the first host; host i listens on
	// BasePort+i. Zero picks free ports.
	BasePort int
	// LogDir receives each host's sshd log as <name>.sshd.log, where it
	// outlives a temporary StateDir. Empty means the host's directory.
	LogDir string
	// StartTimeout bounds the wait for one sshd to listen. Zero means 10s.
	StartTimeout time.Duration
	// Parallel bounds how many hosts start at once. Zero means 8.
	Parallel int
	// Network puts every host in a network namespace of its own, linked
	// to this machine by a veth pair, behind a relay that listens on the
	// host's loopback Address (relay.go). LinkDown and LinkUp then cut and
	// restore a host's network. The relays live in the process that
	// called Start, so a fleet attached from elsewhere cannot restart a
	// host's sshd.
	Network bool
	// RTT is the round-trip time the relays add between clients and hosts
	// (Network only).
	RTT time.Duration
}

// HostSpec is one host of Options.
type HostSpec struct {
	// Name is the host name: lowercase letters, digits and '-', at most 63.
	Name string
	// Profile is a hostprofile profile name; empty means the default
	// (hostprofile.DefaultProfile).
	Profile string
	// Custom, if set, is the profile to use instead of a named one, for
	// a combination of hardware and faults no named profile has.
	Custom *hostprofile.Profile
}

var hostNameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

const (
	defaultStartTimeout = 10 * time.Second
	defaultParallel     = 8
	// maxHostIndex is the largest hostprofile.HostID Index.
	maxHostIndex = 255
)

// normalize checks o and fills in defaults, including every host's
// resolved profile in Custom; it does not touch the disk.
func (o Options) normalize() (Options, error) {
	if len(o.Hosts) == 0 {
		return o, errors.New("no hosts")
	}
	seen := map[string]bool{}
	hosts := make([]HostSpec, len(o.Hosts))
	for i, h := range o.Hosts {
		if !hostNameRE.MatchString(h.Name) {
			return o, fmt.Errorf("host %q: name must be lowercase letters, digits and '-'", h.Name)
		}
		if seen[h.Name] {
			return o, fmt.Errorf("host %q: duplicate name", h.Name)
		}
		seen[h.Name] = true
		p, err := resolveProfile(h)
		if err != nil {
			return o, fmt.Errorf("host %s: %w", h.Name, err)
		}
		if i > maxHostIndex {
			return o, fmt.Errorf("host %s: at most %d hosts", h.Name, maxHostIndex+1)
		}
		h.Profile, h.Custom = p.Name, &p
		hosts[i] = h
	}
	o.Hosts = hosts
	if o.BasePort < 0 || o.BasePort+len(o.Hosts)-1 > 65535 {
		return o, fmt.Errorf("base port %d: ports out of range for %d hosts", o.BasePort, len(o.Hosts))
	}
	for _, d := range []*string{&o.StateDir, &o.LogDir} {
		if *d == "" {
			continue
		}
		abs, err := filepath.Abs(*d)
		if err != nil {
			return o, err
		}
		if strings.ContainsAny(abs, ":,\n") {
			return o, fmt.Errorf("directory %q: must not contain ':', ',' or a newline", abs)
		}
		*d = abs
	}
	if o.RTT < 0 || (o.RTT > 0 && !o.Network) {
		return o, fmt.Errorf("RTT %s: needs Network and must not be negative", o.RTT)
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = defaultStartTimeout
	}
	if o.Parallel <= 0 {
		o.Parallel = defaultParallel
	}
	return o, nil
}
