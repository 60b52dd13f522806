package host

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
)

// probe runs the file fact's command for path with this machine's /bin/sh
// and parses its output.
func probe(t *testing.T, path string) FileInfo {
	t.Helper()
	cmd := fileCommand(path)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := localRunner{}.Run(ctx, cmd, ssh.RunOptions{AllowFailure: true})
	if err != nil {
		t.Fatalf("probe %s: %v", path, err)
	}
	if res.ExitStatus != 0 {
		t.Fatalf("probe %s: exit status %d: %s", path, res.ExitStatus, res.Stderr)
	}
	fi, err := ParseFileProbe(path, string(res.Stdout))
	if err != nil {
		t.Fatalf("probe %s: %v", path, err)
	}
	return fi
}

// The probe reports a symbolic link as a link with its target and never
// reads through it; it reads no content of directories or FIFOs (a FIFO
// would block the gather); it tells an absent file in a missing directory
// from one in an existing directory.
func TestFileProbeLocal(t *testing.T) {
	dir := t.TempDir()
	unit := filepath.Join(dir, "roce-x.service")
	if err := os.WriteFile(unit, []byte("[Unit]\nDescription=a unit longer than its link\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wants := filepath.Join(dir, "multi-user.target.wants")
	if err := os.Mkdir(wants, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(wants, "roce-x.service")
	dangling := filepath.Join(wants, "gone.service")
	dirLink := filepath.Join(dir, "wants-link")
	fifo := filepath.Join(dir, "fifo")
	for _, l := range [][2]string{{unit, link}, {"/nonexistent/gone.service", dangling}, {wants, dirLink}} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}

	if fi := probe(t, unit); fi.Type != FileRegular || !fi.Complete() || fi.Target != "" || len(fi.SHA256) != 64 {
		t.Errorf("regular file: %+v", fi)
	}
	for _, tc := range []struct{ path, target string }{{link, unit}, {dangling, "/nonexistent/gone.service"}, {dirLink, wants}} {
		fi := probe(t, tc.path)
		if !fi.Exists || fi.Type != FileSymlink || fi.Target != tc.target || fi.Size != int64(len(tc.target)) ||
			fi.Content != nil || fi.SHA256 != "" || fi.Complete() {
			t.Errorf("symlink %s: %+v, want a link to %s and no content", tc.path, fi, tc.target)
		}
	}
	if fi := probe(t, wants); fi.Type != FileDirectory || fi.Mode != 0o755 || fi.Content != nil || fi.SHA256 != "" {
		t.Errorf("directory: %+v", fi)
	}
	if fi := probe(t, fifo); fi.Type != FileOther || fi.Mode != 0o600 || fi.Content != nil {
		t.Errorf("fifo: %+v", fi)
	}
	if fi := probe(t, filepath.Join(dir, "absent.conf")); fi.Exists || fi.DirMissing {
		t.Errorf("absent file in an existing directory: %+v", fi)
	}
	if fi := probe(t, filepath.Join(dir, "no", "such", "dir", "x.rules")); fi.Exists || !fi.DirMissing {
		t.Errorf("absent file in a missing directory: %+v", fi)
	}
	if fi := probe(t, filepath.Join(unit, "x")); fi.Exists || !fi.DirMissing {
		t.Errorf("absent file below a regular file: %+v", fi)
	}
	if fi := probe(t, "/roce-test-absent-file-in-root"); fi.Exists || fi.DirMissing {
		t.Errorf("absent file in /: %+v", fi)
	}
}
