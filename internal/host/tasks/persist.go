package tasks

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// Persistence makes the runtime settings of a DCQCN and a HostQoS task
// survive reboots and driver reloads. It installs
//   - a script, /usr/local/sbin/roce-<ID>-apply, rendered from the same
//     settings and facts as the live tasks, so it writes exactly what they
//     write (DCQCN values that live in NV config need nothing at boot);
//   - a systemd oneshot unit, roce-<ID>.service, that runs it at boot
//     after openibd and network-online, enabled but not started (the live
//     tasks already applied the values);
//   - a udev rule, 90-roce-<ID>.rules, that runs it for each ConnectX
//     netdev that appears (driver reload, openibd restart), for that netdev
//     only, so the job stays short.
//
// It reloads systemd and enables the unit when the unit file is written, and
// reloads udev when the rule is.
type Persistence struct {
	// ID names the files and the unit (roce-<ID>...) and tells this set
	// apart from others: lowercase letters, digits and '-', at most 40.
	// (It is not called Name: host.Task needs a Name method.)
	ID string
	// DCQCN is the DCQCN task to persist; nil persists none.
	DCQCN *DCQCN
	// QoS is the HostQoS task to persist; nil persists none.
	QoS *HostQoS
}

var _ host.Task = Persistence{}

// persistName is what Persistence.ID may be: it becomes part of file and
// unit names and of the script's messages.
var persistName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)

// Paths of the files a Persistence task installs.
const (
	persistScriptDir = "/usr/local/sbin"
	systemdUnitDir   = "/etc/systemd/system"
	udevRulesDir     = "/etc/udev/rules.d"
	persistTarget    = "multi-user.target"
)

// Unit is the systemd unit's name, "roce-<ID>.service".
func (p Persistence) Unit() string { return "roce-" + p.ID + ".service" }

// ScriptPath is where the apply script goes.
func (p Persistence) ScriptPath() string { return persistScriptDir + "/roce-" + p.ID + "-apply" }

// UnitPath is where the unit file goes.
func (p Persistence) UnitPath() string { return systemdUnitDir + "/" + p.Unit() }

// RulePath is where the udev rule goes.
func (p Persistence) RulePath() string { return udevRulesDir + "/90-roce-" + p.ID + ".rules" }

// Name implements host.Task: "persist roce-<ID>".
func (p Persistence) Name() string { return "persist roce-" + p.ID }

// Needs implements host.Task: the three files and what the persisted tasks
// read (netdevs, DCQCN path, mlnx_qos, RDMA stack).
func (p Persistence) Needs() host.Want {
	s := roceSelectionNeeds().WithFiles(p.ScriptPath(), p.UnitPath(), p.RulePath())
	if p.DCQCN != nil {
		s = s.Union(p.DCQCN.Needs())
	}
	if p.QoS != nil {
		s = s.Union(p.QoS.Needs())
	}
	return s
}

// checkPersistID refuses an ID that cannot name a unit, a script and a rule.
func checkPersistID(id string) error {
	if !persistName.MatchString(id) {
		return fmt.Errorf("persistence ID %q: want lowercase letters, digits and '-', at most 40, starting with a letter or digit", id)
	}
	return nil
}

func (p Persistence) validate() error {
	if err := checkPersistID(p.ID); err != nil {
		return err
	}
	if p.DCQCN == nil && p.QoS == nil {
		return errors.New("persistence " + p.ID + ": nothing to persist: give it a DCQCN or a HostQoS task")
	}
	return nil
}

// Plan implements host.Task: write the script, unit and rule where they
// differ, enable the unit, and reload systemd and udev as needed.
func (p Persistence) Plan(f host.Facts) ([]host.Change, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	script, err := p.Script(f)
	if err != nil {
		return nil, err
	}
	files := []File{
		{Path: p.ScriptPath(), Content: script, Mode: 0o755, Owner: "root:root"},
		{Path: p.UnitPath(), Content: p.UnitFile(), Mode: 0o644, Owner: "root:root"},
		{Path: p.RulePath(), Content: p.UdevRule(), Mode: 0o644, Owner: "root:root"},
	}
	var out []host.Change
	changed := make([]bool, len(files))
	for i, file := range files {
		cs, err := file.Plan(f)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			changed[i] = changed[i] || c.Apply != nil
		}
		out = append(out, cs...)
	}
	unitChanged, ruleChanged := changed[1], changed[2]
	out = append(out, p.enable(unitChanged))
	if ruleChanged {
		out = append(out, host.Change{
			Summary: "reload the udev rules so " + p.RulePath() + " acts on the next driver reload",
			Before:  "rule not loaded",
			After:   "rule loaded",
			Apply:   host.Commands{Run: []shell.Runnable{shell.New("udevadm", "control", "--reload")}, Sudo: true},
		})
	}
	return out, nil
}

// enable is the change (or note) that makes systemd know the unit and run
// it at boot, each time the unit file is written. It does not start the
// unit: the live tasks set the values.
//
// Whether the unit is still enabled is not read: the engine's file fact
// cannot read the symlink "systemctl enable" makes (it compares the link's
// size with its target's content and fails the gather), so a unit disabled
// by hand is not noticed until the unit file changes.
func (p Persistence) enable(unitChanged bool) host.Change {
	if !unitChanged {
		return host.Unchanged(p.UnitPath() + " is in place; it was enabled when written")
	}
	return host.Change{
		Summary: "reload systemd and enable " + p.Unit() + " at boot (not started now: the live tasks applied the values)",
		Before:  "unit not known to systemd or changed",
		After:   "enabled, runs " + p.ScriptPath() + " at boot",
		Apply: host.Commands{Run: []shell.Runnable{
			shell.New("systemctl", "daemon-reload"),
			shell.New("systemctl", "enable", p.Unit()),
		}, Sudo: true},
	}
}
