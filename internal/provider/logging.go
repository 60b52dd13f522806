package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
)

// The provider's log subsystems: TF_LOG=DEBUG shows them all, and
// TF_LOG_PROVIDER_ROCE_SSH, _ENGINE, _GNMI and _NVUE set each on its own: ssh for connections,
// remote commands and file transfers; engine for each host's fact gathers and task plans; and
// for each switch's reads and writes, its driver's transport (switchcfg.Transport: gnmi, nvue).
const (
	logSSH    = "ssh"
	logEngine = "engine"
)

// urlCredentials matches the user:password part of a URL, which a repository address in a
// command may carry.
var urlCredentials = regexp.MustCompile(`(://[^/\s:@]+):[^@\s/]+@`)

// redact removes credentials from text before it is logged.
func redact(s string) string { return urlCredentials.ReplaceAllString(s, "$1:***@") }

// logEnvPrefix names the variables that set one subsystem's level.
const logEnvPrefix = "TF_LOG_PROVIDER_ROCE"

// subsystem returns ctx with the provider's log subsystem name, its level from the
// environment.
func subsystem(ctx context.Context, name string) context.Context {
	return tflog.NewSubsystem(ctx, name, tflog.WithLevelFromEnv(logEnvPrefix, name))
}

func sshLog(ctx context.Context) context.Context { return subsystem(ctx, logSSH) }

// engineEvents logs each host's gathers and plans (host.Events).
type engineEvents struct{}

func (engineEvents) Gathered(ctx context.Context, address string, want host.Want, from host.GatherSource, f host.Facts, took time.Duration, err error) {
	fields := map[string]any{"host": address, "facts": want.String(), "from": string(from), "duration_ms": took.Milliseconds()}
	if err != nil {
		fields["error"] = redact(err.Error())
	} else if len(f.Absent) > 0 {
		fields["absent"] = slices.Sorted(maps.Keys(f.Absent))
	}
	tflog.SubsystemDebug(subsystem(ctx, logEngine), logEngine, "facts gathered", fields)
}

func (engineEvents) Planned(ctx context.Context, address, phase string, tasks []host.TaskReport) {
	ctx = subsystem(ctx, logEngine)
	planned := make([]string, len(tasks))
	var changes []string
	for i, t := range tasks {
		planned[i] = fmt.Sprintf("%s: %d changes", t.Task, len(t.Changes))
		for _, c := range t.Changes {
			changes = append(changes, redact(t.Task+": "+c.Summary))
		}
	}
	tflog.SubsystemDebug(ctx, logEngine, "tasks planned", map[string]any{"host": address, "phase": phase, "tasks": planned})
	if len(changes) > 0 {
		tflog.SubsystemTrace(ctx, logEngine, "planned changes", map[string]any{"host": address, "phase": phase, "changes": changes})
	}
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

// loggingBackend logs each read and write of a switch in its driver's transport's subsystem
// (gnmi, nvue), in the driver's words: with the operation count, duration and outcome.
type loggingBackend struct {
	switchcfg.Backend
	address string
	about   switchcfg.About
}

func (b loggingBackend) Observe(ctx context.Context) (switchcfg.Observation, error) {
	began := time.Now()
	obs, err := b.Backend.Observe(ctx)
	fields := map[string]any{"switch": b.address, "rpc": b.about.ReadCall, "duration_ms": time.Since(began).Milliseconds()}
	if err != nil {
		fields["error"] = redact(err.Error())
	} else {
		fields["runs"] = obs.Describe()
	}
	sub := string(b.about.Transport)
	tflog.SubsystemDebug(subsystem(ctx, sub), sub, b.about.Reads, fields)
	return obs, err
}

func (b loggingBackend) Apply(ctx context.Context, c switchcfg.Changes) (string, error) {
	began := time.Now()
	warning, err := b.Backend.Apply(ctx, c)
	ops := c.Len()
	fields := map[string]any{"switch": b.address, "rpc": b.about.WriteCall, "operations": ops, "duration_ms": time.Since(began).Milliseconds()}
	if err != nil {
		fields["error"] = redact(err.Error())
	}
	if warning != "" {
		fields["warning"] = warning
	}
	sub := string(b.about.Transport)
	ctx = subsystem(ctx, sub)
	tflog.SubsystemDebug(ctx, sub, b.about.Writes, fields)
	if ops > 0 {
		tflog.SubsystemTrace(ctx, sub, "switch operations", map[string]any{"switch": b.address, "lines": c.Lines()})
	}
	return warning, err
}
