package host

import (
	"context"
	"fmt"
	"os"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// Runner is what the engine needs of a host connection. Commands are built by package shell
// and rendered only at the transport (SSH wraps an SSH client), so no command line reaches a
// host without going through its quoting.
type Runner interface {
	// Address names the host in errors and reports, e.g. "10.0.0.7:22".
	Address() string
	// Run runs cmd on the host with the login user's shell.
	Run(ctx context.Context, cmd shell.Runnable, opts ssh.RunOptions) (ssh.Result, error)
	// WriteFile replaces the file at path atomically.
	WriteFile(ctx context.Context, path string, data []byte, mode os.FileMode, owner string, sudo bool) error
	// ReadFile returns the whole file at path (through sudo with sudo); a missing file is
	// an error for which errors.Is(err, fs.ErrNotExist) holds.
	ReadFile(ctx context.Context, path string, sudo bool) ([]byte, error)
}

// SSH is the Runner of an SSH connection.
func SSH(c *ssh.Client) Runner { return sshRunner{c} }

type sshRunner struct{ *ssh.Client }

// Run renders cmd and runs the line; a command that cannot be rendered (a NUL, an invalid
// name) never leaves the machine.
func (r sshRunner) Run(ctx context.Context, cmd shell.Runnable, opts ssh.RunOptions) (ssh.Result, error) {
	line, err := cmd.Render()
	if err != nil {
		return ssh.Result{}, fmt.Errorf("run on %s: %w", r.Address(), err)
	}
	return r.Client.Run(ctx, line, opts)
}
