package host

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// planTasks marks the writes whose directory the gather found missing (or
// did not read) and shows it in the plan.
func TestPlanTasksMarksWritesWithMissingDirectories(t *testing.T) {
	f := Facts{Host: "h", Files: map[string]FileInfo{
		"/etc/new/x.conf":  {Path: "/etc/new/x.conf", DirMissing: true},
		"/etc/y.conf":      {Path: "/etc/y.conf"},
		"/etc/exists.conf": {Path: "/etc/exists.conf", Exists: true, Type: FileRegular},
	}}
	for path, want := range map[string]bool{"/etc/new/x.conf": true, "/etc/y.conf": false, "/etc/exists.conf": false, "/etc/unread/z.conf": true} {
		task := plannedTask{name: "t", plan: func(Facts) ([]Change, error) {
			return []Change{{Summary: "w", Apply: WriteFile{Path: path, Content: []byte("x"), Mode: 0o644, Sudo: true}}}, nil
		}}
		trs, err := planTasks(f, []Task{task})
		if err != nil {
			t.Fatal(err)
		}
		w, ok := trs[0].Changes[0].Apply.(WriteFile)
		if !ok {
			t.Fatalf("%s: step %T", path, trs[0].Changes[0].Apply)
		}
		line := w.Lines()[0]
		if w.makeDirs != want || strings.Contains(line, "missing directories created") != want {
			t.Errorf("%s: makeDirs %v, line %q; want %v", path, w.makeDirs, line, want)
		}
	}
}

func TestDirsScript(t *testing.T) {
	w := WriteFile{Path: "/etc/it's new/x.conf", Content: []byte("abc"), Mode: 0o640 | os.ModeSetgid, Owner: "nccl:nccl"}
	got, err := w.dirsScript("/etc/it's new/.x.conf.tmp-1").Render()
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{
		`for d in /etc '\''/etc/it'\''\'\'''\''s new'\''; do`,
		`mkdir -m 755 -- "$d" && sync -- "$p" || exit; set -- "$@" "$d"`,
		`{ [ $# -eq 0 ] || chown -h -- nccl:nccl "$@"; }`,
		`[ $n -eq 3 ] && chmod 2640`,
		`&& chown -h -- nccl:nccl '\''/etc/it'\''\'\'''\''s new/.x.conf.tmp-1'\''`,
		`&& mv -f -- '\''/etc/it'\''\'\'''\''s new/.x.conf.tmp-1'\'' '\''/etc/it'\''\'\'''\''s new/x.conf'\''`,
	} {
		if !strings.Contains(got, part) {
			t.Errorf("script lacks %s:\n%s", part, got)
		}
	}
	if !strings.HasPrefix(got, "sh -c '") {
		t.Errorf("script does not run in its own sh: %s", got)
	}
	w.Owner = ""
	if got, _ := w.dirsScript("/etc/x.tmp").Render(); strings.Contains(got, "chown") {
		t.Errorf("chown without an owner: %s", got)
	}
}

// writeWithDirs creates only the missing directories, 0755 and the file's
// owner's, writes the file atomically and leaves no temporary file.
func TestWriteWithDirsLocal(t *testing.T) {
	root := t.TempDir()
	if err := os.Chmod(root, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "it's", "a b", "x.conf")
	w := WriteFile{Path: path, Content: []byte("a=1\n"), Mode: 0o640}
	owner := -1
	if os.Geteuid() == 0 {
		w.Owner, owner = "65534:65534", 65534
	}
	if err := writeWithDirs(context.Background(), localRunner{}, w, false); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "a=1\n" {
		t.Fatalf("file = %q, %v", got, err)
	}
	check := func(p string, mode os.FileMode, own int) {
		t.Helper()
		st, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v", p, st.Mode().Perm(), mode)
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && own >= 0 && int(sys.Uid) != own {
			t.Errorf("%s: owner %d, want %d", p, sys.Uid, own)
		}
	}
	check(root, 0o700, os.Geteuid()) // existed: left alone
	check(filepath.Dir(filepath.Dir(path)), 0o755, owner)
	check(filepath.Dir(path), 0o755, owner)
	check(path, 0o640, owner)
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil || len(entries) != 1 {
		t.Errorf("directory holds %v, %v; want x.conf alone", entries, err)
	}
	// A file in the way of a directory: an error naming the path, no file.
	blocked := WriteFile{Path: filepath.Join(path, "y"), Content: []byte("y"), Mode: 0o644}
	if err := writeWithDirs(context.Background(), localRunner{}, blocked, false); err == nil || !strings.Contains(err.Error(), "write "+blocked.Path) {
		t.Errorf("write below a file: %v", err)
	}
}
