package hosttwin

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/crypto/ssh"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
)

// prepare renders a fresh host directory for spec: the profile's layer,
// /etc/hostname, keys, authorized_keys, sshd_config and known_hosts.
func (f *Fleet) prepare(spec HostSpec, index, port int) (*twin, error) {
	p := hostPaths(hostDirPath(f.stateDir, spec.Name))
	if err := unmountUnder(string(p)); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(string(p)); err != nil {
		return nil, err
	}
	for _, d := range []string{p.layer(), p.upper(), p.work(), p.merged(), p.rootview(), p.sshd()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := hostprofile.RenderHost(p.layer(), *spec.Custom, hostID(spec.Name, index)); err != nil {
		return nil, err
	}
	if err := ensureHostname(p.layer(), spec.Name); err != nil {
		return nil, err
	}
	t := &twin{
		host: Host{
			Name:           spec.Name,
			User:           "root",
			PrivateKeyFile: p.userKey(),
			KnownHostsFile: p.knownHosts(),
			Profile:        spec.Profile,
		},
		index:   index,
		profile: *spec.Custom,
		paths:   p,
		logFile: logPath(f.stateDir, f.logDir, spec.Name),
		listen:  "127.0.0.1",
	}
	if f.network {
		t.listen = "::" // the namespace's own addresses only
	}
	// Counters start from zero with every Start, also in a shared LogDir.
	if err := os.Remove(t.logFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	user, err := newKeyPair("root@" + spec.Name + "-client")
	if err != nil {
		return nil, err
	}
	if err := user.write(p.userKey()); err != nil {
		return nil, err
	}
	fleetKey, err := fleetUserKey(f.stateDir)
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(p.authorizedKeys(), []byte(user.authorized+fleetKey), 0o644); err != nil {
		return nil, err
	}
	hostKey, err := t.newHostKey()
	if err != nil {
		return nil, err
	}
	if err := t.setPort(port, hostKey); err != nil {
		return nil, err
	}
	return t, nil
}

// ensureHostname writes /etc/hostname into the layer unless the profile
// did.
func ensureHostname(layer, name string) error {
	path := filepath.Join(layer, "etc", "hostname")
	if _, err := os.Stat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(name+"\n"), 0o644)
}

// newHostKey generates and installs a new sshd host key and records it in
// t.host. The caller holds t.mu (or owns t exclusively).
func (t *twin) newHostKey() (ssh.PublicKey, error) {
	k, err := newKeyPair("root@" + t.host.Name)
	if err != nil {
		return nil, err
	}
	if err := k.write(t.paths.hostKey()); err != nil {
		return nil, err
	}
	t.host.HostPublicKey = strings.TrimSuffix(string(ssh.MarshalAuthorizedKey(k.public)), "\n")
	return k.public, nil
}

// setPort points the host at port: address, sshd_config and known_hosts
// (with hostKey, the key clients should expect there).
func (t *twin) setPort(port int, hostKey ssh.PublicKey) error {
	if t.relay != nil {
		t.relay.close()
		t.relay = nil
	}
	t.host.Port = port
	t.host.Address = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	if err := writeFileAtomic(t.paths.sshdConfig(), []byte(sshdConfig(t.host.Name, t.listen, port)), 0o644); err != nil {
		return err
	}
	return writeFileAtomic(t.paths.knownHosts(), []byte(knownHostsLine(t.host.Address, hostKey)), 0o644)
}

// fleetUserKey returns the authorized_keys line of the fleet-wide user key, creating the key
// on first use.
func fleetUserKey(stateDir string) (string, error) {
	path := fleetUserKeyPath(stateDir)
	if pub, err := os.ReadFile(path + ".pub"); err == nil {
		return string(pub), nil
	}
	k, err := newKeyPair("root@fleet-client")
	if err != nil {
		return "", err
	}
	if err := k.write(path); err != nil {
		return "", err
	}
	return k.authorized, nil
}
