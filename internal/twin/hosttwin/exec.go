package hosttwin

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"time"
)

// Run runs script with /bin/sh inside host name (its mount namespace and
// root, as root) and returns its combined output. It does not go through
// sshd, so it does not count as a connection: use it to prepare or inspect
// a host around the code under test, for example to make drift. KillSSHD
// and Stop end a script that is still running.
func (f *Fleet) Run(ctx context.Context, name, script string) ([]byte, error) {
	t, err := f.lookup(name)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	err = t.running()
	pid := t.pid
	t.mu.Unlock()
	if err != nil {
		return nil, err
	}
	out, err := runIn(ctx, pid, script)
	if err != nil {
		return out, fmt.Errorf("host %s: %w", name, err)
	}
	return out, nil
}

// run runs script in the twin. The caller holds t.mu.
func (t *twin) run(ctx context.Context, script string) ([]byte, error) {
	if err := t.running(); err != nil {
		return nil, err
	}
	return runIn(ctx, t.pid, script)
}

// runIn runs script with /bin/sh in the mount namespace, root and working
// directory of pid.
func runIn(ctx context.Context, pid int, script string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "nsenter", "--target", strconv.Itoa(pid),
		"--mount", "--root", "--wd", "--", "/bin/sh", "-c", script)
	cmd.Env = twinEnv
	// A script that leaves a daemon behind holding its output must not
	// hang the caller.
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("run %q: %w; output:\n%s", script, err, tail(out))
	}
	return out, nil
}
