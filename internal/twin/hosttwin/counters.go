package hosttwin

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Markers in the sshd log (LogLevel VERBOSE).
var (
	acceptedMarker = []byte("Accepted publickey for ")
	sessionMarker  = []byte("Starting session: ")
	commandMarker  = []byte("Starting session: command ")
)

// ConnectionCount returns how many SSH connections host name has
// authenticated since the fleet started, across sshd restarts.
func (f *Fleet) ConnectionCount(name string) (int, error) {
	return f.countLog(name, acceptedMarker)
}

// SessionCount returns how many sessions (commands, shells, subsystems
// such as sftp) host name has started since the fleet started.
func (f *Fleet) SessionCount(name string) (int, error) {
	return f.countLog(name, sessionMarker)
}

// CommandCount returns how many commands (exec requests) host name has
// run for clients since the fleet started; Run does not count.
func (f *Fleet) CommandCount(name string) (int, error) {
	return f.countLog(name, commandMarker)
}

// countLog counts the lines of host name's sshd log that contain marker.
func (f *Fleet) countLog(name string, marker []byte) (int, error) {
	t, err := f.lookup(name)
	if err != nil {
		return 0, err
	}
	b, err := os.ReadFile(t.logFile)
	if err != nil {
		return 0, fmt.Errorf("host %s: %w", name, err)
	}
	return countLines(b, marker), nil
}

// countLines counts the lines of log that contain marker.
func countLines(log, marker []byte) int {
	n := 0
	for line := range bytes.Lines(log) {
		if bytes.Contains(line, marker) {
			n++
		}
	}
	return n
}

// CPUTime returns the CPU that host name's processes have used since it started: user and
// system time of every process in its namespace and of the children each has reaped (fields
// 14 to 17 of /proc/<pid>/stat). Commands that have ended are in it once their session has
// reaped them, so the difference over a finished request is what the request cost the twin.
func (f *Fleet) CPUTime(name string) (time.Duration, error) {
	t, err := f.lookup(name)
	if err != nil {
		return 0, err
	}
	t.mu.Lock()
	pids, ours, err := nsMembers(t.ns, t.pid, t.start, t.marker)
	t.mu.Unlock()
	if err != nil {
		return 0, fmt.Errorf("host %s: %w", name, err)
	}
	if !ours {
		return 0, fmt.Errorf("host %s: its namespace is gone", name)
	}
	var total time.Duration
	for _, pid := range pids {
		ticks, err := procCPUTicks(pid)
		if err != nil {
			continue // ended between the listing and the read: reaped into its parent
		}
		total += time.Duration(ticks) * clockTick
	}
	return total, nil
}

// clockTick is USER_HZ, the unit of /proc/<pid>/stat times: 100 on every Linux architecture
// Go builds for.
const clockTick = 10 * time.Millisecond

// procCPUTicks returns utime+stime+cutime+cstime of pid, in clock ticks.
func procCPUTicks(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("pid %d: malformed stat", pid)
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 15 { // fields[0] is field 3: fields 14-17 are fields[11:15]
		return 0, fmt.Errorf("pid %d: short stat", pid)
	}
	var sum uint64
	for _, s := range fields[11:15] {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("pid %d: stat: %w", pid, err)
		}
		sum += n
	}
	return sum, nil
}
