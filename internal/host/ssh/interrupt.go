package ssh

import (
	"bytes"
	"io"
	"strconv"
	"sync"
	"time"

	xssh "golang.org/x/crypto/ssh"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// pidPrefix makes every command print the PID of the login shell first on
// standard output. sshd starts that shell as the leader of a new session, so
// the PID is also the process group of everything the command starts: a
// cancelled command can be terminated as a whole, which sshd's signal request
// cannot do (it is refused for root logins, and reaches only the shell).
// [pidWriter] strips the line again. It assumes a POSIX login shell.
const pidPrefix = "echo $$; "

// killTimeout bounds the session that terminates a cancelled command.
const killTimeout = 5 * time.Second

// interrupt stops a running command. The session is closed first, which
// stops its standard input at once (a write under way sees its input end
// early and refuses to rename). Then SIGTERM goes to the command's process
// group (sudo relays it to the command it runs) and SIGKILL to what is left a
// second later. The kill runs in a session of its own, outside the
// MaxSessions accounting: it uses the headroom between Config.MaxSessions and
// sshd's limit. Everything is best effort.
func interrupt(c *conn, sess *xssh.Session, pid int) {
	_ = sess.Signal(xssh.SIGTERM)
	_ = sess.Close()
	if pid > 1 {
		killGroup(c, pid)
	}
}

func killGroup(c *conn, pid int) {
	s, err := c.client.NewSession()
	if err != nil {
		return
	}
	defer s.Close()
	t := time.AfterFunc(killTimeout, func() { _ = s.Close() })
	defer t.Stop()
	// The process group is the script's argument, so the script stays a constant.
	script, err := shell.New("sh", "-c", killGroupScript, "sh", "-"+strconv.Itoa(pid)).Render()
	if err != nil {
		return
	}
	_ = s.Run(script)
}

// killGroupScript asks the process group "$1" to end, waits up to a second, then kills it.
const killGroupScript = `kill -s TERM -- "$1" 2>/dev/null || exit 0; i=0; ` +
	`while [ $i -lt 10 ] && kill -s 0 -- "$1" 2>/dev/null; do sleep 0.1 || break; i=$((i+1)); done; ` +
	`kill -s KILL -- "$1" 2>/dev/null; exit 0`

// pidWriter passes a command's standard output through, less its first line
// when that is the PID printed by pidPrefix, which it keeps.
type pidWriter struct {
	w io.Writer

	mu   sync.Mutex
	head []byte // first line so far
	done bool   // first line consumed
	n    int    // the PID, 0 until known
}

func (p *pidWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(b)
	if !p.done {
		i := bytes.IndexByte(b, '\n')
		if i < 0 && len(p.head)+len(b) <= 32 {
			p.head = append(p.head, b...)
			return n, nil
		}
		p.done = true
		if i >= 0 {
			line := append(p.head, b[:i]...)
			if pid, err := strconv.Atoi(string(line)); err == nil && pid > 0 {
				p.n, p.head, b = pid, nil, b[i+1:]
			}
		}
		if p.head != nil {
			// Not a PID line: keep everything.
			if _, err := p.w.Write(p.head); err != nil {
				return 0, err
			}
			p.head = nil
		}
	}
	if _, err := p.w.Write(b); err != nil {
		return 0, err
	}
	return n, nil
}

// pid returns the PID, or 0 when it has not been read.
func (p *pidWriter) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

// flush writes a pending partial first line (output without a newline and
// no PID line before it).
func (p *pidWriter) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.done && len(p.head) > 0 {
		_, _ = p.w.Write(p.head)
		p.head = nil
	}
	p.done = true
}
