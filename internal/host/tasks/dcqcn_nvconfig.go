package tasks

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// nvAfterReboot marks values that the NIC takes only at the next boot.
const nvAfterReboot = "(effective after reboot or mlxfwreset)"

// nvPort is the NV configuration port suffix of a PCI function: function 0
// is port 1 (_P1), function 1 port 2 (_P2), as on dual-port ConnectX cards
// where each port is its own physical function.
func nvPort(bdf string) int { return int(bdf[len(bdf)-1]-'0') + 1 }

// nvSet is the mlxconfig command that stores params (name=value) as the
// next-boot configuration of the PCI function bdf, without asking.
func nvSet(bdf string, params []string) shell.Command {
	return shell.New("mlxconfig", "-d", bdf, "-y", "set").Arg(params...)
}

// nvSetCommands is the root step of nvSet: a firmware write, which runs to its end once
// started (an interrupt waits for it).
func nvSetCommands(bdf string, params []string) host.Commands {
	return host.Commands{Run: []shell.Runnable{nvSet(bdf, params)}, Sudo: true, Finish: true}
}

// nvWant turns the settings into NV parameters for port: the enables become
// one ROCE_CC_PRIO_MASK, a bit per priority (bit n enables DCQCN on priority
// n, NVIDIA's "DCQCN CC Parameters", DOCA documentation 3.4.0), that keeps
// the bits of curMask and adds every enabled priority's; the values map one
// to one.
func nvWant(want []dcqcnSetting, port int, curMask int64) []nvSetting {
	mask := curMask
	for _, s := range want {
		if s.prio >= 0 {
			mask |= 1 << s.prio
		}
	}
	out := []nvSetting{{name: nvPrioMask(port), value: mask}}
	for _, s := range want {
		if s.prio < 0 {
			out = append(out, nvSetting{name: s.nvName(port), value: s.value})
		}
	}
	return out
}

// enabledBits names the priorities of the enable settings as a mask's bits:
// "bit 3", or "bits 3, 4".
func enabledBits(want []dcqcnSetting) string {
	var prios []int
	for _, s := range want {
		if s.prio >= 0 && !slices.Contains(prios, s.prio) {
			prios = append(prios, s.prio)
		}
	}
	return counted("bit", "bits", prios)
}

// nvSetting is one NV configuration parameter and its value.
type nvSetting struct {
	name  string
	value int64
}

func (p nvSetting) String() string { return p.name + "=" + strconv.FormatInt(p.value, 10) }

// planNVConfig compares the next-boot NV configuration of n's PCI function
// with want and stores what differs with mlxconfig; the values take effect
// at the next reboot or firmware reset.
func planNVConfig(n host.Netdev, nv map[string]map[string]int64, want []dcqcnSetting) ([]host.Change, error) {
	if !pciAddrRE.MatchString(n.PCIAddr) {
		return nil, fmt.Errorf("netdev %s: PCI address %q is not of the form 0000:17:00.0", n.Name, n.PCIAddr)
	}
	port := nvPort(n.PCIAddr)
	note := host.Unchanged(fmt.Sprintf("%s: no OFED ecn/ tree and debugfs is locked down, so DCQCN goes to the NV "+
		"configuration, which the NIC applies at the next reboot or mlxfwreset", n.Name))
	if nv == nil {
		var params []string
		for _, p := range nvWant(want, port, 0)[1:] {
			params = append(params, p.String())
		}
		return nil, &unreadFactError{
			fact:   "mlxconfig NV configuration",
			object: "netdev " + n.Name + " (" + n.PCIAddr + ")",
			fix: "set it once by hand and reboot: " + nvSet(n.PCIAddr, params).String() + " (and " + nvPrioMask(port) +
				" with " + enabledBits(want) + " set; the default 255 has it); or boot without kernel lockdown " +
				"(Secure Boot) to use debugfs, or install OFED for the ecn/ sysfs tree",
		}
	}
	cur, ok := nv[n.PCIAddr]
	if !ok {
		return nil, fmt.Errorf("netdev %s: mlxconfig could not query %s: install mstflint or MFT and check that the device is not a VF",
			n.Name, n.PCIAddr)
	}
	mask, ok := cur[nvPrioMask(port)]
	if !ok {
		return nil, fmt.Errorf("netdev %s: the NIC's NV configuration has no %s: the firmware does not support DCQCN "+
			"settings in NV config; update the firmware", n.Name, nvPrioMask(port))
	}
	params := nvWant(want, port, mask)
	// The differences are listed one per parameter (without a command of
	// their own) and stored by one mlxconfig command: its arguments are
	// the "after" entries, NAME=value.
	var d knobDiff
	for _, p := range params {
		v, ok := cur[p.name]
		if !ok {
			return nil, fmt.Errorf("netdev %s: the NIC's NV configuration has no %s: update the firmware or leave the parameter at its default",
				n.Name, p.name)
		}
		d.add(p.name, v, p.value, nil)
	}
	if d.empty() {
		return []host.Change{note, host.Unchanged(fmt.Sprintf("%s has its DCQCN values in NV config (%s, %d checked)", n.Name, n.PCIAddr, len(params)))}, nil
	}
	c := d.change(fmt.Sprintf("store DCQCN of %s in NV config (mlxconfig %s)", n.Name, n.PCIAddr), len(params), nvAfterReboot, nil)
	c.Apply = nvSetCommands(n.PCIAddr, d.after)
	return []host.Change{note, c}, nil
}
