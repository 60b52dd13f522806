package tasks

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
)

// ErrPackageLock is wrapped by the error of an OFEDPin step that found the
// package database locked by another process.
var ErrPackageLock = errors.New("the package database is locked by another process")

var (
	// aptLockRE is apt's message for a lock it could not take (C locale):
	// "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by
	// process 3296 (unattended-upgr)".
	aptLockRE = regexp.MustCompile(`Could not get lock (\S+?)\.? It is held by process ([0-9]+)(?: \(([^)]*)\))?`)
	// aptLockPlainRE is the same message without a holder.
	aptLockPlainRE = regexp.MustCompile(`Could not get lock (\S+?)\.?(?:\s|$)`)
	// aptAcquireRE is what apt prints to standard error once a lock
	// timeout runs out (the holder went to standard output as progress):
	// "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), is
	// another process using it?".
	aptAcquireRE = regexp.MustCompile(`Unable to acquire the dpkg frontend lock \((\S+)\)`)
	// aptAdminRE is the same for dpkg's own lock: "E: Unable to lock the
	// administration directory (/var/lib/dpkg/), is another process using it?".
	aptAdminRE = regexp.MustCompile(`Unable to lock the administration directory \((\S+?)/?\)`)
	// dpkgLockRE is dpkg's own message, from apt-mark hold:
	// "dpkg: error: dpkg frontend lock was locked by another process with pid 3296".
	dpkgLockRE = regexp.MustCompile(`dpkg (frontend )?lock was locked by another process with pid ([0-9]+)`)
)

// dnfLockRE is dnf 4's message for a lock held by another process with
// exit_on_lock (dnf/lock.py): "RPMDB already locked by 1234" (also
// "metadata", "cachedir", "log").
var dnfLockRE = regexp.MustCompile(`(RPMDB|metadata|cachedir|log) already locked by ([0-9]+)`)

// explainDnfLock turns the failure of a dnf command on a lock held by another
// process, after the wait of [OFEDPin.dnfCommands], into an error that says
// which lock, who holds it, how long it was waited for and what to do.
func explainDnfLock(pkgs []string, timeout time.Duration) func(error) error {
	return func(err error) error {
		var ce *ssh.CommandError
		if !errors.As(err, &ce) {
			return nil
		}
		m := dnfLockRE.FindStringSubmatch(string(ce.Stderr))
		if m == nil {
			return nil
		}
		return fmt.Errorf("%w: dnf's %s lock is held by process %s and was waited for %s; installing %s needs it: "+
			"wait for that process (another dnf, dnf-automatic or packagekitd) to finish, or raise lock_timeout, then apply again: %w",
			ErrPackageLock, m[1], m[2], timeout, strings.Join(pkgs, " "), err)
	}
}

// explainAptLock turns the failure of an apt command on a lock held by
// another process into an error that says which lock, who holds it, how long
// apt waited and what to do. The messages are matched because apt exits 100
// for every failure; the command runs in the C locale so they are English.
func explainAptLock(pkgs []string, timeout time.Duration) func(error) error {
	return func(err error) error {
		var ce *ssh.CommandError
		if !errors.As(err, &ce) {
			return nil
		}
		lock, holder := aptLockHolder(string(ce.Stderr))
		if lock == "" {
			return nil
		}
		wait := "apt waited " + timeout.String() + " for it"
		if strings.HasPrefix(lock, "/var/lib/apt/lists") {
			// DPkg::Lock::Timeout covers the dpkg locks only: apt-get
			// update fails at once on the lists lock.
			wait = "apt-get update does not wait for this lock"
		}
		return fmt.Errorf("%w: %s is held by %s and %s; installing %s needs it: wait for that process "+
			"(often unattended-upgrades or apt-daily; fuser -v %s shows it) to finish, or raise lock_timeout, then apply again: %w",
			ErrPackageLock, lock, holder, wait, strings.Join(pkgs, " "), lock, err)
	}
}

// aptLockHolder finds the lock and its holder in apt's or dpkg's standard
// error; lock is empty when the failure is not a lock.
func aptLockHolder(stderr string) (lock, holder string) {
	if m := aptLockRE.FindStringSubmatch(stderr); m != nil {
		holder = "process " + m[2]
		if m[3] != "" {
			holder += " (" + m[3] + ")"
		}
		return m[1], holder
	}
	if m := aptLockPlainRE.FindStringSubmatch(stderr); m != nil {
		return m[1], "another process"
	}
	if m := aptAcquireRE.FindStringSubmatch(stderr); m != nil {
		return m[1], "another process"
	}
	if m := aptAdminRE.FindStringSubmatch(stderr); m != nil {
		return m[1] + "/lock", "another process"
	}
	if m := dpkgLockRE.FindStringSubmatch(stderr); m != nil {
		lock := "/var/lib/dpkg/lock"
		if m[1] != "" {
			lock += "-frontend"
		}
		return lock, "process " + m[2]
	}
	return "", ""
}
