package hosttwin

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// sshdConfig renders the sshd_config of a twin listening on listen:port. Paths are
// inside the twin. LogLevel VERBOSE makes sshd log "Accepted publickey" per
// connection and "Starting session: command" per command, which
// ConnectionCount and CommandCount count.
func sshdConfig(name, listen string, port int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# sshd_config of host twin %s, written by hosttwin; replaced on every start.\n", name)
	lines := []string{
		"ListenAddress " + net.JoinHostPort(listen, strconv.Itoa(port)),
		"HostKey " + twinSSHDir + "/" + twinHostKeyName,
		"AuthorizedKeysFile " + twinSSHDir + "/authorized_keys",
		"PermitRootLogin prohibit-password",
		"PubkeyAuthentication yes",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"UsePAM no",
		"StrictModes no",
		"PidFile /run/sshd.pid",
		// OpenSSH defaults (sshd_config(5)), spelled out because the
		// bootstrapper's connection pool is sized against them.
		"MaxSessions 10",
		"MaxStartups 10:30:100",
		"LogLevel VERBOSE",
		"UseDNS no",
		"PrintMotd no",
		"X11Forwarding no",
		"AcceptEnv LANG LC_*",
		// Uploads go through SFTP; internal-sftp needs no binary in the twin.
		"Subsystem sftp internal-sftp",
	}
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
