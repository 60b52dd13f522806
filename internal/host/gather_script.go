package host

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// The gather script runs every step and, after each, prints a delimiter line
// on standard output and the same line on standard error:
//
//	\n<nonce> <step index> <exit status> <netdev or ->\n
//
// The leading newline separates the delimiter from output that does not end
// in one; the splitter removes it again. The nonce is 128 random bits
// drawn for each gather and sent on standard input, never on the command line,
// so no fact can print it: not by chance, and not by reading the process list
// either. Each stream is split on its own; stderr output thus cannot shift the
// split of stdout.

// gatherPrologue sets a predictable locale and a PATH with the sbin
// directories (non-root logins often lack them), works in / (the netdev loops
// resolve sysfs links with cd -P in the gather shell itself, not in a subshell
// per netdev, and come back to /), reads the nonce and defines the mark_ and
// mlx5_ functions. It is a trusted constant.
const gatherPrologue = `LC_ALL=C; export LC_ALL; PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin; export PATH; cd / || exit 1; ` +
	`IFS= read -r nonce_ || exit 97; case $nonce_ in *[!0-9a-f]*|'') exit 97;; esac; ` +
	`mark_() { printf '\n%s %s %s %s\n' "$nonce_" "$1" "$2" "${3:--}"; ` +
	`printf '\n%s %s %s %s\n' "$nonce_" "$1" "$2" "${3:--}" >&2; }; ` +
	mlx5Func

// nonceExit is the exit status of the gather script when standard input did
// not bring a valid nonce.
const nonceExit = 97

// gatherCommand is the gather script of steps. The login shell hands it to sh at once: where
// that shell is bash (root's on Debian and RHEL), each of the gather's 40-odd commands would
// otherwise fork a bash, a larger process than Debian's dash. On a Debian twin that cuts the
// host's CPU per gather by a fifth (BenchmarkGatherTwinCPU); where sh is bash it costs one exec.
func gatherCommand(steps []step) shell.Script {
	parts := []shell.Runnable{shell.Raw(gatherPrologue)}
	for i, s := range steps {
		mark := shell.Raw("mark_ " + strconv.Itoa(i) + " $?")
		switch {
		case s.inline == nil:
			// An empty standard input: no fact can read what follows the
			// nonce (sudo's password stream, for one).
			parts = append(parts, s.cmd.With(shell.FromFile(0, "/dev/null")), mark)
		case s.loop:
			parts = append(parts, s.inline(i))
		default:
			parts = append(parts, s.inline(i), mark)
		}
	}
	return shell.Exec(shell.Sh(shell.Seq(parts...)))
}

// newNonce returns 128 random bits in hex.
func newNonce() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
