package ssh

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// SudoCommand returns cmd decorated to run through sudo -n as user (root when
// empty), in a POSIX shell: sudo -n -- sh -c '<cmd>'. It fails when cmd
// contains a NUL byte. With a password, [Client.Run] decorates commands itself
// (see [Client.sudo]).
func SudoCommand(cmd, user string) (string, error) {
	return shell.Sudo(shell.New("sh", "-c", cmd), shell.SudoOptions{User: user}).Render()
}

// sudo decorates cmd with sudo according to Config.Become and returns the
// command line and the standard input to send.
//
// Without a password, sudo -n fails rather than prompting. With one, it does
// what Ansible's become does (lib/ansible/plugins/become/sudo.py, and the
// state machine of lib/ansible/plugins/connection/ssh.py): sudo -S gets a
// prompt of its own, random per command, and the command prints a random
// marker on standard error first, once sudo runs it:
//
//	sudo -S -p '[sudo via roce, key=K] password:' -- sh -c 'echo ROCE-SUDO-RUNNING-K >&2; <cmd>'
//
// The returned reader, a *sudoInput, and the standard error watch that exec
// sets up with it write the password only after the prompt appears, and the
// caller's stdin only after the marker. sudo runs some commands without
// asking (a NOPASSWD rule, a cached timestamp): then the password is never
// sent, where a blind write would leave it on the command's stdin (for
// WriteFile, in the file). A second prompt means the password was refused:
// exec stops the command with [ErrSudoPassword] instead of answering again.
func (c *Client) sudo(_ context.Context, hs *hostState, cmd string, stdin io.Reader) (string, io.Reader, error) {
	b := c.pool.cfg.Become
	if b.Password == "" {
		line, err := SudoCommand(cmd, b.User)
		if err != nil {
			return "", nil, fmt.Errorf("sudo command for %s: %w", hs.ep.addr, err)
		}
		return line, stdin, nil
	}
	// sudo expands %-escapes in a prompt; rand.Text has none (A-Z, 2-7).
	key := rand.Text()
	prompt, marker := "[sudo via roce, key="+key+"] password:", "ROCE-SUDO-RUNNING-"+key
	line, err := shell.Sudo(shell.New("sh", "-c", "echo "+marker+" >&2; "+cmd), shell.SudoOptions{User: b.User, Prompt: prompt}).Render()
	if err != nil {
		return "", nil, fmt.Errorf("sudo command for %s: %w", hs.ep.addr, err)
	}
	return line, newSudoInput(prompt, marker, b.Password, stdin), nil
}

// sudoInput is the standard input of one command run by sudo -S with the
// prompt and marker of [Client.sudo]. It gives nothing until its
// [sudoWatch] has seen, on standard error, the prompt (then the password
// line, once) or the marker (then the caller's stdin), and EOF once exec is
// over. One goroutine (the session's stdin copy) reads it.
type sudoInput struct {
	prompt, marker []byte // the marker with its newline
	password       []byte // with its newline
	stdin          io.Reader

	asked   chan struct{} // one token: sudo prompted
	running chan struct{} // closed: sudo runs the command
	done    chan struct{} // closed: exec is over
	pending []byte        // what Read has left to give of the password
}

func newSudoInput(prompt, marker, password string, stdin io.Reader) *sudoInput {
	return &sudoInput{
		prompt:   []byte(prompt),
		marker:   []byte(marker + "\n"),
		password: []byte(password + "\n"),
		stdin:    stdin,
		asked:    make(chan struct{}, 1),
		running:  make(chan struct{}),
		done:     make(chan struct{}),
	}
}

func (in *sudoInput) Read(p []byte) (int, error) {
	for len(in.pending) == 0 {
		// Once sudo runs the command the password must never follow, even
		// if a prompt token is still unread.
		select {
		case <-in.running:
			if in.stdin == nil {
				return 0, io.EOF
			}
			return in.stdin.Read(p)
		case <-in.done:
			return 0, io.EOF
		default:
		}
		select {
		case <-in.asked:
			in.pending = in.password
		case <-in.running:
		case <-in.done:
		}
	}
	n := copy(p, in.pending)
	in.pending = in.pending[n:]
	return n, nil
}

// close ends Read; exec calls it once the session is over.
func (in *sudoInput) close() { close(in.done) }

// watch returns the standard error of the command: it passes everything to
// w except sudo's prompts and the marker, and calls refused when sudo prompts
// a second time.
func (in *sudoInput) watch(w io.Writer, refused func()) *sudoWatch {
	return &sudoWatch{in: in, w: w, refused: refused}
}

// sudoWatch scans standard error until the marker; one goroutine (the
// session's stderr copy) writes it. Before the marker only sudo writes
// there, so the prompt cannot be the command's own output.
type sudoWatch struct {
	in      *sudoInput
	w       io.Writer
	refused func()
	held    []byte // not passed on yet: may be the start of a prompt or the marker
	prompts int
	running bool
}

func (s *sudoWatch) Write(p []byte) (int, error) {
	if s.running {
		return s.w.Write(p)
	}
	s.held = append(s.held, p...)
	for !s.running {
		i := bytes.Index(s.held, s.in.prompt)
		j := bytes.Index(s.held, s.in.marker)
		switch {
		case j >= 0 && (i < 0 || j < i):
			s.running = true
			close(s.in.running)
			rest := append(s.held[:j:j], s.held[j+len(s.in.marker):]...)
			s.held = nil
			if _, err := s.w.Write(rest); err != nil {
				return 0, err
			}
			return len(p), nil
		case i >= 0:
			if _, err := s.w.Write(s.held[:i]); err != nil {
				return 0, err
			}
			s.held = s.held[i+len(s.in.prompt):]
			s.prompts++
			if s.prompts == 1 {
				s.in.asked <- struct{}{}
			} else {
				s.refused()
			}
			continue
		}
		break
	}
	// Pass on all but what could still become a prompt or the marker.
	if keep := max(len(s.in.prompt), len(s.in.marker)) - 1; len(s.held) > keep {
		n := len(s.held) - keep
		if _, err := s.w.Write(s.held[:n]); err != nil {
			return 0, err
		}
		s.held = append([]byte(nil), s.held[n:]...)
	}
	return len(p), nil
}

// flush passes on what is held: the command ended before the marker (sudo
// refused to run it, say). s may be nil.
func (s *sudoWatch) flush() {
	if s == nil || len(s.held) == 0 {
		return
	}
	_, _ = s.w.Write(s.held)
	s.held = nil
}
