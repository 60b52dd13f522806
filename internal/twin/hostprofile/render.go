package hostprofile

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// RenderHost fills dir with the per-host layer of a twin host: the fake
// /sys of its NICs and GPUs, /etc/twin (the profile the stand-ins read), the
// preinstalled OFED stack and its dpkg records, apt and systemd
// configuration hidden from the machine's root, and the runtime state of a
// freshly booted host in /run/twin. Whatever dir held before is removed.
//
// dir is meant as an overlayfs lower layer above the base layer
// ([BuildBase]) and the machine's root; some of its directories carry the
// trusted.overlay.opaque attribute, so the calling process must be root.
func RenderHost(dir string, p Profile, id HostID) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if err := id.Validate(); err != nil {
		return err
	}
	if err := emptyDir(dir); err != nil {
		return fmt.Errorf("render host %s: %w", id.Name, err)
	}
	hw := newHardware(p, id)
	t := newTree(dir)
	renderSysfs(t, p, id, hw)
	renderEtc(t, p, id, hw)
	render := renderStack
	if p.RHEL() {
		render = renderRPMStack
	}
	if err := render(t, p); err != nil {
		return fmt.Errorf("render host %s: %w", id.Name, err)
	}
	writeRuntime(t, p, hw, time.Now())
	for _, d := range hiddenDirs(p) {
		t.dir(d)
		if t.Err() == nil {
			t.fail(setOpaque(t.abs(d)))
		}
	}
	hideFamilyTools(t, p)
	if err := t.Err(); err != nil {
		return fmt.Errorf("render host %s in %s: %w", id.Name, dir, err)
	}
	return nil
}

// ResetRuntime is a reboot of the host whose merged root (as seen from the
// caller, e.g. /proc/<sshd pid>/root) is root: runtime state goes back to
// what firmware and kernel give at boot. DCQCN values in the ecn/ sysfs and
// debugfs take the firmware defaults overridden by the NV configuration
// mlxconfig set, traffic_class and the mlnx_qos state are cleared, the
// loaded modules are the boot set (no nvidia_peermem, no memory_peers), and
// /run/twin starts over. Files under /etc and /var persist (they are the
// disk). The ecn/ trees exist after the reset exactly when an OFED stack is
// installed then. Run [BootScript] in the twin afterwards to load
// modules-load.d and start enabled units.
func ResetRuntime(root string, p Profile, id HostID) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if err := id.Validate(); err != nil {
		return err
	}
	t := newTree(root)
	writeRuntime(t, p, newHardware(p, id), time.Now())
	if err := t.Err(); err != nil {
		return fmt.Errorf("reset host %s at %s: %w", id.Name, root, err)
	}
	return nil
}

// hiddenDirs are directories of the machine's root that a twin host of p
// must not inherit: its systemd units, its module lists and, on Debian, its
// apt sources and pins (a RHEL profile hides all of /etc/apt, see
// hideFamilyTools). RenderHost creates them empty and opaque.
func hiddenDirs(p Profile) []string {
	dirs := []string{"etc/systemd/system", "etc/modules-load.d"}
	if !p.RHEL() {
		dirs = append(dirs, "etc/apt/sources.list.d", "etc/apt/preferences.d")
	}
	return dirs
}

// emptyDir creates dir or removes everything in it.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		return os.Chmod(dir, 0o755)
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return os.Chmod(dir, 0o755)
}
