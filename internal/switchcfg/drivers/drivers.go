// Package drivers is the registry of switch operating systems, keyed by the `os` users write.
// A new operating system is one driver package and one line in init.
package drivers

import (
	"fmt"
	"slices"
	"sync"

	sonicmodel "github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg/cumulus"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg/sonic"
)

func init() {
	Register(sonic.Driver{})
	Register(cumulus.Driver{})
}

var (
	mu       sync.RWMutex
	registry = map[string]switchcfg.Driver{}
)

// Default is the OS of a switch whose `os` is unset.
const Default = sonicmodel.OS

// Register adds d under its OS and returns what removes it again (for tests). Registering an
// OS twice is a bug.
func Register(d switchcfg.Driver) (unregister func()) {
	os := d.About().OS
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[os]; dup {
		panic(fmt.Sprintf("switch driver %q registered twice", os))
	}
	registry[os] = d
	return func() {
		mu.Lock()
		defer mu.Unlock()
		delete(registry, os)
	}
}

// Lookup returns the driver of os.
func Lookup(os string) (switchcfg.Driver, bool) {
	mu.RLock()
	defer mu.RUnlock()
	d, ok := registry[os]
	return d, ok
}

// OSes are the registered operating systems, sorted.
func OSes() []string {
	mu.RLock()
	defer mu.RUnlock()
	var out []string
	for os := range registry {
		out = append(out, os)
	}
	slices.Sort(out)
	return out
}

// All are the registered drivers: the default one first, then by OS.
func All() []switchcfg.Driver {
	var out []switchcfg.Driver
	oses := OSes()
	slices.SortStableFunc(oses, func(a, b string) int {
		switch {
		case a == Default:
			return -1
		case b == Default:
			return 1
		}
		return 0
	})
	for _, os := range oses {
		d, _ := Lookup(os)
		out = append(out, d)
	}
	return out
}
