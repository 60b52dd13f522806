package shell

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestAtomicWriteScriptGolden pins the exact script, quoting included: the directory check
// before anything is created, umask 077, chown -h, sync of the file before the rename and
// of the directory after it, and the owner of created directories given last.
func TestAtomicWriteScriptGolden(t *testing.T) {
	cases := []struct {
		name string
		w    AtomicWrite
	}{
		{"plain", AtomicWrite{Path: "/etc/nccl.conf", Temp: "/etc/.nccl.conf.tmp-1", Size: 12, Mode: 0o644}},
		{"owner and setgid", AtomicWrite{Path: "/etc/x.conf", Temp: "/etc/.x.conf.tmp-1", Size: 3, Mode: 0o640 | os.ModeSetgid, Owner: "nccl:nccl"}},
		{"make dirs", AtomicWrite{Path: "/etc/new/x.conf", Temp: "/etc/new/.x.conf.tmp-1", Size: 3, Mode: 0o600, MakeDirs: true}},
		{"make dirs with owner, hostile names", AtomicWrite{Path: "/etc/it's new/$(id)/x y.conf", Temp: "/etc/it's new/$(id)/.x y.conf.tmp-1", Size: 0, Mode: 0o600, Owner: "-x:'g'", MakeDirs: true}},
		{"in /", AtomicWrite{Path: "/x", Temp: "/.x.tmp-1", Size: 1, Mode: 0o644, MakeDirs: true}},
	}
	var b strings.Builder
	for _, c := range cases {
		got, err := c.w.Script().Render()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		fmt.Fprintf(&b, "# %s\n%s\n\n", c.name, got)
	}
	golden := filepath.Join("testdata", "atomicwrite.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("scripts differ from %s (-want +got):\n%s", golden, diff)
	}
}

// TestAtomicWriteScriptWrites runs the script in each local shell: a new file gets its
// content, mode and owner; created directories get the owner once the file is in place;
// nothing is left behind.
func TestAtomicWriteScriptWrites(t *testing.T) {
	requireRoot(t)
	for _, sh := range shells(t) {
		t.Run(filepath.Base(sh), func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, "it's", "a b", "secret")
			data := []byte("password=hunter2\n")
			w := AtomicWrite{Path: path, Temp: tempName(t, path), Size: len(data), Mode: 0o640, Owner: "65534:65534", MakeDirs: true}
			if code, stderr := runScript(t, sh, w, data); code != 0 {
				t.Fatalf("exit status %d: %s", code, stderr)
			}
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("file = %q, %v; want %q", got, err, data)
			}
			checkStat(t, path, 0o640, 65534)
			checkStat(t, filepath.Dir(path), 0o755|os.ModeDir, 65534)
			checkStat(t, filepath.Dir(filepath.Dir(path)), 0o755|os.ModeDir, 65534)
			checkStat(t, root, 0o755|os.ModeDir, 0) // existed: left alone

			// The directory is now 65534's, so root refuses to write there again.
			again := AtomicWrite{Path: path, Temp: tempName(t, path), Size: 1, Mode: 0o600}
			if code, stderr := runScript(t, sh, again, []byte("x")); code != ExitUnsafeDir || !strings.Contains(stderr, "owner uid 65534") {
				t.Errorf("second write in a directory owned by 65534: exit status %d, %s", code, stderr)
			}
			plain := filepath.Join(root, "plain")
			pw := AtomicWrite{Path: plain, Temp: tempName(t, plain), Size: len(data), Mode: 0o600}
			if code, stderr := runScript(t, sh, pw, data); code != 0 {
				t.Fatalf("write without owner: exit status %d: %s", code, stderr)
			}
			checkStat(t, plain, 0o600, 0)
			assertOnly(t, root, "it's", "plain")
			assertOnly(t, filepath.Dir(path), "secret")
		})
	}
}

// TestAtomicWriteScriptRefusesUnsafeDirectory: a directory that group or others can write,
// sticky or not, or that another user owns, is refused before anything is created, with the
// directory, its owner and mode, and the fix; the file in it is untouched.
func TestAtomicWriteScriptRefusesUnsafeDirectory(t *testing.T) {
	requireRoot(t)
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
	for _, sh := range shells(t) {
		for _, tt := range tests {
			t.Run(filepath.Base(sh)+"/"+tt.name, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "d i r")
				path := filepath.Join(dir, "secret")
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(dir, tt.mode); err != nil {
					t.Fatal(err)
				}
				if err := os.Chown(dir, tt.uid, tt.uid); err != nil {
					t.Fatal(err)
				}
				w := AtomicWrite{Path: path, Temp: tempName(t, path), Size: 4, Mode: 0o644, Owner: "0:0", MakeDirs: true}
				code, stderr := runScript(t, sh, w, []byte("new\n"))
				want := fmt.Sprintf(UnsafeDirMessage, dir, fmt.Sprint(tt.uid), tt.wantMode) + "\n"
				if code != ExitUnsafeDir || stderr != want {
					t.Errorf("exit status %d, stderr:\n%s\nwant %d, stderr:\n%s", code, stderr, ExitUnsafeDir, want)
				}
				if got, _ := os.ReadFile(path); string(got) != "old\n" {
					t.Errorf("file changed: %q", got)
				}
				checkStat(t, path, 0o600, 0)
				assertOnly(t, dir, "secret")
			})
		}
	}
}

func requireRoot(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs root: left out of the fast tier (-short, make unit); make test runs it")
	}
	if os.Geteuid() != 0 {
		t.Fatal("these tests run as root: they chown files to another user")
	}
}

func tempName(t *testing.T, path string) string {
	t.Helper()
	tmp, err := TempName(path)
	if err != nil {
		t.Fatal(err)
	}
	return tmp
}

// runScript runs w's script in sh with data on standard input and returns the exit status
// and standard error.
func runScript(t *testing.T, sh string, w AtomicWrite, data []byte) (int, string) {
	t.Helper()
	line, err := w.Script().Render()
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-c", line}
	if strings.HasSuffix(sh, "busybox") {
		args = append([]string{"sh"}, args...)
	}
	cmd := exec.Command(sh, args...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	cmd.Stdin = bytes.NewReader(data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stderr.String()
	}
	t.Fatalf("run %s: %v", sh, err)
	return 0, ""
}

func checkStat(t *testing.T, path string, mode os.FileMode, uid int) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != mode {
		t.Errorf("%s: mode %v, want %v", path, fi.Mode(), mode)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != uid {
		t.Errorf("%s: owner %v, want uid %d", path, fi.Sys(), uid)
	}
}

// assertOnly fails unless dir holds exactly names.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if diff := cmp.Diff(names, got); diff != "" {
		t.Errorf("%s holds other entries (-want +got):\n%s", dir, diff)
	}
}
