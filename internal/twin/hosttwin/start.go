package hosttwin

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/crypto/ssh"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
)

// portAttempts is how often a host with a free port picked by the fleet
// tries another one when something else took it first.
const portAttempts = 3

// Start starts the hosts of opts and returns once every sshd listens. On
// error nothing it started is left running. ctx bounds the start only; the
// hosts run until Stop.
func Start(ctx context.Context, opts Options) (*Fleet, error) {
	if err := preflight(); err != nil {
		return nil, err
	}
	opts, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	id, err := randomHex()
	if err != nil {
		return nil, err
	}
	f := &Fleet{
		id:       id,
		stateDir: opts.StateDir,
		logDir:   opts.LogDir,
		timeout:  opts.StartTimeout,
		network:  opts.Network,
		rtt:      opts.RTT,
		byName:   map[string]*twin{},
	}
	if err := f.makeDirs(ctx); err != nil {
		if f.temporary {
			os.RemoveAll(f.stateDir)
		}
		return nil, err
	}
	if err := f.start(ctx, opts); err != nil {
		stopErr := f.Stop(context.WithoutCancel(ctx))
		return nil, errors.Join(err, stopErr)
	}
	return f, nil
}

// makeDirs creates the state and log directories, or reclaims a given
// state directory from an earlier fleet.
func (f *Fleet) makeDirs(ctx context.Context) error {
	if f.stateDir == "" {
		dir, err := os.MkdirTemp("", "hosttwin-")
		if err != nil {
			return err
		}
		f.stateDir, f.temporary = dir, true
	} else {
		if err := reclaim(ctx, f.stateDir); err != nil {
			return err
		}
		if err := os.MkdirAll(f.stateDir, 0o755); err != nil {
			return err
		}
	}
	if strings.ContainsAny(f.stateDir, ":,\n") {
		return fmt.Errorf("state directory %q: must not contain ':', ',' or a newline", f.stateDir)
	}
	if f.logDir != "" {
		if err := os.MkdirAll(f.logDir, 0o755); err != nil {
			return err
		}
	}
	rootview, err := needRootview(f.stateDir)
	f.rootview = rootview
	return err
}

// needRootview decides how / becomes the lowest layer (see setupScript):
// through a separate read-only overlay when stateDir is on the root
// filesystem, directly otherwise.
func needRootview(stateDir string) (bool, error) {
	var root, state syscall.Stat_t
	if err := syscall.Stat("/", &root); err != nil {
		return false, err
	}
	if err := syscall.Stat(stateDir, &state); err != nil {
		return false, err
	}
	if root.Dev != state.Dev {
		return false, nil
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs("/", &fs); err != nil {
		return false, err
	}
	const overlayfsMagic = 0x794c7630
	if fs.Type == overlayfsMagic {
		return false, fmt.Errorf("state directory %s is on the root overlay filesystem; put it on another filesystem (a tmpfs such as /dev/shm, or a volume)", stateDir)
	}
	return true, nil
}

// start builds the base layer and starts all hosts, opts.Parallel at a time.
func (f *Fleet) start(ctx context.Context, opts Options) error {
	rhel := slices.ContainsFunc(opts.Hosts, func(h HostSpec) bool { return h.Custom.RHEL() })
	if err := hostprofile.BuildBase(baseDirPath(f.stateDir), rhel); err != nil {
		return err
	}
	if err := buildMask(maskDirPath(f.stateDir)); err != nil {
		return fmt.Errorf("build mask layer: %w", err)
	}
	// The fleet-wide user key, made once before the hosts start in parallel.
	if _, err := fleetUserKey(f.stateDir); err != nil {
		return fmt.Errorf("fleet user key: %w", err)
	}
	ports := make([]int, len(opts.Hosts))
	if opts.BasePort > 0 {
		for i := range ports {
			ports[i] = opts.BasePort + i
		}
	} else {
		var err error
		if ports, err = freePorts(len(opts.Hosts)); err != nil {
			return err
		}
	}
	twins := make([]*twin, len(opts.Hosts))
	errs := make([]error, len(opts.Hosts))
	sem := make(chan struct{}, opts.Parallel)
	var wg sync.WaitGroup
	for i, spec := range opts.Hosts {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			twins[i], errs[i] = f.startHost(ctx, spec, i, ports[i], opts.BasePort == 0)
		})
	}
	wg.Wait()
	for _, t := range twins {
		if t != nil {
			f.twins = append(f.twins, t)
			f.byName[t.host.Name] = t
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := f.writeFleetKnownHosts(); err != nil {
		return err
	}
	return f.saveState()
}

// startHost prepares and launches one host. On a launch error the twin is
// still returned, so that Stop cleans up after it.
func (f *Fleet) startHost(ctx context.Context, spec HostSpec, index, port int, pickPorts bool) (*twin, error) {
	t, err := f.prepare(spec, index, port)
	if err != nil {
		return nil, fmt.Errorf("host %s: %w", spec.Name, err)
	}
	for attempt := 1; ; attempt++ {
		err = f.bindRelay(t)
		if err == nil {
			err = f.launch(ctx, t)
		}
		var inUse *portInUseError
		if err == nil || !pickPorts || !errors.As(err, &inUse) || attempt == portAttempts {
			break
		}
		ports, perr := freePorts(1)
		if perr != nil {
			return t, fmt.Errorf("host %s: %w", spec.Name, perr)
		}
		key, perr := t.hostPublicKey()
		if perr == nil {
			perr = t.setPort(ports[0], key)
		}
		if perr != nil {
			return t, fmt.Errorf("host %s: %w", spec.Name, perr)
		}
	}
	if err != nil {
		return t, fmt.Errorf("host %s: %w", spec.Name, err)
	}
	return t, nil
}

// bindRelay starts the relay of a Network host on its address, once.
func (f *Fleet) bindRelay(t *twin) error {
	if !f.network || t.relay != nil {
		return nil
	}
	r, err := listenRelay(t.host.Address, f.rtt)
	if errors.Is(err, syscall.EADDRINUSE) {
		return &portInUseError{port: t.host.Port, log: err.Error()}
	}
	t.relay = r
	return err
}

// launch starts t's sshd and records its process. The caller holds t.mu
// or owns t exclusively.
func (f *Fleet) launch(ctx context.Context, t *twin) error {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	marker, err := newMarker(t.host.Name)
	if err != nil {
		return err
	}
	link := ""
	if f.network {
		if t.relay == nil {
			return errors.New("its network relay lives in the process that started the fleet")
		}
		if link, err = newLinkName(); err != nil {
			return err
		}
	}
	p, err := launch(ctx, launchSpec{
		name:     t.host.Name,
		marker:   marker,
		paths:    t.paths,
		baseDir:  baseDirPath(f.stateDir),
		maskDir:  maskDirPath(f.stateDir),
		stateDir: f.stateDir,
		rootview: f.rootview,
		logFile:  t.logFile,
		listen:   t.listen,
		port:     t.host.Port,
		link:     link,
	})
	if err != nil {
		return err
	}
	pid := p.cmd.Process.Pid
	start, err1 := startTime(pid)
	ns, err2 := mountNS(pid)
	self, err3 := mountNS(os.Getpid())
	if err := errors.Join(err1, err2, err3); err != nil || ns == self {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-p.done
		if err == nil {
			err = errors.New("sshd did not get a mount namespace of its own")
		}
		return err
	}
	t.proc, t.pid, t.start, t.ns, t.marker = p, pid, start, ns, marker
	if link != "" {
		t.link = link
		t.relay.setUpstream(linkUpstream(link, t.host.Port))
	}
	return nil
}

// newMarker returns a fresh mount source for host name's root overlay.
func newMarker(name string) (string, error) {
	r, err := randomHex()
	return "twin-" + name + "-" + r, err
}

// randomHex returns 12 random hex digits.
func randomHex() (string, error) {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// hostPublicKey parses t.host.HostPublicKey.
func (t *twin) hostPublicKey() (ssh.PublicKey, error) {
	key, _, _, _, err := ssh.ParseAuthorizedKey([]byte(t.host.HostPublicKey))
	return key, err
}

// writeFleetKnownHosts writes the fleet-wide known_hosts file.
func (f *Fleet) writeFleetKnownHosts() error {
	var b strings.Builder
	for _, t := range f.twins {
		key, err := t.hostPublicKey()
		if err != nil {
			return fmt.Errorf("host %s: %w", t.host.Name, err)
		}
		b.WriteString(knownHostsLine(t.host.Address, key))
	}
	return writeFileAtomic(fleetKnownHostsPath(f.stateDir), []byte(b.String()), 0o644)
}
