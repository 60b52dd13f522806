package host

import "strconv"

// FactID names one kind of host state that [Gather] can read: a fact. Its
// values, once read, are fields of [Facts].
type FactID uint8

// The facts Gather can read. Each is one command of the gather script (or one
// loop over the ConnectX netdevs or PCI functions).
const (
	// FactOFED is the RDMA stack: ofed_info -s (absent tool = inbox).
	FactOFED FactID = iota
	// FactKernel is the kernel release: uname -r.
	FactKernel
	// FactLockdown is the kernel lockdown mode.
	FactLockdown
	// FactIBDevices are the RDMA devices and ports: ibv_devinfo.
	FactIBDevices
	// FactIBDev2Netdev is OFED's RDMA-port-to-netdev map: ibdev2netdev.
	FactIBDev2Netdev
	// FactNetdevs are the ConnectX (mlx5) netdevs read from sysfs: PCI
	// address, VF or PF, RDMA device, link state, MTU.
	FactNetdevs
	// FactGIDs is the GID table of every RDMA port, from sysfs.
	FactGIDs
	// FactTopology is the GPU/NIC matrix: nvidia-smi topo -m.
	FactTopology
	// FactGPUMemory is framebuffer and BAR1 per GPU: nvidia-smi -q -d MEMORY.
	FactGPUMemory
	// FactModules are the loaded kernel modules: lsmod.
	FactModules
	// FactPeerMem is nvidia-peermem's registration with OFED.
	FactPeerMem
	// FactNVIDIA is the loaded NVIDIA driver: /proc/driver/nvidia/version.
	FactNVIDIA
	// FactECN is the OFED DCQCN sysfs tree (ecn/) of every netdev that has one.
	FactECN
	// FactQoS is mlnx_qos of every ConnectX PF netdev (VFs cannot set QoS).
	FactQoS
	// FactPackages are the versions of the OFED packages ([OFEDPackages]):
	// dpkg-query.
	FactPackages
	// FactCCParams is the upstream debugfs DCQCN state
	// (/sys/kernel/debug/mlx5/<bdf>/cc_params) of every mlx5 PCI function
	// that has one. Only root can read it: gather with Engine.Sudo or as
	// root. It is absent, with the reason, when the gather is not root,
	// debugfs is not mounted or kernel lockdown refuses the files.
	FactCCParams
	// FactTrafficClass is OFED's port-global RoCE traffic class
	// (/sys/class/infiniband/<dev>/tc/1/traffic_class) of every RDMA device
	// that has one; the inbox stack has none.
	FactTrafficClass
	// FactCMARoCETos is the default ToS of RDMA-CM connections on port 1 of
	// every RDMA device: cma_roce_tos -d <dev> (mlnx-tools, OFED only; root).
	FactCMARoCETos
	// FactNVConfig is the NV configuration of every ConnectX PF: mlxconfig
	// -d <bdf> -e q (MFT or mstflint; root), with the default, current and
	// next-boot values.
	FactNVConfig
	// FactNCCL is the NCCL library installed on the host: the libnccl2
	// (dpkg) or libnccl (rpm) package, else the libnccl.so.2 the linker
	// cache lists.
	FactNCCL
	// FactOS is the distribution: /etc/os-release (ID, ID_LIKE,
	// VERSION_ID), which decides the package family.
	FactOS
	// FactRPMPackages are the versions of the OFED packages of a RHEL-family
	// host ([OFEDRPMPackages]): rpm -qa.
	FactRPMPackages
	// FactDnfLocks are dnf's version locks: dnf versionlock list (the
	// versionlock plugin on dnf 4, built into dnf 5).
	FactDnfLocks

	numFactIDs
)

var factNames = [numFactIDs]string{
	FactOFED:         "ofed_info",
	FactKernel:       "kernel",
	FactLockdown:     "lockdown",
	FactIBDevices:    "ibv_devinfo",
	FactIBDev2Netdev: "ibdev2netdev",
	FactNetdevs:      "netdevs",
	FactGIDs:         "gid_table",
	FactTopology:     "nvidia-smi topo",
	FactGPUMemory:    "nvidia-smi memory",
	FactModules:      "lsmod",
	FactPeerMem:      "memory_peers",
	FactNVIDIA:       "nvidia driver",
	FactECN:          "ecn",
	FactQoS:          "mlnx_qos",
	FactPackages:     "dpkg-query",
	FactCCParams:     "cc_params",
	FactTrafficClass: "traffic_class",
	FactCMARoCETos:   "cma_roce_tos",
	FactNVConfig:     "mlxconfig",
	FactNCCL:         "nccl",
	FactOS:           "os-release",
	FactRPMPackages:  "rpm",
	FactDnfLocks:     "dnf versionlock",
}

// String returns the fact's name as used in errors and in [Facts.Absent].
func (f FactID) String() string {
	if f < numFactIDs {
		return factNames[f]
	}
	return "fact(" + strconv.Itoa(int(f)) + ")"
}
