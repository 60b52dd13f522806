package hosttwin

import (
	"bytes"
	"fmt"
	"os"
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
