package tasks

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// debugfsMLX5 is where upstream mlx5 keeps per-function debugfs directories.
const debugfsMLX5 = "/sys/kernel/debug/mlx5"

// ccDir is the debugfs congestion-control directory of a PCI function.
func ccDir(bdf string) string { return debugfsMLX5 + "/" + bdf + "/cc_params" }

// pciAddrRE is a full PCI address as sysfs prints it, e.g. "0000:17:00.0".
var pciAddrRE = regexp.MustCompile(`^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$`)

// cnpPrioMode is the debugfs file that says where CNPs take their 802.1p
// priority from; 0 means np_cnp_prio, which writing np_cnp_prio also sets.
const cnpPrioMode = "np_cnp_prio_mode"

// planDebugfs compares the cc_params of n's PCI function with want and
// writes what differs. debugfs has no per-priority enable: a note says so.
func planDebugfs(n host.Netdev, cc map[string]facts.CCParams, want []dcqcnSetting) ([]host.Change, error) {
	if !pciAddrRE.MatchString(n.PCIAddr) {
		return nil, fmt.Errorf("netdev %s: PCI address %q is not of the form 0000:17:00.0", n.Name, n.PCIAddr)
	}
	if cc == nil {
		return nil, &unreadFactError{
			fact:   "debugfs cc_params",
			object: "netdev " + n.Name + " (" + ccDir(n.PCIAddr) + ")",
			fix: "install DOCA-OFED or MLNX_OFED so the netdev gets its ecn/ sysfs tree, " +
				"or let a Persistence task write the values at the next boot",
		}
	}
	cur, ok := cc[n.PCIAddr]
	if !ok {
		return nil, fmt.Errorf("netdev %s: %s is missing or unreadable: the driver creates it only when the firmware "+
			"allows congestion-control queries and changes, and only root can read it", n.Name, ccDir(n.PCIAddr))
	}
	var d knobDiff
	total := 0
	var prios []int
	for _, s := range want {
		file, ok := s.debugfsFile()
		if !ok {
			if !slices.Contains(prios, s.prio) {
				prios = append(prios, s.prio)
			}
			continue
		}
		total++
		v, ok := cur[file]
		if !ok {
			return nil, fmt.Errorf("netdev %s: %s/%s is missing: this kernel's mlx5 driver does not expose it; "+
				"upgrade the kernel or install OFED", n.Name, ccDir(n.PCIAddr), file)
		}
		cmd := echoInto(ccDir(n.PCIAddr)+"/"+file, s.value)
		if mode := cur[cnpPrioMode]; file == "np_cnp_prio" && mode != 0 {
			// CNPs ignore np_cnp_prio in this mode; writing it switches
			// the mode back to 0.
			d.addText(fmt.Sprintf("%s=%d (%s=%d)", file, v, cnpPrioMode, mode),
				fmt.Sprintf("%s=%d (%s=0)", file, s.value, cnpPrioMode), cmd)
			continue
		}
		d.add(file, v, s.value, cmd)
	}
	note := host.Unchanged(fmt.Sprintf("%s: debugfs has no per-priority enable; DCQCN acts on the priorities of the "+
		"firmware's ROCE_CC_PRIO_MASK (default all), %s included unless that mask was changed", n.Name, prioritiesText(prios)))
	if d.empty() {
		return []host.Change{note, host.Unchanged(fmt.Sprintf("%s has its DCQCN values (debugfs %s, %d checked)", n.Name, n.PCIAddr, total))}, nil
	}
	return []host.Change{note, d.change(fmt.Sprintf("set DCQCN of %s through debugfs %s", n.Name, n.PCIAddr), total, "", explainWrite(n.Name, pathDebugfs))}, nil
}
