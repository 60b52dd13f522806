package tasks

import (
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// OFEDStatus is what an OFEDPin reads of a host's stack.
type OFEDStatus struct {
	// Installed maps each pinned package to its installed version, "" when
	// it is not installed.
	Installed map[string]string
	// Running is the stack ofed_info -s reports. ofed_info is a script the
	// OFED packages install (ofed-scripts; the metapackage on the twins), so
	// it changes with the packages, before a reboot or an openibd restart
	// loads the new modules: right after an install it already reports the
	// new version, on real hosts as on the twins. Only the loaded modules'
	// version (/sys/module/mlx5_core/version, which the gather does not read
	// yet) would show that window.
	Running facts.OFEDInfo
	// RebootRequired reports that the pinned packages are installed at the
	// wanted version while ofed_info reports another stack: a reboot (or an
	// openibd restart) loads it. See Running for what it cannot see.
	RebootRequired bool
}

// Status reads the task's packages and the running stack from f (gathered
// with Needs).
func (t OFEDPin) Status(f host.Facts) (OFEDStatus, error) {
	if err := t.validate(); err != nil {
		return OFEDStatus{}, err
	}
	st := OFEDStatus{Installed: map[string]string{}, Running: f.OFED}
	if t.Version == "" {
		return st, nil
	}
	t, err := t.ForHost(f)
	if err != nil {
		return OFEDStatus{}, err
	}
	pkgs, err := t.installed(f)
	if err != nil {
		return OFEDStatus{}, err
	}
	atVersion := true
	for _, p := range t.packages() {
		v, _ := installedVersion(pkgs, p)
		st.Installed[p] = v
		atVersion = atVersion && v == t.packageVersion()
	}
	st.RebootRequired = atVersion && !t.runs(f.OFED)
	return st, nil
}

// runs reports whether the running stack is the wanted flavor and version.
func (t OFEDPin) runs(o facts.OFEDInfo) bool {
	return string(o.Flavor) == t.Flavor && o.Version == t.Version
}

// runningNote is the note of the running-stack check of an install that
// has nothing left to install.
func (t OFEDPin) runningNote(o facts.OFEDInfo) host.Change {
	if t.runs(o) {
		return host.Unchanged("the running stack is " + describeStack(o) + ", as pinned")
	}
	return host.Unchanged(fmt.Sprintf("OFED %s %s installed, running %s: reboot (or restart openibd) to load it",
		t.Flavor, t.Version, describeStack(o)))
}

// checkRunning is the check of a task without Version: the running stack
// must be the flavor and satisfy Constraint.
func (t OFEDPin) checkRunning(o facts.OFEDInfo) (host.Change, error) {
	want := t.Flavor + " OFED " + t.Constraint
	if string(o.Flavor) != t.Flavor {
		return host.Change{}, fmt.Errorf("the host runs %s, want %s: set version (and repo_url) to install it", describeStack(o), want)
	}
	v, err := parseOFEDVersion(o.Version)
	if err != nil {
		return host.Change{}, fmt.Errorf("the host runs %s: %w", describeStack(o), err)
	}
	cs, err := parseOFEDConstraint(t.Constraint)
	if err != nil {
		return host.Change{}, err
	}
	if !cs.Check(v) {
		return host.Change{}, fmt.Errorf("the host runs %s, which does not satisfy %s: set version (and repo_url) to install one that does",
			describeStack(o), t.Constraint)
	}
	return host.Unchanged("the running stack " + describeStack(o) + " satisfies " + t.Constraint), nil
}

// checkFlavor refuses to install one flavor over the other: NVIDIA's
// installers want the old stack removed first.
func (t OFEDPin) checkFlavor(running facts.OFEDInfo, pkgs []facts.Package) error {
	other := facts.OFEDMLNX
	if t.Flavor == string(facts.OFEDMLNX) {
		other = facts.OFEDDOCA
	}
	meta := metaPackage(string(other))
	v, installed := installedVersion(pkgs, meta)
	has := describeStack(running)
	switch {
	case running.Flavor == other:
	case installed:
		has = meta + " " + v + " installed"
	default:
		return nil
	}
	return fmt.Errorf("the host has %s (package %s): remove it first (/usr/sbin/ofed_uninstall.sh --force, or remove %s "+
		"with the package manager), then apply again to install %s OFED %s", has, meta, meta, t.Flavor, t.Version)
}

// describeStack names a running stack, e.g. "DOCA-OFED 25.10-1.7.1".
func describeStack(o facts.OFEDInfo) string {
	switch o.Flavor {
	case facts.OFEDDOCA:
		return "DOCA-OFED " + o.Version
	case facts.OFEDMLNX:
		return "MLNX_OFED " + o.Version
	}
	return "the inbox rdma-core stack (no ofed_info)"
}
