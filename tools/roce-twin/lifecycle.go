package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
)

const (
	pidFile       = "roce-twin.pid"
	logFile       = "roce-twin.log"
	endpointsFile = "endpoints.json"
	startTimeout  = 60 * time.Second
	stopTimeout   = 15 * time.Second
)

// up starts "roce-twin serve" detached from this process and waits until it has written
// the endpoints (or died).
func up(o options) error {
	if err := os.MkdirAll(o.stateDir, 0o700); err != nil {
		return err
	}
	if pid, ok := runningPID(o.stateDir); ok {
		return fmt.Errorf("twins already running in %s (pid %d): run roce-twin down first", o.stateDir, pid)
	}
	_ = os.Remove(filepath.Join(o.stateDir, endpointsFile))
	self, err := os.Executable()
	if err != nil {
		return err
	}
	log, err := os.Create(filepath.Join(o.stateDir, logFile))
	if err != nil {
		return err
	}
	defer log.Close()
	args := []string{"serve", "--state-dir", o.stateDir, "--switches", strconv.Itoa(o.switches),
		"--release", o.release, "--hwsku", o.hwsku, "--ports", strconv.Itoa(o.ports), "--buffer-model", o.bufferModel,
		"--switch-os", o.switchOS, "--cumulus-release", o.cumulusRelease,
		"--hosts", strconv.Itoa(o.hosts), "--profile", o.profile}
	if o.tfvars != "" {
		abs, err := filepath.Abs(o.tfvars)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return err
		}
		_ = os.Remove(abs)
		args = append(args, "--tfvars", abs)
	}
	cmd := exec.Command(self, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(startTimeout)
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("twins exited during start (%v); see %s", err, filepath.Join(o.stateDir, logFile))
		case <-deadline:
			_ = cmd.Process.Kill()
			return fmt.Errorf("twins did not start within %s; see %s", startTimeout, filepath.Join(o.stateDir, logFile))
		case <-time.After(50 * time.Millisecond):
		}
		if _, err := os.Stat(filepath.Join(o.stateDir, endpointsFile)); err == nil {
			fmt.Printf("twins running (pid %d); endpoints in %s\n", cmd.Process.Pid, filepath.Join(o.stateDir, endpointsFile))
			if o.tfvars != "" {
				fmt.Printf("terraform variables in %s\n", args[len(args)-1])
			}
			return cmd.Process.Release()
		}
	}
}

// down stops the serve process of stateDir and waits for it to exit; host twins left by a
// serve process that died are stopped too.
func down(stateDir string) error {
	pid, ok := runningPID(stateDir)
	if !ok {
		if err := stopOrphanHosts(stateDir); err != nil {
			return err
		}
		fmt.Println("no twins running in", stateDir)
		return nil
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		return fmt.Errorf("stop pid %d: %w", pid, err)
	}
	for end := time.Now().Add(stopTimeout); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if !alive(pid) {
			_ = os.Remove(filepath.Join(stateDir, pidFile))
			fmt.Println("twins stopped")
			return nil
		}
	}
	return fmt.Errorf("pid %d did not stop within %s", pid, stopTimeout)
}

func stopOrphanHosts(stateDir string) error {
	dir := filepath.Join(stateDir, hostsDir)
	if _, err := os.Stat(filepath.Join(dir, "fleet.json")); err != nil {
		return nil
	}
	fleet, err := hosttwin.Attach(dir)
	if err != nil {
		return fmt.Errorf("host twins in %s: %w", dir, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	return fleet.Stop(ctx)
}

// reboot power-cycles host name of a running fleet.
func reboot(stateDir, name string) error {
	fleet, err := hosttwin.Attach(filepath.Join(stateDir, hostsDir))
	if err != nil {
		return fmt.Errorf("no host twins in %s: %w", stateDir, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if err := fleet.Reboot(ctx, name); err != nil {
		return err
	}
	fmt.Println(name, "rebooted")
	return nil
}

func runningPID(stateDir string) (int, bool) {
	raw, err := os.ReadFile(filepath.Join(stateDir, pidFile))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, alive(pid)
}

// alive reports whether pid is a live process. An exited process whose parent has not reaped
// it yet (a zombie, as under a container's init that does not reap) counts as gone.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name: "pid (comm) S ...".
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}
