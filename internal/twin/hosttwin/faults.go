package hosttwin

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// KillSSHD kills host name's sshd the hard way, as a crash would: the
// listener, every connection and every command running in a session. Its
// mounts go with it; what it wrote stays in the upper directory for
// RestartSSHD.
func (f *Fleet) KillSSHD(ctx context.Context, name string) error {
	return f.withHost(name, func(t *twin) error {
		return t.kill(ctx)
	})
}

// RestartSSHD starts host name's sshd again on the same port with the same
// keys and the same files (killing it first if it still runs).
func (f *Fleet) RestartSSHD(ctx context.Context, name string) error {
	return f.withHost(name, func(t *twin) error {
		if err := t.kill(ctx); err != nil {
			return err
		}
		return f.launch(ctx, t)
	})
}

// RotateHostKey gives host name a new host key and restarts its sshd.
// The known_hosts files keep the old key, so a client that checks them
// now fails with a key mismatch, as after a reinstall.
func (f *Fleet) RotateHostKey(ctx context.Context, name string) error {
	return f.withHost(name, func(t *twin) error {
		if err := t.kill(ctx); err != nil {
			return err
		}
		if _, err := t.newHostKey(); err != nil {
			return err
		}
		return f.launch(ctx, t)
	})
}

// HoldTool makes the stand-in tool (modprobe) on host name wait when it next
// runs, until ReleaseTool: a test can then kill sshd or cut the link while a
// command of an apply is in flight. WaitHeld tells when the tool waits.
func (f *Fleet) HoldTool(name, tool string) error {
	root, err := f.Root(name)
	if err != nil {
		return err
	}
	dir := filepath.Join(root, holdDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	os.Remove(filepath.Join(dir, tool+".held"))
	return os.WriteFile(filepath.Join(dir, tool), nil, 0o644)
}

// WaitHeld waits until tool on host name is held by HoldTool.
func (f *Fleet) WaitHeld(ctx context.Context, name, tool string) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		root, err := f.Root(name)
		if err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(root, holdDir, tool+".held")); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("host %s: %s was not held: %w", name, tool, ctx.Err())
		case <-tick.C:
		}
	}
}

// ReleaseTool lets a held tool go on and stops holding it, also after the
// host's sshd was killed (the hold then lives in the host's upper directory).
func (f *Fleet) ReleaseTool(name, tool string) error {
	t, err := f.lookup(name)
	if err != nil {
		return err
	}
	dir := filepath.Join(t.paths.upper(), holdDir)
	if root, err := f.Root(name); err == nil {
		dir = filepath.Join(root, holdDir)
	}
	for _, n := range []string{tool, tool + ".held"} {
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// holdDir is where HoldTool leaves its marks inside a host (common.sh's twin_hold).
const holdDir = "run/twin/hold"

// LinkDown cuts host name's network (Options.Network) as a failed link
// would: new connections fail, established ones stall until LinkUp or
// until the client gives up on them.
func (f *Fleet) LinkDown(ctx context.Context, name string) error {
	return f.setLink(ctx, name, false)
}

// LinkUp restores host name's network after LinkDown.
func (f *Fleet) LinkUp(ctx context.Context, name string) error {
	return f.setLink(ctx, name, true)
}

func (f *Fleet) setLink(ctx context.Context, name string, up bool) error {
	return f.withHost(name, func(t *twin) error {
		if t.link == "" {
			return errors.New("no network link: start the fleet with Options.Network")
		}
		if err := t.running(); err != nil {
			return err
		}
		return setLink(ctx, t.link, up)
	})
}

// withHost runs op on host name with the host locked, wraps its error with
// the host name and saves the fleet's state afterwards.
func (f *Fleet) withHost(name string, op func(*twin) error) error {
	t, err := f.lookup(name)
	if err != nil {
		return err
	}
	f.mu.Lock()
	stopped := f.stopped
	f.mu.Unlock()
	if stopped {
		return fmt.Errorf("host %s: fleet is stopped", name)
	}
	t.mu.Lock()
	err = op(t)
	t.mu.Unlock()
	if err != nil {
		return fmt.Errorf("host %s: %w", name, err)
	}
	if err := f.saveState(); err != nil {
		return fmt.Errorf("host %s: save state: %w", name, err)
	}
	return nil
}
