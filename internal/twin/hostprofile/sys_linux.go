package hostprofile

import (
	"fmt"
	"os"
	"syscall"
)

// lockDir takes an exclusive flock on directory dir, so concurrent BuildBase
// calls (parallel test binaries) build the base once. The returned function
// releases it.
func lockDir(dir string) (func(), error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) // closing the file releases it anyway
		f.Close()
	}, nil
}

// setOpaque marks directory path opaque for overlayfs: as a lower layer it
// hides the same directory of the layers below it.
func setOpaque(path string) error {
	if err := syscall.Setxattr(path, "trusted.overlay.opaque", []byte("y"), 0); err != nil {
		return fmt.Errorf("mark %s opaque: %w", path, err)
	}
	return nil
}

// makeWhiteout makes path an overlayfs whiteout (a 0/0 character device):
// in a lower layer it hides the same path of the layers below it.
func makeWhiteout(path string) error {
	if err := syscall.Mknod(path, syscall.S_IFCHR|0o600, 0); err != nil {
		return fmt.Errorf("whiteout %s: %w", path, err)
	}
	return nil
}
