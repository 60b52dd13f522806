package hosttwin

import "path/filepath"

// A host's directory, <StateDir>/hosts/<name>, holds:
//
//	layer/      the host's overlay layer (hostprofile.RenderHost)
//	upper/      what the twin wrote (overlay upperdir)
//	work/       overlay workdir
//	merged/     mount point of the twin's root (mounted in its namespace only)
//	rootview/   mount point of a read-only view of / (same-filesystem case)
//	sshd/       sshd_config, host key, authorized_keys; bound read-only to
//	            /etc/ssh/twin inside the twin
//	id_ed25519  the user's key pair (and .pub)
//	known_hosts the host's known_hosts entry
//	sshd.log    sshd's log unless Options.LogDir is set
type hostPaths string

func (p hostPaths) layer() string          { return filepath.Join(string(p), "layer") }
func (p hostPaths) upper() string          { return filepath.Join(string(p), "upper") }
func (p hostPaths) work() string           { return filepath.Join(string(p), "work") }
func (p hostPaths) merged() string         { return filepath.Join(string(p), "merged") }
func (p hostPaths) rootview() string       { return filepath.Join(string(p), "rootview") }
func (p hostPaths) sshd() string           { return filepath.Join(string(p), "sshd") }
func (p hostPaths) sshdConfig() string     { return filepath.Join(p.sshd(), "sshd_config") }
func (p hostPaths) hostKey() string        { return filepath.Join(p.sshd(), twinHostKeyName) }
func (p hostPaths) authorizedKeys() string { return filepath.Join(p.sshd(), "authorized_keys") }
func (p hostPaths) userKey() string        { return filepath.Join(string(p), "id_ed25519") }
func (p hostPaths) knownHosts() string     { return filepath.Join(string(p), "known_hosts") }

// Paths inside the twin.
const (
	twinSSHDir      = "/etc/ssh/twin"
	twinHostKeyName = "ssh_host_ed25519_key"
	twinSSHDConfig  = twinSSHDir + "/sshd_config"
)

func stateFilePath(stateDir string) string     { return filepath.Join(stateDir, "fleet.json") }
func baseDirPath(stateDir string) string       { return filepath.Join(stateDir, "base") }
func maskDirPath(stateDir string) string       { return filepath.Join(stateDir, "mask") }
func hostDirPath(stateDir, name string) string { return filepath.Join(stateDir, "hosts", name) }
func fleetKnownHostsPath(stateDir string) string {
	return filepath.Join(stateDir, "known_hosts")
}
func fleetUserKeyPath(stateDir string) string { return filepath.Join(stateDir, "id_ed25519") }

// logPath is where host name's sshd log goes.
func logPath(stateDir, logDir, name string) string {
	if logDir != "" {
		return filepath.Join(logDir, name+".sshd.log")
	}
	return filepath.Join(hostDirPath(stateDir, name), "sshd.log")
}
