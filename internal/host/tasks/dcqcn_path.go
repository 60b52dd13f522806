package tasks

import (
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
)

// dcqcnPath is the interface through which a netdev takes DCQCN settings.
type dcqcnPath int

const (
	// pathSysfs is OFED's /sys/class/net/<if>/ecn tree (runtime).
	pathSysfs dcqcnPath = iota
	// pathDebugfs is upstream /sys/kernel/debug/mlx5/<bdf>/cc_params
	// (runtime, no per-priority enable).
	pathDebugfs
	// pathNVConfig is mlxconfig's NV configuration (after reboot).
	pathNVConfig
)

func (p dcqcnPath) String() string {
	switch p {
	case pathSysfs:
		return "OFED sysfs"
	case pathDebugfs:
		return "debugfs cc_params"
	}
	return "NV config (mlxconfig)"
}

// dcqcnTarget is one netdev and the path it takes DCQCN through.
type dcqcnTarget struct {
	netdev host.Netdev
	path   dcqcnPath
}

// dcqcnTargets are the netdevs of a DCQCN task on one host, with the notes
// of the selection.
type dcqcnTargets struct {
	list  []dcqcnTarget
	notes []host.Change
}

// targets selects the netdevs and picks the path of each.
func (t DCQCN) targets(f host.Facts) (dcqcnTargets, error) {
	nds, notes, err := selectRoCENetdevs(f, t.Netdevs, vfDCQCN)
	if err != nil {
		return dcqcnTargets{}, err
	}
	if !f.Has(host.FactECN) {
		return dcqcnTargets{}, fmt.Errorf("cannot read the OFED ecn/ sysfs tree: %s", rdmaFactWhy(f, host.FactECN))
	}
	out := dcqcnTargets{notes: notes}
	for _, n := range nds {
		p, err := pathFor(f, n)
		if err != nil {
			return dcqcnTargets{}, err
		}
		out.list = append(out.list, dcqcnTarget{netdev: n, path: p})
	}
	return out, nil
}

// pathFor picks how netdev n takes DCQCN: OFED sysfs when its ecn/ tree was
// read, else debugfs unless the kernel is locked down, else NV config.
func pathFor(f host.Facts, n host.Netdev) (dcqcnPath, error) {
	if _, ok := f.ECN[n.Name]; ok {
		return pathSysfs, nil
	}
	if !f.Has(host.FactLockdown) {
		return 0, fmt.Errorf("netdev %s has no OFED ecn/ tree and the kernel lockdown mode is unknown (%s): "+
			"cannot tell whether debugfs cc_params are writable", n.Name, rdmaFactWhy(f, host.FactLockdown))
	}
	if !f.Lockdown.BlocksDebugfsWrites() {
		return pathDebugfs, nil
	}
	return pathNVConfig, nil
}
