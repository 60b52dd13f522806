package host

import (
	"context"
	"os"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
)

// Runner is what the engine needs of a host connection. *ssh.Client
// satisfies it.
type Runner interface {
	// Address names the host in errors and reports, e.g. "10.0.0.7:22".
	Address() string
	// Run runs cmd on the host with the login user's shell.
	Run(ctx context.Context, cmd string, opts ssh.RunOptions) (ssh.Result, error)
	// WriteFile replaces the file at path atomically.
	WriteFile(ctx context.Context, path string, data []byte, mode os.FileMode, owner string, sudo bool) error
}

var _ Runner = (*ssh.Client)(nil)
