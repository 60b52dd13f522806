package hosttwin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
)

// killTimeout bounds the killing of one host's processes.
const killTimeout = 10 * time.Second

// Stop kills every process of every host (sshd, sessions, anything they
// started), which ends the hosts' mount namespaces and so their mounts,
// and removes the state directory if Start created it (otherwise only
// fleet.json, keeping layers, keys and logs to look at). It is safe to call
// more than once.
func (f *Fleet) Stop(ctx context.Context) (err error) {
	f.mu.Lock()
	if f.stopped {
		f.mu.Unlock()
		return nil
	}
	f.stopped = true
	f.mu.Unlock()
	defer func() {
		if err != nil { // let the caller try again
			f.mu.Lock()
			f.stopped = false
			f.mu.Unlock()
		}
	}()

	errs := f.eachTwin(func(t *twin) error {
		t.mu.Lock()
		defer t.mu.Unlock()
		if err := t.kill(ctx); err != nil {
			return err
		}
		if t.relay != nil {
			t.relay.close()
			t.relay = nil
		}
		return nil
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if f.stateDir == "" {
		return nil
	}
	// Nothing of a twin is mounted here, but a directory is never removed
	// while something could be mounted in it.
	if err := unmountUnder(f.stateDir); err != nil {
		return err
	}
	if !f.temporary {
		return f.removeStateFile()
	}
	// Host directories hold thousands of small files: remove them side by
	// side rather than in one walk.
	errs = f.eachTwin(func(t *twin) error { return os.RemoveAll(string(t.paths)) })
	errs = append(errs, os.RemoveAll(f.stateDir))
	return errors.Join(errs...)
}

// eachTwin runs op on every twin concurrently and returns its errors,
// wrapped with the host names.
func (f *Fleet) eachTwin(op func(*twin) error) []error {
	errs := make([]error, len(f.twins))
	var wg sync.WaitGroup
	for i, t := range f.twins {
		wg.Go(func() {
			if err := op(t); err != nil {
				errs[i] = fmt.Errorf("host %s: %w", t.host.Name, err)
			}
		})
	}
	wg.Wait()
	return errs
}

// kill ends every process of the twin and waits for them, bounded by
// killTimeout. The caller holds t.mu.
func (t *twin) kill(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, killTimeout)
	defer cancel()
	if t.pid != 0 && t.ownsPID() {
		// The process group: the listener, or the setup script and what it
		// runs. Sessions have groups of their own; killNamespace gets them.
		_ = syscall.Kill(-t.pid, syscall.SIGKILL)
	}
	err := killNamespace(ctx, t.ns, t.pid, t.start, t.marker)
	if err == nil {
		err = t.waitExited(ctx)
	}
	if err != nil {
		return err
	}
	t.proc, t.pid, t.start, t.ns, t.marker = nil, 0, 0, "", ""
	return nil
}

// ownsPID reports whether t.pid is still the twin's first process, so
// that signalling it cannot hit an unrelated process.
func (t *twin) ownsPID() bool {
	if t.proc != nil {
		select {
		case <-t.proc.done:
			return false
		default:
			return true
		}
	}
	return sameProcess(t.pid, t.start)
}

// waitExited waits until the twin's first process has exited (and, when
// this process started it, has been reaped).
func (t *twin) waitExited(ctx context.Context) error {
	if t.proc != nil {
		select {
		case <-t.proc.done:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("pid %d did not exit: %w", t.pid, ctx.Err())
		}
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for sameProcess(t.pid, t.start) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("pid %d did not exit: %w", t.pid, ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}
