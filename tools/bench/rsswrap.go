package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// providerBinary is the provider's executable name, which Terraform's dev_overrides look for.
const providerBinary = "terraform-provider-roce"

// Environment of the wrapper: the real provider, and the file that collects peak RSS.
const (
	envRealProvider = "ROCE_BENCH_PROVIDER"
	envRSSLog       = "ROCE_BENCH_RSS_LOG"
)

// wrapProvider runs when Terraform starts this binary as the provider (a link named
// terraform-provider-roce in the dev_overrides directory): it runs the real provider with the
// same arguments, environment and standard streams, so the plugin handshake passes through
// untouched, and appends the provider's peak resident set (KiB) to the RSS log when it exits.
func wrapProvider() int {
	cmd := exec.Command(os.Getenv(envRealProvider), os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// If Terraform kills the wrapper, the provider goes with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "bench wrapper:", err)
		return 1
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		if f, err := os.OpenFile(os.Getenv(envRSSLog), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			fmt.Fprintln(f, ru.Maxrss) // KiB on Linux
			f.Close()
		}
	}
	return cmd.ProcessState.ExitCode()
}

// providerWrap prepares dir as a dev_overrides directory whose provider is this binary.
func providerWrap(dir string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.Symlink(self, filepath.Join(dir, providerBinary))
}

// peakRSS returns the largest peak RSS in the log, in MiB, and how many provider processes
// reported one.
func peakRSS(log string) (mib float64, processes int) {
	f, err := os.Open(log)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	var most int64
	s := bufio.NewScanner(f)
	for s.Scan() {
		kib, err := strconv.ParseInt(strings.TrimSpace(s.Text()), 10, 64)
		if err != nil {
			continue
		}
		processes++
		most = max(most, kib)
	}
	return float64(most) / 1024, processes
}

func lookPath(name string) (string, error) { return exec.LookPath(name) }
