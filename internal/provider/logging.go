package provider

import (
	"context"
	"errors"
	"os"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
)

// The provider's log subsystems: TF_LOG=DEBUG shows them all, and
// TF_LOG_PROVIDER_ROCE_SSH / TF_LOG_PROVIDER_ROCE_GNMI set each on its own.
const (
	logSSH  = "ssh"
	logGNMI = "gnmi"
)

// urlCredentials matches the user:password part of a URL, which a repository address in a
// command may carry.
var urlCredentials = regexp.MustCompile(`(://[^/\s:@]+):[^@\s/]+@`)

// redact removes credentials from text before it is logged.
func redact(s string) string { return urlCredentials.ReplaceAllString(s, "$1:***@") }

// logEnvPrefix names the variables that set one subsystem's level.
const logEnvPrefix = "TF_LOG_PROVIDER_ROCE"

func sshLog(ctx context.Context) context.Context {
	return tflog.NewSubsystem(ctx, logSSH, tflog.WithLevelFromEnv(logEnvPrefix, logSSH))
}

func gnmiLog(ctx context.Context) context.Context {
	return tflog.NewSubsystem(ctx, logGNMI, tflog.WithLevelFromEnv(logEnvPrefix, logGNMI))
}

// sshEvents logs the SSH pool's connections.
type sshEvents struct{}

func (sshEvents) Dialled(ctx context.Context, host string, took time.Duration, err error) {
	fields := map[string]any{"host": host, "duration_ms": took.Milliseconds()}
	if err != nil {
		fields["error"] = redact(err.Error())
		tflog.SubsystemDebug(sshLog(ctx), logSSH, "ssh connection failed", fields)
		return
	}
	tflog.SubsystemDebug(sshLog(ctx), logSSH, "ssh connection opened", fields)
}

func (sshEvents) Reused(ctx context.Context, host string) {
	tflog.SubsystemTrace(sshLog(ctx), logSSH, "ssh connection reused", map[string]any{"host": host})
}

// loggingRunner logs every remote command and file write of a host: the command line as
// built by internal/shell (standard input, where sudo passwords and file contents travel,
// is never logged), its exit status and duration, and at TRACE the output sizes.
type loggingRunner struct{ host.Runner }

func (r loggingRunner) Run(ctx context.Context, cmd shell.Runnable, opts ssh.RunOptions) (ssh.Result, error) {
	began := time.Now()
	res, err := r.Runner.Run(ctx, cmd, opts)
	ctx = sshLog(ctx)
	fields := map[string]any{"host": r.Address(), "command": redact(cmd.String()), "sudo": opts.Sudo,
		"duration_ms": time.Since(began).Milliseconds(), "exit_status": res.ExitStatus}
	var ce *ssh.CommandError
	switch {
	case errors.As(err, &ce):
		fields["exit_status"] = ce.ExitStatus
		fields["error"] = "command failed"
	case err != nil:
		fields["error"] = redact(err.Error())
	}
	tflog.SubsystemDebug(ctx, logSSH, "remote command", fields)
	tflog.SubsystemTrace(ctx, logSSH, "remote command output", map[string]any{
		"host": r.Address(), "stdout_bytes": len(res.Stdout), "stderr_bytes": len(res.Stderr)})
	return res, err
}

func (r loggingRunner) WriteFile(ctx context.Context, path string, data []byte, mode os.FileMode, owner string, sudo bool) error {
	began := time.Now()
	err := r.Runner.WriteFile(ctx, path, data, mode, owner, sudo)
	fields := map[string]any{"host": r.Address(), "path": path, "bytes": len(data), "mode": mode.String(), "owner": owner,
		"sudo": sudo, "duration_ms": time.Since(began).Milliseconds()}
	if err != nil {
		fields["error"] = redact(err.Error())
	}
	tflog.SubsystemDebug(sshLog(ctx), logSSH, "remote file write", fields)
	return err
}

func (r loggingRunner) ReadFile(ctx context.Context, path string, sudo bool) ([]byte, error) {
	began := time.Now()
	data, err := r.Runner.ReadFile(ctx, path, sudo)
	fields := map[string]any{"host": r.Address(), "path": path, "bytes": len(data), "sudo": sudo,
		"duration_ms": time.Since(began).Milliseconds()}
	if err != nil {
		fields["error"] = redact(err.Error())
	}
	tflog.SubsystemDebug(sshLog(ctx), logSSH, "remote file read", fields)
	return data, err
}

// loggingBackend logs each read and write of a switch: one gNMI Get per Observe and one Set
// per Apply on SONiC, the subtree GETs and one revision on Cumulus (NVUE), with the operation
// count, duration and outcome.
type loggingBackend struct {
	switchcfg.Backend
	address string
	api     switchAPI
}

// switchAPI names a backend's reads and writes in the log.
type switchAPI struct{ read, write, readRPC, writeRPC string }

var (
	apiGNMI = switchAPI{read: "gnmi read of CONFIG_DB", write: "gnmi write of CONFIG_DB", readRPC: "Get", writeRPC: "Set"}
	apiNVUE = switchAPI{read: "nvue read of the applied configuration", write: "nvue revision applied", readRPC: "GET", writeRPC: "revision"}
)

func (b loggingBackend) Observe(ctx context.Context) (switchcfg.Observation, error) {
	began := time.Now()
	obs, err := b.Backend.Observe(ctx)
	fields := map[string]any{"switch": b.address, "rpc": b.api.readRPC, "duration_ms": time.Since(began).Milliseconds()}
	if err != nil {
		fields["error"] = redact(err.Error())
	} else {
		fields["runs"] = obs.Describe()
	}
	tflog.SubsystemDebug(gnmiLog(ctx), logGNMI, b.api.read, fields)
	return obs, err
}

func (b loggingBackend) Apply(ctx context.Context, c switchcfg.Changes) (string, error) {
	began := time.Now()
	warning, err := b.Backend.Apply(ctx, c)
	ops := c.Len()
	fields := map[string]any{"switch": b.address, "rpc": b.api.writeRPC, "operations": ops, "duration_ms": time.Since(began).Milliseconds()}
	if err != nil {
		fields["error"] = redact(err.Error())
	}
	if warning != "" {
		fields["warning"] = warning
	}
	ctx = gnmiLog(ctx)
	tflog.SubsystemDebug(ctx, logGNMI, b.api.write, fields)
	if ops > 0 {
		tflog.SubsystemTrace(ctx, logGNMI, "switch operations", map[string]any{"switch": b.address, "lines": c.Lines()})
	}
	return warning, err
}
