package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// writeCleanupTimeout bounds the removal of a temporary file after a failed
// write.
const writeCleanupTimeout = 10 * time.Second

// writeWithDirs writes w in one remote command that first creates the
// missing directories of w.Path and then replaces the file atomically, the
// content on standard input; sudo runs it as root.
func writeWithDirs(ctx context.Context, r Runner, w WriteFile, sudo bool) error {
	tmp, err := shell.TempName(w.Path)
	if err != nil {
		return err
	}
	_, err = r.Run(ctx, w.dirsScript(tmp), ssh.RunOptions{Stdin: bytes.NewReader(w.Content), Sudo: sudo})
	if err == nil {
		return nil
	}
	// The script's EXIT trap removes the temporary file unless the shell
	// was killed; a ConnectError means nothing ran.
	var ce *ssh.ConnectError
	if !errors.As(err, &ce) {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeCleanupTimeout)
		_, _ = r.Run(cctx, shell.New("rm", "-f", "--", tmp), ssh.RunOptions{Sudo: sudo})
		cancel()
	}
	return fmt.Errorf("write %s: %w", w.Path, err)
}

// dirsScript is the command of writeWithDirs, run in its own sh: shell.AtomicWrite with the
// missing directories of w.Path created first and given the file's owner.
func (w WriteFile) dirsScript(tmp string) shell.Command {
	return shell.Sh(shell.AtomicWrite{Path: w.Path, Temp: tmp, Size: len(w.Content), Mode: w.Mode, Owner: w.Owner, MakeDirs: true}.Script())
}
