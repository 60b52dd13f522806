package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/sftp"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// cleanupTimeout bounds the removal of a temporary file (or staging
// directory) after a failed or cancelled write; it runs even when the
// caller's context has ended.
const cleanupTimeout = 15 * time.Second

// exitNotExist is the exit status the sudo read script uses for a missing
// file.
const exitNotExist = 44

// ReadLimit is the largest file [Client.ReadFile] returns, 16 MiB: it reads
// configuration files and logs (the largest, an NCCL INFO log, is megabytes),
// and a path that names a huge file, or a link to /dev/zero, must not exhaust
// the provider's memory.
const ReadLimit = 16 << 20

// exitNotRegular is the exit status the sudo read script uses for a path that
// is not a regular file.
const exitNotRegular = 45

var (
	errNotRegular = errors.New("not a regular file (a device, FIFO or directory): refusing to read it")
	errTooLarge   = fmt.Errorf("larger than ReadFile's limit of %d MiB: refusing to read it", ReadLimit>>20)
)

// WriteFile replaces the file at path (absolute) with data, atomically: the
// data goes to a temporary file in the same directory, which gets mode and,
// when owner ("user", "user:group" or ":group") is set, its owner, is synced,
// and is then renamed over path; the directory is synced after the rename.
// Readers see the old file or the new one, never a partial one; on any
// failure the temporary file is removed and path is untouched. It refuses a
// directory that group or others can write or that a user other than root
// and the writing user owns: there, another user could swap the temporary
// file for a symlink (see [shell.AtomicWrite.Script]).
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

// writeSFTP writes through a staging directory next to target, stage
// (".<name>.tmp-<random>"): it is made 0700 before anything is created in it,
// and the file is created, written, synced and given its mode inside, then
// renamed over target with posix-rename. sftp-server creates files with its
// umask (often 0644) and SFTP cannot pass a mode at creation, so a file
// created next to target would be readable by others until its chmod, and
// whoever opened it then could read the data written later. Nobody else can
// reach a file inside the staging directory: permission on a directory is
// checked at each lookup, so a descriptor on it opened earlier does not help.
// (Routing private files through the shell path instead would need a shell
// for every write and split the behaviour by mode.) An owner needs chown(1)
// (SFTP only takes numeric ids), run with the rename as one command.
func (c *Client) writeSFTP(ctx context.Context, hs *hostState, target, stage string, data []byte, mode os.FileMode, owner string) (err error) {
	dir, tmp := path.Dir(target), stage+"/"+path.Base(target)
	created := false
	defer func() {
		if err != nil && created {
			c.removeTemp(ctx, hs, shell.New("rm", "-rf", "--", stage), false)
		}
	}()
	err = c.withSFTP(ctx, hs, func(sc *sftp.Client) error {
		if err := checkDir(sc, dir, stage); err != nil {
			return err
		}
		if err := sc.Mkdir(stage); err != nil {
			return fmt.Errorf("create staging directory: %w", err)
		}
		created = true
		if err := sc.Chmod(stage, 0o700); err != nil {
			return fmt.Errorf("chmod staging directory: %w", err)
		}
		f, err := sc.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
		if err != nil {
			return fmt.Errorf("create temporary file: %w", err)
		}
		if err := writeTemp(f, data, mode); err != nil {
			return err
		}
		if owner != "" {
			return nil
		}
		if err := sc.PosixRename(tmp, target); err != nil {
			return fmt.Errorf("rename temporary file: %w", err)
		}
		if err := sc.RemoveDirectory(stage); err != nil {
			return fmt.Errorf("remove staging directory: %w", err)
		}
		created = false
		return syncDir(sc, dir)
	})
	if err != nil || owner == "" {
		return err
	}
	script, err := shell.And(
		shell.New("chown", "-h", "--", owner, tmp),
		shell.New("mv", "-f", "--", tmp, target),
		shell.New("rmdir", "--", stage),
		shell.New("sync", "--", dir),
	).Render()
	if err != nil {
		return err
	}
	if _, err := c.exec(ctx, hs, script, nil); err != nil {
		return err
	}
	created = false
	return nil
}

// checkDir refuses dir unless only root and the writing user can change it,
// as the shell path does (see [shell.AtomicWrite.Script]). The writer's uid
// is needed only when dir's owner is not root; it is the owner of an empty
// file created at probe, removed at once.
func checkDir(sc *sftp.Client, dir, probe string) error {
	fi, err := sc.Stat(dir)
	if err != nil {
		return fmt.Errorf("stat directory: %w", err)
	}
	st, ok := fi.Sys().(*sftp.FileStat)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	case !ok:
		return fmt.Errorf("stat %s: the server sent no owner", dir)
	}
	unsafe := fmt.Errorf(shell.UnsafeDirMessage, dir, strconv.FormatUint(uint64(st.UID), 10), fmt.Sprintf("%#o", st.Mode&0o7777))
	if fi.Mode().Perm()&0o022 != 0 {
		return unsafe
	}
	if st.UID == 0 {
		return nil
	}
	f, err := sc.OpenFile(probe, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return fmt.Errorf("create %s to learn the writing user: %w", probe, err)
	}
	pfi, err := f.Stat()
	_ = f.Close()
	if rerr := sc.Remove(probe); err == nil && rerr != nil {
		err = fmt.Errorf("remove %s: %w", probe, rerr)
	}
	if err != nil {
		return err
	}
	if me, ok := pfi.Sys().(*sftp.FileStat); !ok || me.UID != st.UID {
		return unsafe
	}
	return nil
}

// syncDir makes the rename in dir durable. SFTP has no fsync for directory
// handles, but sftp-server opens what it is asked to, a directory included,
// and fsync@openssh.com then syncs that descriptor. A server without the
// extension leaves it unsynced, as it does the file.
func syncDir(sc *sftp.Client, dir string) error {
	d, err := sc.Open(dir)
	if err != nil {
		return fmt.Errorf("open directory to sync it: %w", err)
	}
	err = d.Sync()
	_ = d.Close()
	if err != nil && !errors.Is(err, sftp.ErrSSHFxOpUnsupported) {
		return fmt.Errorf("sync directory: %w", err)
	}
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
// input (after the sudo password, if any): [shell.AtomicWrite.Script].
//
// This was preferred to an sftp-server started under sudo: the sftp-server
// path differs between distributions, and this needs one session and no
// helper.
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
		// ConnectError means the command never started, and a refused
		// directory means it created nothing.
		var ce *ConnectError
		var cmdErr *CommandError
		refused := errors.As(err, &cmdErr) && cmdErr.ExitStatus == shell.ExitUnsafeDir
		if !errors.As(err, &ce) && !refused {
			c.removeTemp(ctx, hs, shell.New("rm", "-f", "--", tmp), true)
		}
		return err
	}
	return nil
}

// removeTemp runs rm, which removes what a failed write left, with a context
// of its own so that it also runs after the caller's context ended.
func (c *Client) removeTemp(ctx context.Context, hs *hostState, rm shell.Command, sudo bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	line, err := rm.Render()
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

// ReadFile returns the content of the file at path (absolute), at most
// [ReadLimit] bytes: a larger file, or one that is not a regular file (a
// device, a FIFO, a directory, or a link to one), is an error. A missing
// file returns an error that matches [fs.ErrNotExist]. Without sudo (and
// without Config.Become.Enabled) it reads with SFTP, with sudo through head(1).
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
			data, err = readSFTP(sc, path)
			return err
		})
	}
	if err == nil && len(data) > ReadLimit {
		err = errTooLarge
	}
	if err != nil {
		return nil, fmt.Errorf("read %s on %s: %w", path, hs.ep.addr, err)
	}
	return data, nil
}

// readSFTP reads at most ReadLimit+1 bytes of a regular file. The type that
// counts is that of the opened file; the stat of the path before only keeps
// open from blocking on a FIFO.
func readSFTP(sc *sftp.Client, path string) ([]byte, error) {
	if fi, err := sc.Stat(path); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, errNotRegular
	}
	f, err := sc.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, errNotRegular
	case fi.Size() > ReadLimit:
		return nil, errTooLarge
	}
	return io.ReadAll(io.LimitReader(f, ReadLimit+1))
}

// readIfExists prints at most $4 bytes of the regular file $1, or exits with
// status $2 when it does not exist and $3 when it is not a regular file. The
// type that counts is that of the opened descriptor (test follows /dev/fd/3
// to it); the test of the path before only keeps the open from blocking on a
// FIFO (one swapped in between blocks until ctx ends).
const readIfExists = `if [ ! -e "$1" ]; then exit "$2"; fi; ` +
	`[ -f "$1" ] && exec 3< "$1" && [ -f /dev/fd/3 ] || exit "$3"; exec head -c "$4" <&3`

func (c *Client) readSudo(ctx context.Context, hs *hostState, path string) ([]byte, error) {
	script, err := shell.New("sh", "-c", readIfExists, "sh", path,
		strconv.Itoa(exitNotExist), strconv.Itoa(exitNotRegular), strconv.Itoa(ReadLimit+1)).Render()
	if err != nil {
		return nil, err
	}
	line, stdin, err := c.sudo(ctx, hs, script, nil)
	if err != nil {
		return nil, err
	}
	res, err := c.exec(ctx, hs, line, stdin)
	var ce *CommandError
	switch {
	case errors.As(err, &ce) && ce.ExitStatus == exitNotExist:
		return nil, fmt.Errorf("%w: %w", fs.ErrNotExist, err)
	case errors.As(err, &ce) && ce.ExitStatus == exitNotRegular:
		return nil, errNotRegular
	}
	return res.Stdout, err
}

// withSFTP runs fn with an SFTP client on a session of its own, which holds
// one MaxSessions slot. When ctx ends the session is closed, which fails the
// SFTP call in progress.
func (c *Client) withSFTP(ctx context.Context, hs *hostState, fn func(*sftp.Client) error) error {
	// An SFTP session is bounded as a command is: a hung sftp-server (a target on a stale
	// network mount) must end too.
	ctx, cancel := context.WithTimeoutCause(ctx, DefaultCommandTimeout,
		&TimeoutError{Host: hs.ep.addr, Command: "sftp", Timeout: DefaultCommandTimeout})
	defer cancel()
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
