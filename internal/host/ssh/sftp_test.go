package ssh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/pkg/sftp"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// The test sshd runs on this machine, so the tests check remote files with
// the os package directly.

// writePaths are the two ways WriteFile writes: SFTP, or a command under
// (fake) sudo with the password on stdin.
var writePaths = []struct {
	name string
	sudo bool
}{{"sftp", false}, {"sudo", true}}

func newWriteFixture(t *testing.T) *Client {
	t.Helper()
	f := newSudoFixture(t, false)
	f.cfg.Become = Become{Password: sudoPassword}
	return newTestPool(t, f.cfg).Client(f.srv.addr)
}

func TestWriteFile(t *testing.T) {
	c := newWriteFixture(t)
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Fatalf("lookup nobody: %v", err)
	}
	nobodyOwner := nobody.Uid + ":" + nobody.Gid
	hostile := filepath.Join(t.TempDir(), `d i r'"$(touch PWNED)`+"`touch PWNED2`;x")
	if err := os.Mkdir(hostile, 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name      string
		dir       string
		file      string
		mode      os.FileMode
		owner     string
		wantOwner string // uid:gid; empty: the current user
	}{
		{name: "plain", file: "nccl.conf", mode: 0o644},
		{name: "private mode", file: "secret", mode: 0o600},
		{name: "owner", file: "owned", mode: 0o640, owner: nobodyOwner, wantOwner: nobodyOwner},
		{name: "setuid bits", file: "suid", mode: 0o755 | os.ModeSetuid},
		{name: "hostile directory and name", dir: hostile, file: `f $(id) 'q' "d".conf`, mode: 0o644, owner: "0:0", wantOwner: "0:0"},
		{name: "leading dash", file: "-rf", mode: 0o644},
	}
	for _, wp := range writePaths {
		for _, tt := range tests {
			t.Run(wp.name+"/"+tt.name, func(t *testing.T) {
				dir := tt.dir
				if dir == "" {
					dir = t.TempDir()
				}
				path := filepath.Join(dir, tt.file)
				data := []byte(fmt.Sprintf("NCCL_IB_HCA==mlx5_0\n# %s %s\n", wp.name, tt.name))
				if err := c.WriteFile(testContext(t), path, data, tt.mode, tt.owner, wp.sudo); err != nil {
					t.Fatalf("WriteFile: %v", err)
				}
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(string(data), string(got)); diff != "" {
					t.Errorf("content mismatch (-want +got):\n%s", diff)
				}
				fi, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode() != tt.mode {
					t.Errorf("mode = %v, want %v", fi.Mode(), tt.mode)
				}
				st, ok := fi.Sys().(*syscall.Stat_t)
				if !ok {
					t.Fatalf("no stat_t for %s", path)
				}
				wantOwner := tt.wantOwner
				if wantOwner == "" {
					wantOwner = fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid())
				}
				if got := fmt.Sprintf("%d:%d", st.Uid, st.Gid); got != wantOwner {
					t.Errorf("owner = %s, want %s", got, wantOwner)
				}
				assertNoTemp(t, dir)

				read, err := c.ReadFile(testContext(t), path, wp.sudo)
				if err != nil {
					t.Fatalf("ReadFile: %v", err)
				}
				if !bytes.Equal(read, data) {
					t.Errorf("ReadFile = %q, want %q", read, data)
				}
			})
		}
	}
	for _, dir := range []string{hostile, "/root", "."} {
		for _, name := range []string{"PWNED", "PWNED2"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				t.Errorf("a hostile path was executed: %s exists", filepath.Join(dir, name))
			}
		}
	}
}

// assertNoTemp fails if a temporary file of WriteFile is left in dir.
func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestWriteFileIsAtomic(t *testing.T) {
	c := newWriteFixture(t)
	const size = 4 << 20
	for _, wp := range writePaths {
		t.Run(wp.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "big")
			contents := [][]byte{bytes.Repeat([]byte{'a'}, size), bytes.Repeat([]byte{'b'}, size/2)}
			writeFile(t, path, contents[0], 0o644)

			// Read the target continuously while it is replaced: every read
			// must see one whole version.
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var reads, bad int
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					got, err := os.ReadFile(path)
					reads++
					whole := bytes.Equal(got, contents[0]) || bytes.Equal(got, contents[1])
					if err != nil || !whole {
						bad++
					}
				}
			}()
			for i := range 6 {
				if err := c.WriteFile(testContext(t), path, contents[(i+1)%2], 0o644, "", wp.sudo); err != nil {
					t.Errorf("WriteFile %d: %v", i, err)
				}
			}
			close(stop)
			wg.Wait()
			if bad > 0 {
				t.Errorf("%d of %d concurrent reads saw a missing or partial file", bad, reads)
			}
			assertNoTemp(t, filepath.Dir(path))
		})
	}
}

func TestWriteFileFailureLeavesNothing(t *testing.T) {
	c := newWriteFixture(t)
	old := []byte("old content\n")
	big := bytes.Repeat([]byte("0123456789abcdef"), 2<<20) // 32 MiB

	tests := []struct {
		name    string
		data    []byte
		owner   string
		cancel  bool // cancel the context once the transfer is under way
		drop    bool // drop the connection once the transfer is under way
		noDir   bool
		wantErr string
	}{
		{name: "unknown owner", data: []byte("new\n"), owner: "no-such-user-roce", wantErr: "no-such-user-roce"},
		{name: "cancelled mid-transfer", data: big, cancel: true, wantErr: "context canceled"},
		// The remote side sees its input end early and goes on: the size
		// check must stop the rename.
		{name: "connection lost mid-transfer", data: big, drop: true, wantErr: "write"},
		{name: "missing directory", data: []byte("new\n"), noDir: true, wantErr: "write"},
	}
	for _, wp := range writePaths {
		for _, tt := range tests {
			t.Run(wp.name+"/"+tt.name, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "target")
				if tt.noDir {
					path = filepath.Join(dir, "missing", "target")
				} else {
					writeFile(t, path, old, 0o644)
				}
				ctx, cancel := context.WithCancel(testContext(t))
				defer cancel()
				if tt.cancel || tt.drop {
					go func() {
						if !waitForPartialTemp(ctx, dir) {
							return
						}
						if tt.cancel {
							cancel()
						} else {
							dropConnection(t, c)
						}
					}()
				}
				err := c.WriteFile(ctx, path, tt.data, 0o600, tt.owner, wp.sudo)
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("WriteFile = %v, want an error containing %q", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), path) {
					t.Errorf("error %q does not name the path", err)
				}
				if tt.noDir {
					if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, fs.ErrNotExist) {
						t.Errorf("missing directory was created: %v", err)
					}
					return
				}
				// A remote writer cut off from us may still be running:
				// wait until the directory has settled before judging.
				deadline := time.Now().Add(3 * time.Second)
				for {
					entries, _ := os.ReadDir(dir)
					if len(entries) == 1 || time.Now().After(deadline) {
						break
					}
					time.Sleep(50 * time.Millisecond)
				}
				time.Sleep(200 * time.Millisecond)
				got, _ := os.ReadFile(path)
				switch {
				case bytes.Equal(got, old):
				case tt.cancel && bytes.Equal(got, tt.data):
					// Cancelling is not a rollback: the write may have
					// completed just before the cancellation reached it.
					t.Log("the write completed before the cancellation")
				default:
					t.Errorf("target changed after a failed write: %d bytes", len(got))
				}
				assertNoTemp(t, dir)
			})
		}
	}
}

// waitForPartialTemp waits until a temporary file in dir, or in a staging
// directory in dir, holds at least 1 MiB: the transfer is under way. It gives
// up when ctx ends.
func waitForPartialTemp(ctx context.Context, dir string) bool {
	for ctx.Err() == nil {
		if hasPartialTemp(dir) {
			return true
		}
		time.Sleep(time.Millisecond)
	}
	return false
}

// hasPartialTemp reports whether a temporary file of 1 MiB or more is in dir
// or in a staging directory in dir (whose file has the target's name).
func hasPartialTemp(dir string) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.Contains(e.Name(), ".tmp-") {
			continue
		}
		files := []string{filepath.Join(dir, e.Name())}
		if e.IsDir() {
			inner, _ := os.ReadDir(files[0])
			files = files[:0]
			for _, f := range inner {
				files = append(files, filepath.Join(dir, e.Name(), f.Name()))
			}
		}
		for _, f := range files {
			if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() && fi.Size() >= 1<<20 {
				return true
			}
		}
	}
	return false
}

// dropConnection closes the pooled connection of c, as a network failure
// would.
func dropConnection(t *testing.T, c *Client) {
	hs, err := c.state()
	if err != nil {
		t.Error(err)
		return
	}
	if conn := hs.current(); conn != nil {
		hs.drop(conn)
	}
}

func TestReadFile(t *testing.T) {
	c := newWriteFixture(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "it's here")
	writeFile(t, path, []byte("x=1\n"), 0o600)
	for _, wp := range writePaths {
		t.Run(wp.name, func(t *testing.T) {
			got, err := c.ReadFile(testContext(t), path, wp.sudo)
			if err != nil || string(got) != "x=1\n" {
				t.Errorf("ReadFile = %q, %v", got, err)
			}
			_, err = c.ReadFile(testContext(t), filepath.Join(dir, "absent"), wp.sudo)
			if !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("ReadFile of a missing file = %v, want fs.ErrNotExist", err)
			}
		})
	}
}

func TestFilePathChecks(t *testing.T) {
	c := newWriteFixture(t)
	tests := []struct {
		path string
		want string
	}{
		{"relative/path", "absolute"},
		{"/etc/", "directory"},
		{"/tmp/a\x00b", "NUL"},
	}
	for _, tt := range tests {
		t.Run(strconv.Quote(tt.path), func(t *testing.T) {
			err := c.WriteFile(testContext(t), tt.path, nil, 0o644, "", false)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("WriteFile(%q) = %v, want an error containing %q", tt.path, err, tt.want)
			}
			if _, err := c.ReadFile(testContext(t), tt.path, true); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadFile(%q) = %v, want an error containing %q", tt.path, err, tt.want)
			}
		})
	}
}

// TestWriteFileRefusesUnsafeDirectory: a directory that group or others can
// write, sticky or not, or that a user other than root (the writer here)
// owns, is refused on both paths with the directory, its owner and mode and
// the fix, and nothing is written in it.
func TestWriteFileRefusesUnsafeDirectory(t *testing.T) {
	c := newWriteFixture(t)
	tests := []struct {
		name     string
		mode     os.FileMode
		uid      int
		wantMode string
	}{
		{"world-writable", 0o777, 0, "0777"},
		{"group-writable", 0o775, 0, "0775"},
		{"sticky, like /tmp", 0o777 | os.ModeSticky, 0, "01777"},
		{"owned by another user", 0o755, 65534, "0755"},
	}
	for _, wp := range writePaths {
		for _, tt := range tests {
			t.Run(wp.name+"/"+tt.name, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "shared")
				path := filepath.Join(dir, "secret")
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				writeFile(t, path, []byte("old\n"), 0o600)
				if err := os.Chmod(dir, tt.mode); err != nil {
					t.Fatal(err)
				}
				if err := os.Chown(dir, tt.uid, tt.uid); err != nil {
					t.Fatal(err)
				}
				err := c.WriteFile(testContext(t), path, []byte("new\n"), 0o644, "", wp.sudo)
				want := fmt.Sprintf(shell.UnsafeDirMessage, dir, strconv.Itoa(tt.uid), tt.wantMode)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("WriteFile = %v\nwant an error containing %q", err, want)
				}
				if got, _ := os.ReadFile(path); string(got) != "old\n" {
					t.Errorf("file changed: %q", got)
				}
				entries, _ := os.ReadDir(dir)
				if len(entries) != 1 {
					t.Errorf("directory holds %d entries, want the old file alone", len(entries))
				}
			})
		}
	}
}

// TestReadFileRefusesDevicesAndHugeFiles: a link to /dev/zero, a FIFO, a
// directory and a file over ReadLimit are refused with an error naming the
// path, on both paths; a file of exactly ReadLimit is read whole.
func TestReadFileRefusesDevicesAndHugeFiles(t *testing.T) {
	c := newWriteFixture(t)
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sized := func(name string, size int64) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, nil, 0o644)
		if err := os.Truncate(p, size); err != nil {
			t.Fatal(err)
		}
		return p
	}
	huge, atLimit := sized("huge", ReadLimit+1), sized("at-limit", ReadLimit)
	tests := []struct {
		path string
		want string
	}{
		{zero, "not a regular file"},
		{fifo, "not a regular file"},
		{dir, "not a regular file"},
		{huge, "larger than ReadFile's limit of 16 MiB"},
	}
	for _, wp := range writePaths {
		t.Run(wp.name, func(t *testing.T) {
			for _, tt := range tests {
				// Without the checks these reads never end: bound them.
				ctx, cancel := context.WithTimeout(testContext(t), 10*time.Second)
				_, err := c.ReadFile(ctx, tt.path, wp.sudo)
				cancel()
				if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.path) {
					t.Errorf("ReadFile(%s) = %v, want an error naming it and containing %q", filepath.Base(tt.path), err, tt.want)
				}
			}
			got, err := c.ReadFile(testContext(t), atLimit, wp.sudo)
			if err != nil || len(got) != ReadLimit {
				t.Errorf("ReadFile of %d bytes = %d bytes, %v", ReadLimit, len(got), err)
			}
		})
	}
}

// TestSFTPSyncsDirectory: OpenSSH's sftp-server opens a directory as a file
// and fsync@openssh.com syncs it, which writeSFTP relies on after the rename.
func TestSFTPSyncsDirectory(t *testing.T) {
	c := newWriteFixture(t)
	hs, err := c.state()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	err = c.withSFTP(testContext(t), hs, func(sc *sftp.Client) error {
		d, err := sc.Open(dir)
		if err != nil {
			return err
		}
		defer d.Close()
		return d.Sync()
	})
	if err != nil {
		t.Errorf("fsync of %s through SFTP: %v", dir, err)
	}
	if err := c.withSFTP(testContext(t), hs, func(sc *sftp.Client) error { return syncDir(sc, filepath.Join(dir, "absent")) }); err == nil {
		t.Error("syncDir of a missing directory succeeded: it did not open it")
	}
}
