package shell

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Redirect is one shell redirection, such as 2>/dev/null or >>'/var/log/x'.
// Build it with [ToFile], [AppendFile], [FromFile], [Dup] or [Discard] and
// attach it with [Command.With] or [Script.With]. The target path is quoted.
//
// Redirections are performed by the shell that runs the command line, as the
// login user, even when the command itself runs under [Sudo]: to write a
// root-owned file, pipe into "sudo tee" instead of redirecting.
type Redirect struct {
	fd     int
	op     string // ">", ">>", "<" or ">&"
	target string // path, or file descriptor number for ">&"
	err    error
}

// ToFile redirects file descriptor fd to path, truncating it (fd>path).
func ToFile(fd int, path string) Redirect { return newRedirect(fd, ">", path) }

// AppendFile redirects file descriptor fd to path, appending (fd>>path).
func AppendFile(fd int, path string) Redirect { return newRedirect(fd, ">>", path) }

// FromFile reads file descriptor fd from path (fd<path).
func FromFile(fd int, path string) Redirect { return newRedirect(fd, "<", path) }

// Discard sends file descriptor fd to /dev/null; Discard(2) is 2>/dev/null.
func Discard(fd int) Redirect { return ToFile(fd, "/dev/null") }

// Dup makes file descriptor fd a copy of file descriptor to (fd>&to); Dup(2, 1)
// is 2>&1.
func Dup(fd, to int) Redirect {
	r := Redirect{fd: fd, op: ">&", target: strconv.Itoa(to)}
	if err := checkFD(fd); err != nil {
		r.err = err
	} else if err := checkFD(to); err != nil {
		r.err = err
	}
	return r
}

func newRedirect(fd int, op, path string) Redirect {
	r := Redirect{fd: fd, op: op, target: path}
	switch {
	case checkFD(fd) != nil:
		r.err = checkFD(fd)
	case path == "":
		r.err = errors.New("empty redirection target")
	case strings.IndexByte(path, 0) >= 0:
		r.err = fmt.Errorf("redirection target %q: %w", path, ErrNUL)
	}
	return r
}

// checkFD accepts the descriptors every POSIX shell supports in a redirection.
func checkFD(fd int) error {
	if fd < 0 || fd > 9 {
		return fmt.Errorf("file descriptor %d out of range 0..9", fd)
	}
	return nil
}

// String returns the redirection as the shell reads it.
func (r Redirect) String() string { return r.text() }

func (r Redirect) text() string {
	prefix := strconv.Itoa(r.fd)
	if (r.op == ">" || r.op == ">>") && r.fd == 1 || r.op == "<" && r.fd == 0 {
		prefix = ""
	}
	if r.op == ">&" {
		return prefix + r.op + r.target
	}
	return prefix + r.op + Quote(r.target)
}
