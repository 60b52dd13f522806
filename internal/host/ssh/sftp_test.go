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

// waitForPartialTemp waits until a temporary file in dir holds at least
// 1 MiB: the transfer is under way. It gives up when ctx ends.
func waitForPartialTemp(ctx context.Context, dir string) bool {
	for ctx.Err() == nil {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if fi, err := e.Info(); err == nil && strings.Contains(e.Name(), ".tmp-") && fi.Size() >= 1<<20 {
				return true
			}
		}
		time.Sleep(time.Millisecond)
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
