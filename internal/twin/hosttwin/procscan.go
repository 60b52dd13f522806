package hosttwin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// mountNS returns the mount namespace of pid, as "mnt:[inode]".
func mountNS(pid int) (string, error) {
	return os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/mnt")
}

// procStat returns pid's state letter (field 3 of /proc/<pid>/stat) and
// its start time in clock ticks since boot (field 22), which tells a
// process from a later one with the same PID.
func procStat(pid int) (state byte, start uint64, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("pid %d: malformed stat", pid)
	}
	fields := strings.Fields(string(b[i+1:]))
	// fields[0] is field 3; field 22 is fields[19].
	if len(fields) < 20 || len(fields[0]) != 1 {
		return 0, 0, fmt.Errorf("pid %d: short stat", pid)
	}
	start, err = strconv.ParseUint(fields[19], 10, 64)
	return fields[0][0], start, err
}

// startTime returns pid's start time (see procStat).
func startTime(pid int) (uint64, error) {
	_, start, err := procStat(pid)
	return start, err
}

// sameProcess reports whether pid is still the process that started at
// start and has not exited (a zombie has).
func sameProcess(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	state, got, err := procStat(pid)
	return err == nil && got == start && state != 'Z'
}

// nsMembers lists the processes in mount namespace ns, and whether the
// namespace is known to be the twin's launch: the launcher (pid with start
// time launcherStart) is in it, or a member's mount table has the launch's
// root overlay, whose source is marker. Namespace numbers are reused once
// a namespace ends (a new twin of the same host often gets the same one),
// so the number alone identifies nothing. Zombies have left their
// namespaces and are not listed.
func nsMembers(ns string, launcher int, launcherStart uint64, marker string) (pids []int, ours bool, err error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false, err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		got, err := mountNS(pid)
		if err != nil || got != ns {
			continue
		}
		pids = append(pids, pid)
		if ours {
			continue
		}
		if pid == launcher && sameProcess(pid, launcherStart) {
			ours = true
		} else if mi, err := os.ReadFile("/proc/" + e.Name() + "/mountinfo"); err == nil && hasMountSource(mi, marker) {
			ours = true
		}
	}
	return pids, ours, nil
}

// hasMountSource reports whether a mountinfo table lists a mount whose
// source is source.
func hasMountSource(mountinfo []byte, source string) bool {
	return source != "" && strings.Contains(string(mountinfo), " "+source+" ")
}

// errOwnNamespace guards against killing the caller's own namespace.
var errOwnNamespace = errors.New("refusing to kill processes in this process's own mount namespace")

// killNamespace SIGKILLs every process in the twin's mount namespace until
// none is left, which destroys the namespace and with it every mount the
// twin made. Each round checks anew that the namespace is the twin's (see
// nsMembers), so it never kills in a later namespace that got the number.
func killNamespace(ctx context.Context, ns string, launcher int, launcherStart uint64, marker string) error {
	if ns == "" {
		return nil
	}
	self, err := mountNS(os.Getpid())
	if err != nil {
		return err
	}
	if ns == self {
		return errOwnNamespace
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		pids, ours, err := nsMembers(ns, launcher, launcherStart, marker)
		if err != nil {
			return err
		}
		if len(pids) == 0 || !ours {
			return nil
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("processes left in %s: %v: %w", ns, pids, ctx.Err())
		case <-tick.C:
		}
	}
}
