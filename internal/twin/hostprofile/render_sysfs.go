package hostprofile

import (
	"fmt"
	"strconv"
	"strings"
)

// Paths of the fake sysfs, relative to the twin root.
const (
	sysNet       = "sys/class/net"
	sysIB        = "sys/class/infiniband"
	sysPCI       = "sys/bus/pci/devices"
	sysDebugMLX5 = "sys/kernel/debug/mlx5"
	sysLockdown  = "sys/kernel/security/lockdown"
	sysModule    = "sys/module"
	sysPeers     = "sys/kernel/mm/memory_peers"
)

// pciFromClass is the relative link from /sys/class/<class>/<name>/device to
// the PCI function directory: relative, so it resolves inside the twin and
// below TWIN_ROOT alike.
func pciFromClass(bdf string) string { return "../../../bus/pci/devices/" + bdf }

// renderSysfs writes the static part of the fake /sys: what the hardware
// is, not what runtime state it is in.
func renderSysfs(t *tree, p Profile, id HostID, hw hardware) {
	for _, pt := range hw.ports {
		renderPCI(t, hw, pt)
		renderNetdev(t, pt)
		renderIBDevice(t, p, id, hw, pt)
	}
	for _, g := range hw.gpus {
		d := sysPCI + "/" + g.bdf
		t.file(d+"/vendor", "0x10de\n", 0o444)
		t.file(d+"/device", gpuPCIDevice(p.GPUModel)+"\n", 0o444)
		t.file(d+"/class", "0x030200\n", 0o444)
		t.file(d+"/numa_node", strconv.Itoa(g.numa)+"\n", 0o444)
		t.file(d+"/local_cpulist", cpuList(g.numa)+"\n", 0o444)
	}
	modes := []string{LockdownNone, LockdownIntegrity, LockdownConfidentiality}
	for i, m := range modes {
		if m == p.Lockdown {
			modes[i] = "[" + m + "]"
		}
	}
	t.file(sysLockdown, strings.Join(modes, " ")+"\n", 0o444)
	t.dir(sysDebugMLX5)
}

func gpuPCIDevice(model string) string {
	if strings.Contains(model, "B200") {
		return "0x2901"
	}
	return "0x2330" // H100 SXM5 80GB
}

// renderPCI writes the NIC's PCI function directory and, for a VF, its PF.
func renderPCI(t *tree, hw hardware, pt port) {
	m := hw.model
	fn := func(bdf, device string) string {
		d := sysPCI + "/" + bdf
		t.file(d+"/vendor", "0x15b3\n", 0o444)
		t.file(d+"/device", device+"\n", 0o444)
		t.file(d+"/subsystem_vendor", "0x15b3\n", 0o444)
		t.file(d+"/class", "0x020000\n", 0o444)
		t.file(d+"/numa_node", strconv.Itoa(pt.numa)+"\n", 0o444)
		t.file(d+"/local_cpulist", cpuList(pt.numa)+"\n", 0o444)
		t.file(d+"/current_link_speed", "32.0 GT/s PCIe\n", 0o444)
		t.file(d+"/current_link_width", "16\n", 0o444)
		t.file(d+"/max_link_speed", "32.0 GT/s PCIe\n", 0o444)
		t.file(d+"/max_link_width", "16\n", 0o444)
		return d
	}
	if pt.vf {
		pf := fn(pt.pfBDF, m.pciDevice)
		t.file(pf+"/sriov_totalvfs", "16\n", 0o444)
		t.file(pf+"/sriov_numvfs", "1\n", 0o644)
		t.symlink(pf+"/virtfn0", "../"+pt.bdf)
	}
	device := m.pciDevice
	if pt.vf {
		device = m.vfPCIDevice
	}
	d := fn(pt.bdf, device)
	if pt.vf {
		t.symlink(d+"/physfn", "../"+pt.pfBDF)
	}
	t.dir(d + "/net/" + pt.netdev)
	t.dir(d + "/infiniband/" + pt.rdma)
}

// renderNetdev writes the static netdev attributes.
func renderNetdev(t *tree, pt port) {
	d := sysNet + "/" + pt.netdev
	t.file(d+"/address", pt.macString()+"\n", 0o444)
	t.file(d+"/broadcast", "ff:ff:ff:ff:ff:ff\n", 0o444)
	t.file(d+"/addr_len", "6\n", 0o444)
	t.file(d+"/type", "1\n", 0o444)
	t.file(d+"/ifindex", strconv.Itoa(pt.index+2)+"\n", 0o444)
	t.file(d+"/dev_id", "0x0\n", 0o444)
	t.file(d+"/tx_queue_len", "1000\n", 0o644)
	t.symlink(d+"/device", pciFromClass(pt.bdf))
}

// renderIBDevice writes the RDMA device: identity, port and GID table.
func renderIBDevice(t *tree, p Profile, id HostID, hw hardware, pt port) {
	m := hw.model
	d := sysIB + "/" + pt.rdma
	hcaType := fmt.Sprintf("MT%d", m.partID)
	if pt.vf {
		hcaType = fmt.Sprintf("MT%d", m.vfPartID)
	}
	t.file(d+"/node_guid", pt.nodeGUID()+"\n", 0o444)
	t.file(d+"/sys_image_guid", pt.nodeGUID()+"\n", 0o444)
	t.file(d+"/fw_ver", m.fwVersion+"\n", 0o444)
	t.file(d+"/hca_type", hcaType+"\n", 0o444)
	t.file(d+"/board_id", m.boardID+"\n", 0o444)
	t.file(d+"/hw_rev", "0x0\n", 0o444)
	t.file(d+"/node_type", "1: CA\n", 0o444)
	t.file(d+"/node_desc", id.Name+" "+pt.rdma+"\n", 0o644)
	t.symlink(d+"/device", pciFromClass(pt.bdf))
	pd := d + "/ports/1"
	state, phys := "4: ACTIVE", "5: LinkUp"
	if pt.down {
		state, phys = "1: DOWN", "2: Polling"
	}
	t.file(pd+"/state", state+"\n", 0o444)
	t.file(pd+"/phys_state", phys+"\n", 0o444)
	t.file(pd+"/link_layer", "Ethernet\n", 0o444)
	t.file(pd+"/rate", m.rate+"\n", 0o444)
	t.file(pd+"/lid", "0x0\n", 0o444)
	t.file(pd+"/sm_lid", "0x0\n", 0o444)
	t.file(pd+"/lid_mask_count", "0\n", 0o444)
	t.file(pd+"/sm_sl", "0\n", 0o444)
	t.file(pd+"/cap_mask", "0x04010000\n", 0o444)
	for i, g := range pt.gids(p) {
		n := strconv.Itoa(i)
		t.file(pd+"/gids/"+n, sysfsGID(g.gid)+"\n", 0o444)
		if g.typ == "" {
			t.unreadable(pd + "/gid_attrs/types/" + n)
			t.unreadable(pd + "/gid_attrs/ndevs/" + n)
			continue
		}
		t.file(pd+"/gid_attrs/types/"+n, g.typ+"\n", 0o444)
		t.file(pd+"/gid_attrs/ndevs/"+n, pt.netdev+"\n", 0o444)
	}
}
