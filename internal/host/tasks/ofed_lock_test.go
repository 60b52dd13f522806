package tasks

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
)

func TestExplainAptLock(t *testing.T) {
	// Standard error as apt 2.6 and dpkg 1.21 print it (C locale), recorded
	// on a host twin.
	tests := []struct {
		name   string
		stderr string
		want   []string // parts of the explanation; nil: not explained
	}{
		{"frontend lock after waiting",
			"E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process using it?\n",
			[]string{"/var/lib/dpkg/lock-frontend is held by another process and apt waited 2m0s for it",
				"installing doca-ofed needs it", "fuser -v /var/lib/dpkg/lock-frontend", "raise lock_timeout"}},
		{"frontend lock without waiting",
			"E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 3296 (python3)\n" +
				"E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is another process using it?\n",
			[]string{"/var/lib/dpkg/lock-frontend is held by process 3296 (python3) and apt waited 2m0s for it"}},
		{"dpkg's lock", "E: Unable to lock the administration directory (/var/lib/dpkg/), is another process using it?\n",
			[]string{"/var/lib/dpkg/lock is held by another process"}},
		{"lists lock",
			"E: Could not get lock /var/lib/apt/lists/lock. It is held by process 7357 (apt-get)\nE: Unable to lock directory /var/lib/apt/lists/\n",
			[]string{"/var/lib/apt/lists/lock is held by process 7357 (apt-get) and apt-get update does not wait for this lock"}},
		{"no holder", "E: Could not get lock /var/lib/dpkg/lock. \n", []string{"/var/lib/dpkg/lock is held by another process"}},
		{"apt-mark through dpkg",
			"dpkg: error: dpkg frontend lock was locked by another process with pid 3296\nNote: removing the lock file is always wrong\n",
			[]string{"/var/lib/dpkg/lock-frontend is held by process 3296"}},
		{"not a lock", "E: Version '25.10-1.7.1' for 'doca-ofed' was not found\n", nil},
	}
	explain := explainAptLock([]string{"doca-ofed"}, DefaultLockTimeout)
	for _, tt := range tests {
		cause := &ssh.CommandError{Host: "h", Command: "apt-get install", ExitStatus: 100, Stderr: []byte(tt.stderr)}
		got := explain(cause)
		if tt.want == nil {
			if got != nil {
				t.Errorf("%s: explained as %v", tt.name, got)
			}
			continue
		}
		if got == nil {
			t.Errorf("%s: not explained", tt.name)
			continue
		}
		if !errors.Is(got, ErrPackageLock) || !errors.Is(got, cause) {
			t.Errorf("%s: %v does not wrap ErrPackageLock and the cause", tt.name, got)
		}
		for _, part := range tt.want {
			if !strings.Contains(got.Error(), part) {
				t.Errorf("%s: %q lacks %q", tt.name, got, part)
			}
		}
	}
	if explain(errors.New("Could not get lock /x")) != nil {
		t.Error("an error that is not a command's was explained")
	}
	if got := explainAptLock(nil, 1500*time.Millisecond)(&ssh.CommandError{Stderr: []byte("Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 1")}); got == nil ||
		!strings.Contains(got.Error(), "apt waited 1.5s") {
		t.Errorf("timeout in message: %v", got)
	}
}
