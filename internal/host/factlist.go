package host

import (
	"strconv"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// One fact is one file's work: its FactID constant, its field of Facts and its row of
// factNames and factSteps (its name, and the probe that reads it), all below.

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

// Facts is what [Gather] read on one host. Only the facts of Gathered are
// filled in; a gathered fact whose command failed (a tool that is not
// installed, a driver that is not loaded) is left at its zero value (an
// empty map for QoS, CCParams, TrafficClass, CMARoCETos and NVConfig) and
// has its reason in Absent.
type Facts struct {
	// Host is the address of the host the facts were read on.
	Host string
	// Gathered is what was asked for.
	Gathered Want
	// Absent maps the name of a fact that could not be read ("ibdev2netdev",
	// "mlnx_qos ens1f0v0", "file /etc/x") to the reason.
	Absent map[string]string

	// OFED is the RDMA stack; inbox when ofed_info is not installed.
	OFED facts.OFEDInfo
	// Kernel is the running kernel.
	Kernel Kernel
	// Lockdown is the kernel lockdown mode.
	Lockdown facts.LockdownMode
	// IBDevices are the RDMA devices and their ports.
	IBDevices []facts.IBDevice
	// DevNetdevs is ibdev2netdev's map (OFED hosts only; see Netdevs).
	DevNetdevs []facts.DevNetdev
	// Netdevs are the ConnectX netdevs, from sysfs, sorted by name.
	Netdevs []Netdev
	// GIDs is the GID table of every RDMA port.
	GIDs []facts.GIDEntry
	// Topology is the GPU/NIC matrix.
	Topology facts.Topology
	// GPUMemory is framebuffer and BAR1 per GPU.
	GPUMemory []facts.GPUMemory
	// Modules are the loaded kernel modules by name.
	Modules map[string]facts.Module
	// PeerMem is nvidia-peermem's registration with OFED.
	PeerMem facts.PeerMem
	// NVIDIA is the loaded NVIDIA driver.
	NVIDIA facts.NVIDIADriver
	// ECN is the OFED DCQCN sysfs state by netdev.
	ECN map[string]facts.ECNState
	// QoS is mlnx_qos's state by netdev (PFs only).
	QoS map[string]facts.MlnxQoS
	// Packages are the installed OFED packages and their versions, as dpkg
	// reports them.
	Packages []facts.Package
	// OS is the distribution, from /etc/os-release.
	OS facts.OSRelease
	// RPMPackages are the installed OFED packages of a RHEL-family host, as
	// rpm reports them.
	RPMPackages []facts.Package
	// DnfLocks are dnf's version locks.
	DnfLocks []facts.Hold
	// CCParams is the debugfs congestion-control state by PCI address.
	CCParams map[string]facts.CCParams
	// TrafficClass is OFED's tc/1/traffic_class by RDMA device,
	// facts.NoTrafficClass where none is forced.
	TrafficClass map[string]int
	// CMARoCETos is the RDMA-CM default ToS of port 1 by RDMA device.
	CMARoCETos map[string]int
	// NVConfig is the mlxconfig NV configuration by PCI address (PFs only).
	NVConfig map[string]facts.NVConfig
	// NCCL is the NCCL library installed on the host.
	NCCL facts.NCCLInstall
	// Files are the asked-for files by path, present or not.
	Files map[string]FileInfo
}

// factNames name the facts in errors and in Facts.Absent.
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

// factSteps build the gather step of each fact; stepFor labels it with the fact's name.
var factSteps = [numFactIDs]func() (step, error){
	// ofed_info exists only with OFED: "not found" (127) means inbox, which
	// ParseOFEDInfo reads from empty output.
	FactOFED:         probed(facts.OFEDInfoProbe, func(f *Facts, v facts.OFEDInfo) { f.OFED = v }, 0, 127),
	FactKernel:       probed(facts.Probe[Kernel]{Command: kernelCommand, Parse: ParseKernelRelease}, func(f *Facts, v Kernel) { f.Kernel = v }),
	FactLockdown:     probed(facts.LockdownProbe, func(f *Facts, v facts.LockdownMode) { f.Lockdown = v }),
	FactIBDevices:    probed(facts.IBVDevinfoProbe, func(f *Facts, v []facts.IBDevice) { f.IBDevices = v }),
	FactIBDev2Netdev: probed(facts.IBDev2NetdevProbe, func(f *Facts, v []facts.DevNetdev) { f.DevNetdevs = v }),
	FactNetdevs:      always(netdevStep),
	FactGIDs:         probed(facts.GIDTableProbe, func(f *Facts, v []facts.GIDEntry) { f.GIDs = v }),
	FactTopology:     probed(facts.TopoProbe, func(f *Facts, v facts.Topology) { f.Topology = v }),
	FactGPUMemory:    probed(facts.GPUMemoryProbe, func(f *Facts, v []facts.GPUMemory) { f.GPUMemory = v }),
	FactModules:      probed(facts.LsmodProbe, func(f *Facts, v map[string]facts.Module) { f.Modules = v }),
	FactPeerMem:      probed(facts.PeerMemProbe, func(f *Facts, v facts.PeerMem) { f.PeerMem = v }),
	FactNVIDIA:       probed(facts.NVIDIAVersionProbe, func(f *Facts, v facts.NVIDIADriver) { f.NVIDIA = v }),
	FactECN:          built(func() (facts.Probe[map[string]facts.ECNState], error) { return facts.ECNTreeProbe() }, func(f *Facts, v map[string]facts.ECNState) { f.ECN = v }),
	FactQoS:          always(qosStep),
	// dpkg-query exits 1 when a pattern matches no package; the lines of the
	// others still come.
	FactPackages: built(func() (facts.Probe[[]facts.Package], error) { return facts.DpkgQueryProbe(OFEDPackages...) },
		func(f *Facts, v []facts.Package) { f.Packages = v }, 0, 1),
	FactCCParams:     ccParamsStep,
	FactTrafficClass: probed(facts.TrafficClassProbe, func(f *Facts, v map[string]int) { f.TrafficClass = v }),
	FactCMARoCETos:   probed(facts.CMARoCETosProbe, func(f *Facts, v map[string]int) { f.CMARoCETos = v }),
	FactNVConfig:     always(nvConfigStep),
	FactNCCL:         probed(facts.NCCLInstallProbe, func(f *Facts, v facts.NCCLInstall) { f.NCCL = v }),
	FactOS:           probed(facts.OSReleaseProbe, func(f *Facts, v facts.OSRelease) { f.OS = v }),
	FactRPMPackages: built(func() (facts.Probe[[]facts.Package], error) { return facts.RPMInstalledProbe(OFEDRPMPackages...) },
		func(f *Facts, v []facts.Package) { f.RPMPackages = v }),
	FactDnfLocks: probed(facts.DnfVersionlockProbe, func(f *Facts, v []facts.Hold) { f.DnfLocks = v }),
}

// String returns the fact's name as used in errors and in [Facts.Absent].
func (f FactID) String() string {
	if f < numFactIDs {
		return factNames[f]
	}
	return "fact(" + strconv.Itoa(int(f)) + ")"
}

// always is the step of a fact whose step cannot fail to build.
func always(s func() step) func() (step, error) {
	return func() (step, error) { return s(), nil }
}

// probed is the step of a fact read by probe p, whose value set stores; ok lists the exit
// statuses whose output is parsed (empty: 0 only).
func probed[T any](p facts.Probe[T], set func(*Facts, T), ok ...int) func() (step, error) {
	return built(func() (facts.Probe[T], error) { return p, nil }, set, ok...)
}

// built is probed for a probe that is built when the gather script is (its command is
// checked then).
func built[T any](probe func() (facts.Probe[T], error), set func(*Facts, T), ok ...int) func() (step, error) {
	return func() (step, error) {
		p, err := probe()
		if err != nil {
			return step{}, err
		}
		return step{
			cmd: isolated(p.Command),
			ok:  ok,
			parse: func(f *Facts, _, out string) error {
				v, err := p.Parse(out)
				if err != nil {
					return err
				}
				set(f, v)
				return nil
			},
		}, nil
	}
}
