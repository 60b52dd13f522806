package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// providerBinary is the provider's executable name, which Terraform's dev_overrides look for.
const providerBinary = "terraform-provider-roce"

// Environment of the wrapper: the real provider, and the file that collects each provider
// process's peak RSS and CPU.
const (
	envRealProvider = "ROCE_BENCH_PROVIDER"
	envRSSLog       = "ROCE_BENCH_RSS_LOG"
)

// wrapProvider runs when Terraform starts this binary as the provider (a link named
// terraform-provider-roce in the dev_overrides directory): it runs the real provider with the
// same arguments, environment and standard streams, so the plugin handshake passes through
// untouched, and appends the provider's peak resident set (KiB) and its user+system CPU
// (microseconds) to the RSS log when it exits.
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
			cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			fmt.Fprintln(f, ru.Maxrss, cpu.Microseconds()) // Maxrss is KiB on Linux
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

// providerUsage is what the provider processes of one step reported.
type providerUsage struct {
	peakMiB   float64       // the largest peak RSS of any of them
	cpu       time.Duration // their user+system CPU together
	processes int
}

// readProviderLog sums the wrapper's log: one "<maxrss KiB> <CPU µs>" line per process.
func readProviderLog(log string) providerUsage {
	var u providerUsage
	b, err := os.ReadFile(log)
	if err != nil {
		return u
	}
	var most int64
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		kib, err1 := strconv.ParseInt(f[0], 10, 64)
		us, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		u.processes++
		most = max(most, kib)
		u.cpu += time.Duration(us) * time.Microsecond
	}
	u.peakMiB = float64(most) / 1024
	return u
}

func lookPath(name string) (string, error) { return exec.LookPath(name) }
