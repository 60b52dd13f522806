package hostprofile

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// tree writes files below a root directory. Paths are slash-separated and
// relative to the root (the twin's "/"). Directories it creates get mode 0755
// whatever the umask, because in an overlay the topmost layer's directory
// decides the merged directory's mode. The first error sticks: later calls do
// nothing and Err returns it.
type tree struct {
	root string
	dirs map[string]bool
	err  error
}

func newTree(root string) *tree {
	return &tree{root: root, dirs: map[string]bool{".": true, "/": true, "": true}}
}

// Err returns the first error met.
func (t *tree) Err() error { return t.err }

func (t *tree) abs(rel string) string { return filepath.Join(t.root, filepath.FromSlash(rel)) }

func (t *tree) fail(err error) {
	if t.err == nil {
		t.err = err
	}
}

// dir creates rel and its parents.
func (t *tree) dir(rel string) {
	rel = path.Clean("/" + rel)
	if t.err != nil || t.dirs[rel] {
		return
	}
	t.dir(path.Dir(rel))
	if t.err != nil {
		return
	}
	p := t.abs(rel)
	switch err := os.Mkdir(p, 0o755); {
	case err == nil:
		t.fail(os.Chmod(p, 0o755))
	case errors.Is(err, fs.ErrExist):
	default:
		t.fail(err)
	}
	t.dirs[rel] = true
}

// file writes content to rel with exactly mode, replacing what was there.
func (t *tree) file(rel, content string, mode fs.FileMode) {
	if t.err != nil {
		return
	}
	t.dir(path.Dir(path.Clean("/" + rel)))
	if t.err != nil {
		return
	}
	p := t.abs(rel)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if errors.Is(err, fs.ErrPermission) {
		// A read-only file (0444 sysfs stand-ins) that a non-root owner
		// rewrites; root never gets here.
		if os.Chmod(p, 0o600) == nil {
			f, err = os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, mode)
		}
	}
	if err != nil {
		t.fail(err)
		return
	}
	_, err = f.WriteString(content)
	if err == nil {
		err = f.Chmod(mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	t.fail(err)
}

// symlink makes rel a symbolic link to target, replacing what was there.
func (t *tree) symlink(rel, target string) {
	if t.err != nil {
		return
	}
	t.dir(path.Dir(path.Clean("/" + rel)))
	p := t.abs(rel)
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.fail(err)
		return
	}
	t.fail(os.Symlink(target, p))
}

// unreadable makes rel a file that exists in directory listings but cannot
// be opened for reading or writing: a symbolic link to itself (ELOOP). It
// stands in for sysfs/debugfs files the kernel refuses to open (unused GID
// slots' attributes, debugfs under lockdown).
func (t *tree) unreadable(rel string) { t.symlink(rel, path.Base(rel)) }

// remove deletes rel and everything below it; a missing path is fine.
func (t *tree) remove(rel string) {
	if t.err != nil {
		return
	}
	t.fail(os.RemoveAll(t.abs(rel)))
	clean := path.Clean("/" + rel)
	for d := range t.dirs {
		if d == clean || len(d) > len(clean) && d[:len(clean)+1] == clean+"/" {
			delete(t.dirs, d)
		}
	}
}

// exists reports whether rel exists (without following a final symlink).
func (t *tree) exists(rel string) bool {
	_, err := os.Lstat(t.abs(rel))
	return err == nil
}

// whiteout hides rel of the layers below the tree's (see makeWhiteout).
func (t *tree) whiteout(rel string) {
	if t.err != nil {
		return
	}
	t.dir(path.Dir(path.Clean("/" + rel)))
	t.remove(rel)
	if t.err == nil {
		t.fail(makeWhiteout(t.abs(rel)))
	}
}
