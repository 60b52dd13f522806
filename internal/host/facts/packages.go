package facts

import (
	"fmt"
	"strings"
)

// Package is an installed (or known) package and its version.
type Package struct {
	// Name is the package name, e.g. "mlnx-ofed-kernel-dkms".
	Name string
	// Arch is the package architecture, e.g. "amd64" or "x86_64".
	Arch string
	// Version is the full version: dpkg's as printed, rpm's as
	// "[epoch:]version-release" with a zero epoch left out.
	Version string
	// Status is dpkg's "want ok state" (e.g. "install ok installed",
	// "hold ok installed"); "installed" for rpm.
	Status string
	// Installed reports that the package's files are installed.
	Installed bool
	// Held reports a dpkg selection of "hold" (apt-mark hold).
	Held bool
}

// checkPackageNames refuses names that a package tool would read as options.
func checkPackageNames(pkgs []string) error {
	for _, p := range pkgs {
		if p == "" || strings.HasPrefix(p, "-") {
			return fmt.Errorf("invalid package name %q", p)
		}
	}
	return nil
}
