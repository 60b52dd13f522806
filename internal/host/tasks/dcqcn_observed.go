package tasks

import (
	"errors"
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/host"
)

// Observed returns t with Params, CNPDSCP and CNPPriority replaced by what
// the host holds, read through the path each netdev takes (OFED sysfs,
// debugfs cc_params, or the next-boot NV configuration) from the first
// netdev t selects. Priority, Lossless and Netdevs stay as given: the
// firmware turns DCQCN on for every priority by default, so the enable bits
// cannot tell which priorities were configured (the caller takes the
// lossless ones from the host's PFC, HostQoS.Observed). Netdevs that hold other values than the
// first show up when t's result is planned against f.
//
// f must hold t.Needs(). It is what an import reads a host back with.
func (t DCQCN) Observed(f host.Facts) (DCQCN, error) {
	want, err := t.settings()
	if err != nil {
		return DCQCN{}, err
	}
	targets, err := t.targets(f)
	if err != nil {
		return DCQCN{}, err
	}
	if len(targets.list) == 0 {
		return DCQCN{}, errors.New("no ConnectX physical function with an Ethernet RDMA port to read DCQCN from")
	}
	tg := targets.list[0]
	st := rdmaStateOf(f)
	var k fabric.DCQCNKnobs
	out := t
	for _, s := range want {
		if s.prio >= 0 {
			continue
		}
		v, err := observedValue(st, tg, s)
		if err != nil {
			return DCQCN{}, err
		}
		switch {
		case s.name == "cnp_dscp":
			out.CNPDSCP = int(v)
		case s.name == "cnp_802p_prio":
			out.CNPPriority = int(v)
		case s.side == "rp":
			k.RP = append(k.RP, fabric.Knob{Name: s.name, Value: v})
		default:
			k.NP = append(k.NP, fabric.Knob{Name: s.name, Value: v})
		}
	}
	p, err := fabric.DCQCNFromKnobs(k)
	if err != nil {
		return DCQCN{}, fmt.Errorf("netdev %s (%s): %w", tg.netdev.Name, tg.path, err)
	}
	out.Params = p
	return out, nil
}

// observedValue is the current value of s on tg's path.
func observedValue(st rdmaState, tg dcqcnTarget, s dcqcnSetting) (int64, error) {
	n := tg.netdev
	if tg.path != pathSysfs && !pciAddrRE.MatchString(n.PCIAddr) {
		return 0, fmt.Errorf("netdev %s: PCI address %q is not of the form 0000:17:00.0", n.Name, n.PCIAddr)
	}
	switch tg.path {
	case pathSysfs:
		if v, ok := sysfsValue(st.f.ECN[n.Name], s); ok {
			return v, nil
		}
		return 0, fmt.Errorf("netdev %s: %s/%s is missing: this OFED version or firmware does not expose it",
			n.Name, ecnDir(n.Name), s.sysfsFile())
	case pathDebugfs:
		file, _ := s.debugfsFile()
		if v, ok := st.cc[n.PCIAddr][file]; ok {
			return v, nil
		}
		return 0, fmt.Errorf("netdev %s: %s/%s was not read: it is missing, or only root can read it",
			n.Name, ccDir(n.PCIAddr), file)
	}
	name := s.nvName(nvPort(n.PCIAddr))
	if v, ok := st.nv[n.PCIAddr][name]; ok {
		return v, nil
	}
	return 0, fmt.Errorf("netdev %s: the NIC's NV configuration (%s) has no %s: mlxconfig could not query it, or the firmware lacks it",
		n.Name, n.PCIAddr, name)
}
