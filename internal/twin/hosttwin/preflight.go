package hosttwin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// sshdPath is the sshd every twin runs: the machine's own, seen through
// the overlay.
const sshdPath = "/usr/sbin/sshd"

// preflight reports what this machine lacks for twins, with the fix.
func preflight() error {
	if runtime.GOOS != "linux" {
		return errors.New("host twins need Linux (mount namespaces, overlayfs)")
	}
	if os.Geteuid() != 0 {
		return errors.New("host twins need root (mount namespaces, overlayfs, chroot)")
	}
	if _, err := os.Stat(sshdPath); err != nil {
		return fmt.Errorf("%s not found: install OpenSSH's server (apt-get install -y openssh-server)", sshdPath)
	}
	for _, tool := range []string{"mount", "chroot", "nsenter"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s not found in PATH (util-linux, coreutils)", tool)
		}
	}
	return nil
}
