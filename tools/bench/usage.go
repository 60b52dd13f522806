package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// providerBinary is the provider's executable name, which Terraform's dev_overrides look for.
const providerBinary = "terraform-provider-roce"

// envProviderUsage is the provider's own hook (main's profile.go): each provider process
// keeps usage-<pid>, "<peak RSS KiB> <user+system CPU µs>", in that directory while it runs.
// The provider reports itself because Terraform kills a provider that has not exited 2 s after
// it asked it to stop: a wrapper that measured its child at exit lost the 256-host plan walk's
// process that way, and the provider it orphaned escaped Terraform's rusage as well. Terraform
// starts the provider itself now and reaps it, killed or not, so the controller CPU is whole.
const envProviderUsage = "ROCE_PROVIDER_USAGE_DIR"

// providerUsage is what the provider processes of one step reported.
type providerUsage struct {
	peakMiB   float64       // the largest peak RSS of any of them
	cpu       time.Duration // their user+system CPU together
	processes int
}

// readProviderUsage sums the usage files in dirs: one per process.
func readProviderUsage(dirs ...string) providerUsage {
	var u providerUsage
	var most int64
	for _, dir := range dirs {
		most = max(most, u.add(dir))
	}
	u.peakMiB = float64(most) / 1024
	return u
}

// add adds the usage files in dir to u and returns their largest peak RSS in KiB.
func (u *providerUsage) add(dir string) (most int64) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "usage-") || strings.HasSuffix(e.Name(), ".tmp") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
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
	return most
}

// emptyDir makes dir an empty directory.
func emptyDir(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.MkdirAll(dir, 0o755)
}

func lookPath(name string) (string, error) { return exec.LookPath(name) }
