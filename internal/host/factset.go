package host

import (
	"slices"
	"strconv"
	"strings"
)

// Fact is one kind of host state that [Gather] can read.
type Fact uint8

// The facts Gather can read. Each is one command of the gather script (or one
// loop over the ConnectX netdevs or PCI functions).
const (
	// FactOFED is the RDMA stack: ofed_info -s (absent tool = inbox).
	FactOFED Fact = iota
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

	numFacts
)

var factNames = [numFacts]string{
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
func (f Fact) String() string {
	if f < numFacts {
		return factNames[f]
	}
	return "fact(" + strconv.Itoa(int(f)) + ")"
}

// FactSet is the set of facts a task needs: kinds of [Fact] plus the files
// whose content, mode and owner it compares. The zero value is empty. A
// FactSet is a value; its methods return new sets.
type FactSet struct {
	bits  uint32
	files []string // sorted, unique
}

// NewFactSet returns the set of the given facts.
func NewFactSet(fs ...Fact) FactSet {
	var s FactSet
	for _, f := range fs {
		if f < numFacts {
			s.bits |= 1 << f
		}
	}
	return s
}

// AllFacts returns every fact kind (no files): what roce_host_facts reads.
func AllFacts() FactSet { return FactSet{bits: 1<<numFacts - 1} }

// Has reports whether s contains f.
func (s FactSet) Has(f Fact) bool { return f < numFacts && s.bits&(1<<f) != 0 }

// Facts returns the fact kinds of s in their declaration order.
func (s FactSet) Facts() []Fact {
	var out []Fact
	for f := range numFacts {
		if s.Has(f) {
			out = append(out, f)
		}
	}
	return out
}

// WithFiles returns s plus the files at paths (absolute).
func (s FactSet) WithFiles(paths ...string) FactSet {
	return s.Union(FactSet{files: sortedUnique(paths)})
}

// Files returns the files of s, sorted.
func (s FactSet) Files() []string { return slices.Clone(s.files) }

// Union returns the facts and files of s and o.
func (s FactSet) Union(o FactSet) FactSet {
	return FactSet{bits: s.bits | o.bits, files: sortedUnique(append(slices.Clone(s.files), o.files...))}
}

// Empty reports whether s asks for nothing.
func (s FactSet) Empty() bool { return s.bits == 0 && len(s.files) == 0 }

// String lists the facts and files of s, e.g. "lsmod,file /etc/nccl.conf".
func (s FactSet) String() string {
	var parts []string
	for _, f := range s.Facts() {
		parts = append(parts, f.String())
	}
	for _, p := range s.files {
		parts = append(parts, fileLabel(p))
	}
	return strings.Join(parts, ",")
}

// withDependencies adds the facts that reading s needs: the mlnx_qos loop
// skips VFs, which the netdev fact lists with the reason.
func (s FactSet) withDependencies() FactSet {
	if s.Has(FactQoS) {
		s.bits |= 1 << FactNetdevs
	}
	return s
}

func sortedUnique(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	out := slices.Clone(ss)
	slices.Sort(out)
	return slices.Compact(out)
}

// fileLabel names the fact of one file in errors and in [Facts.Absent].
func fileLabel(path string) string { return "file " + path }
