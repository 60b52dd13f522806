package hosttwin

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// The mask layer lies between the profile's base layer and the machine's
// root. It hides the machine's directories that belong to its users, not
// to its software: a twin must not run the machine's ~/.bashrc (a pyenv
// or conda hook there can make every SSH command wait on a lock), nor see
// its /tmp. Each is an overlay "opaque" directory: empty, and hiding
// everything below it. It also holds the mount point of the sshd
// directory and sshd's privilege separation directory.
var maskDirs = []struct {
	path   string
	mode   os.FileMode
	opaque bool
}{
	{"root", 0o700, true},
	{"tmp", os.ModeSticky | 0o777, true},
	{"var/tmp", os.ModeSticky | 0o777, true},
	{"etc/ssh/twin", 0o755, false},
	{"run/sshd", 0o755, false},
}

// buildMask writes the mask layer to dir.
func buildMask(dir string) error {
	for _, d := range maskDirs {
		path := filepath.Join(dir, d.path)
		if err := os.MkdirAll(path, 0o755); err != nil {
			return err
		}
		// Chmod, not MkdirAll's mode, which the umask narrows.
		if err := os.Chmod(path, d.mode); err != nil {
			return err
		}
		if d.opaque {
			if err := syscall.Setxattr(path, "trusted.overlay.opaque", []byte("y"), 0); err != nil {
				return fmt.Errorf("mark %s opaque (the state directory's filesystem needs trusted xattrs): %w", path, err)
			}
		}
	}
	return nil
}
