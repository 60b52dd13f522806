package hostprofile

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// shmRoot is where tests put layers: a tmpfs, as hosttwin uses, when there
// is one (writing ~1500 small files is ten times slower on a journaled disk).
const shmRoot = "/dev/shm"

var (
	baseOnce sync.Once
	baseDir  string
	baseErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if baseDir != "" {
		os.RemoveAll(baseDir)
	}
	os.Exit(code)
}

// fastTempDir returns a new directory on tmpfs when possible, removed after
// the test.
func fastTempDir(t testing.TB) string {
	t.Helper()
	if st, err := os.Stat(shmRoot); err == nil && st.IsDir() {
		if dir, err := os.MkdirTemp(shmRoot, "hostprofile-test-"); err == nil { //nolint:usetesting // on tmpfs: rendering is ~20x faster than on this disk
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

// sharedBase returns a base layer built once for the whole test binary.
func sharedBase(t testing.TB) string {
	t.Helper()
	baseOnce.Do(func() {
		// One base for the whole test binary, on tmpfs when there is one; t.TempDir would
		// tie it to the first test.
		dir, err := os.MkdirTemp(shmRoot, "hostprofile-base-") //nolint:usetesting // shared across tests
		if err != nil {
			dir, err = os.MkdirTemp("", "hostprofile-base-") //nolint:usetesting // shared across tests
		}
		if err != nil {
			baseErr = err
			return
		}
		baseDir = dir
		baseErr = BuildBase(dir, false)
	})
	if baseErr != nil {
		t.Fatalf("BuildBase: %v", baseErr)
	}
	return baseDir
}

// requireRoot fails tests that render layers when not root: RenderHost marks directories
// opaque with a trusted.* extended attribute, which needs root.
func requireRoot(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs root: left out of the fast tier (-short, make unit); make test runs it")
	}
	if os.Geteuid() != 0 {
		t.Fatal("rendering a twin layer needs root (trusted.overlay.opaque): run the tests as root")
	}
}

// mustProfile returns a named profile or fails.
func mustProfile(t testing.TB, name string) Profile {
	t.Helper()
	p, ok := Lookup(name)
	if !ok {
		t.Fatalf("no profile %q", name)
	}
	return p
}

// renderRoot renders the per-host layer of one host and links the shared
// base layer's directories into it: the tests' stand-in for the merged
// overlay.
func renderRoot(t testing.TB, p Profile, id HostID) string {
	t.Helper()
	requireRoot(t)
	base := sharedBase(t)
	root := fastTempDir(t)
	if err := RenderHost(root, p, id); err != nil {
		t.Fatalf("RenderHost(%s): %v", p.Name, err)
	}
	for _, d := range []string{"usr/local", "srv"} {
		if _, err := os.Lstat(filepath.Join(root, d)); err == nil {
			t.Fatalf("per-host layer has %s, which belongs to the base layer", d)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, d)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(base, d), filepath.Join(root, d)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// standIn is the command that runs stand-in name from root, TWIN_ROOT=root and the stand-ins
// first on PATH. It executes the file itself: a #!/bin/sh script or a link to the Go binary.
func standIn(root, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(root, "usr/local/sbin", name), args...)
	cmd.Env = []string{
		"TWIN_ROOT=" + root,
		"PATH=" + filepath.Join(root, "usr/local/sbin") + ":/usr/sbin:/usr/bin:/sbin:/bin",
		"LC_ALL=C",
		"HOME=" + root,
	}
	return cmd
}

// result is what a stand-in printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

// runTool runs stand-in name from root (standIn) with stdin and returns what it printed.
func runTool(t testing.TB, root, stdin, name string, args ...string) result {
	t.Helper()
	cmd := standIn(root, name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %s: %v", name, err)
	}
	return r
}

// mustRun runs a stand-in that must succeed and returns its stdout.
func mustRun(t testing.TB, root, name string, args ...string) string {
	t.Helper()
	r := runTool(t, root, "", name, args...)
	if r.code != 0 {
		t.Fatalf("%s %s: exit %d\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// readFile returns a file of the rendered root, or fails.
func readFile(t testing.TB, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// writeFile writes a file into the rendered root, or fails.
func writeFile(t testing.TB, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runCmd runs a program of the machine and returns its combined output.
func runCmd(t testing.TB, name string, args ...string) (string, error) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Fatalf("%s is not installed: the twin tests need Debian's dpkg and apt tools", name)
	}
	out, err := exec.Command(name, args...).CombinedOutput()
	return string(out), err
}
