package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/sftp"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// cleanupTimeout bounds the removal of a temporary file after a failed or
// cancelled write; it runs even when the caller's context has ended.
const cleanupTimeout = 15 * time.Second

// exitNotExist is the exit status the sudo read script uses for a missing
// file.
const exitNotExist = 44

// WriteFile replaces the file at path (absolute) with data, atomically: the
// data goes to a temporary file in the same directory (".<name>.tmp-<random>"),
// which gets mode and, when owner ("user", "user:group" or ":group") is set,
// its owner, and is then renamed over path. Readers see the old file or the
// new one, never a partial one; on any failure the temporary file is removed
// and path is untouched.
//
// Without sudo (and without Config.Become.Enabled) the file is written with
// SFTP. SFTP has no sudo, so with sudo the data is streamed on standard input
// to one shell command run under sudo, which checks the size it received
// before renaming.
func (c *Client) WriteFile(ctx context.Context, path string, data []byte, mode os.FileMode, owner string, sudo bool) error {
	hs, err := c.state()
	if err != nil {
		return err
	}
	if err := checkPath(path); err != nil {
		return fmt.Errorf("write %s on %s: %w", path, hs.ep.addr, err)
	}
	tmp, err := shell.TempName(path)
	if err != nil {
		return fmt.Errorf("write %s on %s: %w", path, hs.ep.addr, err)
	}
	if sudo || c.pool.cfg.Become.Enabled {
		err = c.writeSudo(ctx, hs, path, tmp, data, mode, owner)
	} else {
		err = c.writeSFTP(ctx, hs, path, tmp, data, mode, owner)
	}
	if err != nil {
		return fmt.Errorf("write %s on %s: %w", path, hs.ep.addr, err)
	}
	return nil
}

// writeSFTP creates the temporary file exclusively, sets its mode before any
// data is written (so secrets are never readable by others), writes, syncs
// and renames it with posix-rename. An owner needs chown(1) (SFTP only takes
// numeric ids), run with the rename as one command.
func (c *Client) writeSFTP(ctx context.Context, hs *hostState, target, tmp string, data []byte, mode os.FileMode, owner string) (err error) {
	created := false
	defer func() {
		if err != nil && created {
			c.removeTemp(ctx, hs, tmp, false)
		}
	}()
	err = c.withSFTP(ctx, hs, func(sc *sftp.Client) error {
		f, err := sc.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
		if err != nil {
			return fmt.Errorf("create temporary file: %w", err)
		}
		created = true
		if err := writeTemp(f, data, mode); err != nil {
			return err
		}
		if owner != "" {
			return nil
		}
		if err := sc.PosixRename(tmp, target); err != nil {
			return fmt.Errorf("rename temporary file: %w", err)
		}
		created = false
		return nil
	})
	if err != nil || owner == "" {
		return err
	}
	script, err := shell.And(shell.New("chown", "--", owner, tmp), shell.New("mv", "-f", "--", tmp, target)).Render()
	if err != nil {
		return err
	}
	if _, err := c.exec(ctx, hs, script, nil); err != nil {
		return err
	}
	created = false
	return nil
}

func writeTemp(f *sftp.File, data []byte, mode os.FileMode) error {
	err := f.Chmod(mode)
	if err != nil {
		err = fmt.Errorf("chmod temporary file: %w", err)
	} else if _, werr := io.Copy(f, bytes.NewReader(data)); werr != nil {
		err = fmt.Errorf("write temporary file: %w", werr)
	} else if serr := f.Sync(); serr != nil && !errors.Is(serr, sftp.ErrSSHFxOpUnsupported) {
		err = fmt.Errorf("sync temporary file: %w", serr)
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close temporary file: %w", cerr)
	}
	return err
}

// writeSudo writes through one command under sudo, the data on its standard
// input (after the sudo password, if any):
//
//	set -C; umask 077; trap 'rm -f -- TMP' EXIT
//	cat > TMP && size check && chmod MODE TMP [&& chown OWNER TMP] && mv -f -- TMP PATH
//
// This was preferred to an sftp-server started under sudo: the sftp-server
// path differs between distributions, and this needs one session and no
// helper. noclobber (set -C) refuses a pre-existing temporary file, umask 077
// keeps the data private until chmod, and the size check refuses a stream
// cut short (cat sees EOF when the session ends), so a partial file is never
// renamed into place. The EXIT trap removes the temporary file on failure.
func (c *Client) writeSudo(ctx context.Context, hs *hostState, target, tmp string, data []byte, mode os.FileMode, owner string) error {
	script, err := shell.AtomicWrite{Path: target, Temp: tmp, Size: len(data), Mode: mode, Owner: owner}.Script().Render()
	if err != nil {
		return err
	}
	line, stdin, err := c.sudo(ctx, hs, script, bytes.NewReader(data))
	if err != nil {
		return err
	}
	if _, err := c.exec(ctx, hs, line, stdin); err != nil {
		// The trap has removed the file unless the shell was killed. A
		// ConnectError means the command never started.
		var ce *ConnectError
		if !errors.As(err, &ce) {
			c.removeTemp(ctx, hs, tmp, true)
		}
		return err
	}
	return nil
}

// removeTemp removes a temporary file left by a failed write, with a context
// of its own so that it also runs after the caller's context ended.
func (c *Client) removeTemp(ctx context.Context, hs *hostState, tmp string, sudo bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	line, err := shell.New("rm", "-f", "--", tmp).Render()
	if err != nil {
		return
	}
	var stdin io.Reader
	if sudo {
		var err error
		if line, stdin, err = c.sudo(ctx, hs, line, nil); err != nil {
			return
		}
	}
	_, _ = c.exec(ctx, hs, line, stdin)
}

// ReadFile returns the content of the file at path (absolute). A missing
// file returns an error that matches [fs.ErrNotExist]. Without sudo (and
// without Config.Become.Enabled) it reads with SFTP, with sudo through cat.
func (c *Client) ReadFile(ctx context.Context, path string, sudo bool) ([]byte, error) {
	hs, err := c.state()
	if err != nil {
		return nil, err
	}
	if err := checkPath(path); err != nil {
		return nil, fmt.Errorf("read %s on %s: %w", path, hs.ep.addr, err)
	}
	var data []byte
	if sudo || c.pool.cfg.Become.Enabled {
		data, err = c.readSudo(ctx, hs, path)
	} else {
		err = c.withSFTP(ctx, hs, func(sc *sftp.Client) error {
			f, err := sc.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			data, err = io.ReadAll(f)
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("read %s on %s: %w", path, hs.ep.addr, err)
	}
	return data, nil
}

// catIfExists prints the file $1, or exits with status $2 when it does not exist.
const catIfExists = `if [ -e "$1" ]; then exec cat -- "$1"; else exit "$2"; fi`

func (c *Client) readSudo(ctx context.Context, hs *hostState, path string) ([]byte, error) {
	script, err := shell.New("sh", "-c", catIfExists, "sh", path, strconv.Itoa(exitNotExist)).Render()
	if err != nil {
		return nil, err
	}
	line, stdin, err := c.sudo(ctx, hs, script, nil)
	if err != nil {
		return nil, err
	}
	res, err := c.exec(ctx, hs, line, stdin)
	var ce *CommandError
	if errors.As(err, &ce) && ce.ExitStatus == exitNotExist {
		return nil, fmt.Errorf("%w: %w", fs.ErrNotExist, err)
	}
	return res.Stdout, err
}

// withSFTP runs fn with an SFTP client on a session of its own, which holds
// one MaxSessions slot. When ctx ends the session is closed, which fails the
// SFTP call in progress.
func (c *Client) withSFTP(ctx context.Context, hs *hostState, fn func(*sftp.Client) error) error {
	sess, _, release, err := c.pool.session(ctx, hs)
	if err != nil {
		return err
	}
	defer release()
	stop := context.AfterFunc(ctx, func() { _ = sess.Close() })
	defer stop()
	w, err := sess.StdinPipe()
	if err != nil {
		return err
	}
	r, err := sess.StdoutPipe()
	if err != nil {
		return err
	}
	if err := sess.RequestSubsystem("sftp"); err != nil {
		return fmt.Errorf("start sftp: %w", err)
	}
	sc, err := sftp.NewClientPipe(r, w)
	if err != nil {
		return fmt.Errorf("start sftp: %w", err)
	}
	err = fn(sc)
	_ = sc.Close()
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

// checkPath accepts absolute, clean-enough paths that a shell command line
// can carry and that name a file, not a directory.
func checkPath(p string) error {
	switch {
	case !strings.HasPrefix(p, "/"):
		return errors.New("path must be absolute")
	case strings.HasSuffix(p, "/"):
		return errors.New("path names a directory")
	case strings.IndexByte(p, 0) >= 0:
		return fmt.Errorf("path %w", shell.ErrNUL)
	}
	return nil
}
