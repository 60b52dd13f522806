package tasks

import (
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/host"
)

// DCQCN sets the mlx5 DCQCN congestion control of ConnectX physical
// functions: it turns the notification point (CNP generation, roce_np) and
// the reaction point (rate limiting on CNPs, roce_rp) on for Priority and
// every priority of Lossless, and sets every RP/NP parameter of Params plus
// the CNP DSCP and 802.1p priority.
//
// Only those priorities are switched on; the enable bits of the others are
// left as they are (firmware turns all eight on by default, and turning ECN
// reaction off elsewhere is not this task's business). NVIDIA's "DCQCN CC
// Parameters" (DOCA documentation, networking-docs.nvidia.com, 3.4.0) names
// the three views of one per-priority switch: OFED's enable/<prio> files,
// WinOF's DcQcnEnablePrio0..7 and the NV configuration's ROCE_CC_PRIO_MASK.
//
// It takes the first interface the host offers, per netdev:
//   - OFED sysfs, /sys/class/net/<if>/ecn/roce_{np,rp}/..., when the ecn/
//     tree exists (MLNX_OFED or DOCA-OFED);
//   - else upstream debugfs, /sys/kernel/debug/mlx5/<bdf>/cc_params, when the
//     kernel is not locked down; it has no per-priority enable, so the
//     firmware's ROCE_CC_PRIO_MASK (default: every priority) decides where
//     DCQCN acts;
//   - else the persistent NV configuration (mlxconfig), which takes effect
//     only after a reboot or mlxfwreset: see RebootRequired.
//
// Only values that differ are written, all netdevs of a host in one remote
// script. Runtime values (sysfs, debugfs) are lost at reboot and driver
// reload: add a Persistence task to re-apply them.
type DCQCN struct {
	// Netdevs are the PF netdevs to configure; empty means every ConnectX
	// physical function whose RDMA port has an Ethernet link layer.
	// Naming a VF is an error (its ecn/ files are read-only).
	Netdevs []string
	// Priority is the 802.1p priority of RoCE data, 0..7 (conventionally 3).
	Priority int
	// Lossless are the further lossless priorities (a storage class on 4,
	// say) whose traffic DCQCN must throttle too: NP and RP are switched on
	// for each of them as for Priority. Empty means Priority alone; listing
	// Priority again changes nothing.
	Lossless []int
	// Params are the DCQCN parameters in human units; start from
	// fabric.DefaultDCQCN().
	Params fabric.DCQCN
	// CNPDSCP is the DSCP of the CNPs this host sends, 0..63 (firmware
	// default 48).
	CNPDSCP int
	// CNPPriority is the 802.1p priority of those CNPs, 0..7 (firmware
	// default 6); it must differ from Priority and from every Lossless
	// priority.
	CNPPriority int
}

var _ host.Task = DCQCN{}

// Name implements host.Task: "dcqcn", followed by the netdevs when named.
func (t DCQCN) Name() string {
	if len(t.Netdevs) == 0 {
		return "dcqcn"
	}
	return "dcqcn " + strings.Join(t.Netdevs, ",")
}

// Needs implements host.Task: the ConnectX netdevs, the RDMA devices (link
// layers), the OFED ecn/ tree, the kernel lockdown mode, and the debugfs
// cc_params and NV configuration of the other paths.
func (t DCQCN) Needs() host.Want {
	return roceSelectionNeeds().Union(host.WantFacts(host.FactECN, host.FactLockdown)).Union(dcqcnStateNeeds())
}

// vfDCQCN is why a VF netdev cannot take DCQCN settings.
const vfDCQCN = "its ecn/ files are read-only (0444) and firmware takes DCQCN from the physical function"

// Plan implements host.Task: per netdev a change that writes the values that
// differ, or a note that it already has them.
func (t DCQCN) Plan(f host.Facts) ([]host.Change, error) {
	return t.plan(rdmaStateOf(f))
}

func (t DCQCN) plan(st rdmaState) ([]host.Change, error) {
	want, err := t.settings()
	if err != nil {
		return nil, err
	}
	targets, err := t.targets(st.f)
	if err != nil {
		return nil, err
	}
	out := targets.notes
	for _, tg := range targets.list {
		var cs []host.Change
		switch tg.path {
		case pathSysfs:
			cs, err = planSysfs(tg.netdev, st.f.ECN[tg.netdev.Name], want)
		case pathDebugfs:
			cs, err = planDebugfs(tg.netdev, st.cc, want)
		default:
			cs, err = planNVConfig(tg.netdev, st.nv, want)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	return out, nil
}

// RebootRequired reports whether some netdev of the host can take DCQCN
// only through the NV configuration (no OFED ecn/ tree, debugfs locked down),
// so the values this task sets take effect only after a reboot or
// mlxfwreset. It is false when f does not allow a plan.
func (t DCQCN) RebootRequired(f host.Facts) bool {
	targets, err := t.targets(f)
	if err != nil {
		return false
	}
	for _, tg := range targets.list {
		if tg.path == pathNVConfig {
			return true
		}
	}
	return false
}
