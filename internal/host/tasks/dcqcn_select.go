package tasks

import (
	"fmt"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// roceSelectionNeeds are the facts selectRoCENetdevs reads.
func roceSelectionNeeds() host.Want {
	return host.WantFacts(host.FactNetdevs, host.FactIBDevices)
}

// checkNetdevNames rejects interface names the kernel would not accept (they end up
// in sysfs paths and command lines) and names listed twice.
func checkNetdevNames(names []string) error {
	seen := map[string]bool{}
	for _, n := range names {
		if !facts.ValidIfaceName(n) {
			return fmt.Errorf("netdev %q is not a valid interface name (1 to 15 bytes, no '/', ':', whitespace or NUL, not \".\" or \"..\"): fix the name", n)
		}
		if seen[n] {
			return fmt.Errorf("netdev %s is listed twice: list each netdev once", n)
		}
		seen[n] = true
	}
	return nil
}

// selectRoCENetdevs returns the netdevs a task configures: the ones named, or,
// when names is empty, every ConnectX physical function whose RDMA port has
// an Ethernet link layer. A named VF is an error (vfWhy says why the task
// cannot configure one); VFs and non-Ethernet ports found by the automatic
// selection are left out with a note.
func selectRoCENetdevs(f host.Facts, names []string, vfWhy string) ([]host.Netdev, []host.Change, error) {
	if err := checkNetdevNames(names); err != nil {
		return nil, nil, err
	}
	if !f.Has(host.FactNetdevs) {
		return nil, nil, fmt.Errorf("cannot list the ConnectX netdevs: %s", rdmaFactWhy(f, host.FactNetdevs))
	}
	links := netdevLinkLayers(f)
	if len(names) > 0 {
		return namedRoCENetdevs(f, names, links, vfWhy)
	}
	if !f.Has(host.FactIBDevices) {
		return nil, nil, fmt.Errorf("cannot tell which ConnectX netdevs carry RoCE: ibv_devinfo: %s; "+
			"install ibverbs-utils (rdma-core) or name the netdevs", rdmaFactWhy(f, host.FactIBDevices))
	}
	var out []host.Netdev
	var skipped []string
	for _, n := range f.Netdevs {
		switch ll := links[n.Name]; {
		case n.IsVF:
			skipped = append(skipped, n.Name+" (virtual function)")
		case ll != "Ethernet":
			if ll == "" {
				ll = "unknown: no RDMA device"
			}
			skipped = append(skipped, n.Name+" (link layer "+ll+")")
		default:
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("found no ConnectX physical function with an Ethernet (RoCE) link layer%s: "+
			"check that mlx5_core and mlx5_ib are loaded and the ports are in Ethernet mode", skippedSuffix(skipped))
	}
	var notes []host.Change
	if len(skipped) > 0 {
		notes = append(notes, host.Unchanged("left out "+strings.Join(skipped, ", ")))
	}
	return out, notes, nil
}

// namedRoCENetdevs looks the named netdevs up in the facts.
func namedRoCENetdevs(f host.Facts, names []string, links map[string]string, vfWhy string) ([]host.Netdev, []host.Change, error) {
	out := make([]host.Netdev, 0, len(names))
	for _, name := range names {
		n, ok := f.Netdev(name)
		if !ok {
			return nil, nil, fmt.Errorf("netdev %s is not a ConnectX (mlx5) netdev of this host (it has: %s): fix the name",
				name, listNetdevNames(f))
		}
		if n.IsVF {
			return nil, nil, fmt.Errorf("netdev %s (%s) is an SR-IOV virtual function: %s; configure its physical function's netdev instead",
				name, n.PCIAddr, vfWhy)
		}
		if ll := links[name]; ll != "" && ll != "Ethernet" {
			return nil, nil, fmt.Errorf("netdev %s has link layer %s: RoCE settings need an Ethernet port; "+
				"set the port to Ethernet (mlxconfig LINK_TYPE_P1=ETH) or leave it out", name, ll)
		}
		out = append(out, n)
	}
	return out, nil, nil
}

// netdevLinkLayers maps each netdev to the link layer of its RDMA device's first
// port, where ibv_devinfo and the netdev fact tell it.
func netdevLinkLayers(f host.Facts) map[string]string {
	m := map[string]string{}
	for _, nic := range f.NICs() {
		if nic.Netdev != "" {
			m[nic.Netdev] = nic.LinkLayer
		}
	}
	return m
}

func listNetdevNames(f host.Facts) string {
	if len(f.Netdevs) == 0 {
		return "none"
	}
	s := make([]string, len(f.Netdevs))
	for i, n := range f.Netdevs {
		s[i] = n.Name
	}
	return strings.Join(s, ", ")
}

func skippedSuffix(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return " (left out: " + strings.Join(s, ", ") + ")"
}

// rdmaFactWhy says why a fact is missing: its reason in Absent, or that it
// was not gathered.
func rdmaFactWhy(f host.Facts, fc host.FactID) string {
	if why, ok := f.Absent[fc.String()]; ok {
		return why
	}
	return fc.String() + " was not gathered"
}
