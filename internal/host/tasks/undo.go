package tasks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// The undo tasks take away what a resource put on a host when Terraform destroys it. They
// are tasks like any other: the engine gathers what they need, plans only what is there to
// take away, applies it and gathers again to verify, so a destroy shows the same changes,
// logs and errors as an apply, and a second destroy of the same host changes nothing.

// Absent removes the regular file (or symlink) at Path.
type Absent struct {
	// Path is the absolute, clean path.
	Path string
}

var _ host.Task = Absent{}

// Name implements host.Task: "absent <path>".
func (t Absent) Name() string { return "absent " + t.Path }

// Needs implements host.Task: the file itself.
func (t Absent) Needs() host.Want { return host.Want{}.WithFiles(t.Path) }

// Plan implements host.Task.
func (t Absent) Plan(f host.Facts) ([]host.Change, error) {
	fi, err := gatheredFile(f, t.Path)
	if err != nil {
		return nil, err
	}
	if !fi.Exists {
		return []host.Change{host.Unchanged(t.Path + " is absent")}, nil
	}
	if fi.Type == host.FileDirectory {
		return nil, fmt.Errorf("%s is a directory, not a file: refusing to remove it", t.Path)
	}
	return []host.Change{{
		Summary: "remove " + t.Path,
		Before:  fmt.Sprintf("%s, %d bytes", fi.Type, fi.Size),
		After:   "absent",
		Apply:   host.Commands{Run: []shell.Runnable{shell.New("rm", "-f", "--", t.Path)}, Sudo: true},
	}}, nil
}

// gatheredFile returns the file fact of path, or why it is missing.
func gatheredFile(f host.Facts, path string) (host.FileInfo, error) {
	if err := checkPath(path); err != nil {
		return host.FileInfo{}, err
	}
	fi, ok := f.File(path)
	if !ok {
		if why, absent := f.Absent["file "+path]; absent {
			return host.FileInfo{}, fmt.Errorf("cannot read %s: %s", path, why)
		}
		return host.FileInfo{}, fmt.Errorf("%s was not gathered", path)
	}
	return fi, nil
}

// OFEDUnpin takes away what its OFEDPin put in place to keep the stack: the apt source, pin
// and login and the holds (on RHEL the dnf repository and the version locks of the pinned
// packages, at any version). The packages stay installed: removing the RDMA stack of a GPU
// node is a decision for a person.
type OFEDUnpin struct {
	Pin OFEDPin
}

var _ host.Task = OFEDUnpin{}

// Undo returns the task that takes t away.
func (t OFEDPin) Undo() host.Task { return OFEDUnpin{Pin: t} }

// Name implements host.Task: "unpin ofed <flavor> <version>".
func (t OFEDUnpin) Name() string { return "unpin " + t.Pin.Name() }

// Needs implements host.Task: what the pin reads; nothing for a pin without a version,
// which installs and pins nothing.
func (t OFEDUnpin) Needs() host.Want {
	if t.Pin.Version == "" {
		return host.Want{}
	}
	return t.Pin.Needs()
}

// Plan implements host.Task.
func (t OFEDUnpin) Plan(f host.Facts) ([]host.Change, error) {
	if t.Pin.Version == "" {
		return []host.Change{host.Unchanged(t.Pin.Name() + " pins no version: nothing to take away")}, nil
	}
	pin, err := t.Pin.ForHost(f)
	if err != nil {
		return nil, err
	}
	var out []host.Change
	var files []string
	if pin.family() == FamilyRHEL {
		if !f.Has(host.FactDnfLocks) {
			return nil, fmt.Errorf("cannot read dnf's version locks: %s", f.Absent[host.FactDnfLocks.String()])
		}
		var locked []string
		for _, h := range f.DnfLocks {
			if slices.Contains(pin.packages(), h.Name) && !slices.Contains(locked, h.Name) {
				locked = append(locked, h.Name)
			}
		}
		if len(locked) > 0 {
			out = append(out, host.Change{
				Summary: "remove the version locks of " + strings.Join(locked, " "),
				Before:  "locked",
				After:   "unlocked (still installed)",
				Apply:   pin.dnfCommands(append([]string{"-q", "versionlock", "delete"}, locked...)...),
			})
		}
		files = []string{DnfRepoPath}
	} else {
		pkgs, err := pin.installed(f)
		if err != nil {
			return nil, err
		}
		var held []string
		for _, p := range pin.packages() {
			if isHeld(pkgs, p) {
				held = append(held, p)
			}
		}
		if len(held) > 0 {
			out = append(out, host.Change{
				Summary: "release the hold on " + strings.Join(held, " "),
				Before:  "held",
				After:   "not held (still installed)",
				Apply:   pin.aptCommands(shell.New("apt-mark", "unhold").Arg(held...).With(shell.Discard(1))),
			})
		}
		files = []string{AptSourcePath, AptPreferencesPath, AptAuthPath}
	}
	for _, p := range files {
		cs, err := Absent{Path: p}.Plan(f)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	return out, nil
}

// PersistenceRemoved takes a Persistence away: the unit disabled, its script, unit file and
// udev rule removed, systemd and udev reloaded. The values the live tasks set stay until the
// next reboot or driver reload, which restores the firmware defaults.
type PersistenceRemoved struct {
	// ID is the Persistence's ID.
	ID string
}

var _ host.Task = PersistenceRemoved{}

// Undo returns the task that takes p away.
func (p Persistence) Undo() host.Task { return PersistenceRemoved{ID: p.ID} }

// Undo returns the task that stops loading nvidia_peermem at boot (the file ModuleLoaded
// writes); the loaded module stays.
func (t GPUDirect) Undo() host.Task { return Absent{Path: ModuleLoaded{Module: peermem}.confPath()} }

// Name implements host.Task: "unpersist roce-<ID>".
func (t PersistenceRemoved) Name() string { return "unpersist roce-" + t.ID }

func (t PersistenceRemoved) files() []string {
	p := Persistence{ID: t.ID}
	return []string{p.ScriptPath(), p.UnitPath(), p.RulePath()}
}

// Needs implements host.Task: the three files.
func (t PersistenceRemoved) Needs() host.Want { return host.Want{}.WithFiles(t.files()...) }

// Plan implements host.Task.
func (t PersistenceRemoved) Plan(f host.Facts) ([]host.Change, error) {
	if err := checkPersistID(t.ID); err != nil {
		return nil, err
	}
	p := Persistence{ID: t.ID}
	var removals []host.Change
	present := map[string]bool{}
	for _, path := range t.files() {
		cs, err := Absent{Path: path}.Plan(f)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			present[path] = present[path] || c.Apply != nil
		}
		removals = append(removals, cs...)
	}
	var out []host.Change
	if present[p.UnitPath()] {
		out = append(out, host.Change{
			Summary: "disable " + p.Unit() + " at boot",
			Before:  "enabled",
			After:   "disabled",
			Apply:   host.Commands{Run: []shell.Runnable{shell.New("systemctl", "disable", p.Unit())}, Sudo: true},
		})
	}
	out = append(out, removals...)
	if present[p.UnitPath()] {
		out = append(out, host.Change{
			Summary: "reload systemd without " + p.Unit(),
			Before:  "unit known to systemd",
			After:   "unit gone",
			Apply:   host.Commands{Run: []shell.Runnable{shell.New("systemctl", "daemon-reload")}, Sudo: true},
		})
	}
	if present[p.RulePath()] {
		out = append(out, host.Change{
			Summary: "reload the udev rules without " + p.RulePath(),
			Before:  "rule loaded",
			After:   "rule gone",
			Apply:   host.Commands{Run: []shell.Runnable{shell.New("udevadm", "control", "--reload")}, Sudo: true},
		})
	}
	return out, nil
}
