package hostprofile

import (
	"fmt"
	"net/netip"
	"regexp"
	"slices"
)

// The RDMA stacks a profile can start with.
const (
	StackDOCA  = "doca"  // DOCA-OFED; ofed_info -s prints "OFED-internal-<ver>:"
	StackMLNX  = "mlnx"  // MLNX_OFED; ofed_info -s prints "MLNX_OFED_LINUX-<ver>:"
	StackInbox = "inbox" // the distribution's rdma-core; no ofed_info, no ecn/ sysfs
)

// The kernel lockdown modes of /sys/kernel/security/lockdown.
const (
	LockdownNone            = "none"
	LockdownIntegrity       = "integrity"
	LockdownConfidentiality = "confidentiality"
)

// The NIC models a profile can have.
const (
	ConnectX7 = "ConnectX-7" // PCI device 0x1021, vendor_part_id 4129
	ConnectX8 = "ConnectX-8" // PCI device 0x1023, vendor_part_id 4131
)

// Profile describes the hardware and software of one twin host: what its
// fake sysfs shows, what its stand-in tools print and which faults it has.
// Profiles are values; [Lookup] returns the named ones and callers may
// change fields of a copy before rendering it.
type Profile struct {
	// Name identifies the profile, e.g. "cx7".
	Name string
	// Description says in a sentence what the profile is for.
	Description string
	// NICModel is ConnectX7 or ConnectX8.
	NICModel string
	// Ports is the number of single-port physical functions (RDMA devices
	// mlx5_0.., netdevs ens1f0np0..).
	Ports int
	// Stack is StackDOCA, StackMLNX or StackInbox: what is installed when the
	// host first boots.
	Stack string
	// OFEDVersion is the installed OFED version, e.g. "25.10-1.7.1" (doca)
	// or "24.10-3.2.5.0" (mlnx); empty for inbox. It must be one of the
	// versions of the twin apt repository ([Repos]).
	OFEDVersion string
	// GPUs is the number of GPUs; GPU i shares a PCIe switch (PIX) with NIC
	// i*Ports/GPUs.
	GPUs int
	// GPUModel is the product name nvidia-smi prints.
	GPUModel string
	// GPUMemMiB is the framebuffer size per GPU in MiB.
	GPUMemMiB int
	// BAR1MiB is the BAR1 aperture per GPU in MiB.
	BAR1MiB int
	// DriverVersion and CUDAVersion are what nvidia-smi and
	// /proc/driver/nvidia/version report.
	DriverVersion, CUDAVersion string
	// DownPorts lists port indexes (0-based) whose RDMA state is PORT_DOWN
	// and whose netdev has no carrier.
	DownPorts []int
	// RoCEv2IPv4GIDIndex is the GID index of the RoCE v2 IPv4-mapped entry:
	// 3 normally (0/1 link-local v1/v2, 2/3 IPv4 v1/v2), 5 when an IPv6
	// global address pair sits at 2/3.
	RoCEv2IPv4GIDIndex int
	// Lockdown is the kernel lockdown mode; anything but LockdownNone makes
	// the debugfs cc_params files unopenable.
	Lockdown string
	// PeermemWrongOrder reports an NVIDIA driver built before OFED:
	// "modprobe nvidia-peermem" fails with "Invalid argument" until the
	// driver is rebuilt ("dkms autoinstall").
	PeermemWrongOrder bool
	// OpenKernelModules reports the open GPU kernel modules, which DMA-BUF
	// needs; /proc/driver/nvidia/version says "Open Kernel Module".
	OpenKernelModules bool
	// VirtualFunctions reports that the netdevs are SR-IOV virtual
	// functions: the ecn/ files are 0444, device/physfn exists, there is no
	// debugfs cc_params directory and mlnx_qos cannot set QoS.
	VirtualFunctions bool
	// MTU is the netdevs' MTU at boot.
	MTU int
	// NCCLVersion is the version of the installed libnccl2 package in the
	// CUDA repositories' form ("2.21.5-1+cuda12.4"); empty for a host
	// without NCCL.
	NCCLVersion string
	// Family is the distribution's package family: FamilyDebian (the
	// machine's Debian with apt and dpkg; the default when empty) or
	// FamilyRHEL (Rocky Linux 9.6 with dnf and rpm).
	Family string
}

// RHEL reports whether the profile is a Rocky Linux host.
func (p Profile) RHEL() bool { return p.Family == FamilyRHEL }

// ncclPackageVersion is a libnccl2 version of NVIDIA's CUDA repositories.
var ncclPackageVersion = regexp.MustCompile(`^\d{1,3}\.\d{1,3}\.\d{1,3}-\d{1,3}\+cuda\d{1,3}\.\d{1,3}$`)

// Validate reports the first field that is out of range or inconsistent.
func (p Profile) Validate() error {
	if _, ok := nicModels[p.NICModel]; !ok {
		return fmt.Errorf("profile %q: unknown NIC model %q", p.Name, p.NICModel)
	}
	if p.Ports < 1 || p.Ports > maxPorts {
		return fmt.Errorf("profile %q: ports %d out of range 1..%d", p.Name, p.Ports, maxPorts)
	}
	if p.GPUs < 0 || p.GPUs > maxGPUs {
		return fmt.Errorf("profile %q: GPUs %d out of range 0..%d", p.Name, p.GPUs, maxGPUs)
	}
	if p.Family != "" && p.Family != FamilyDebian && p.Family != FamilyRHEL {
		return fmt.Errorf("profile %q: unknown package family %q", p.Name, p.Family)
	}
	if err := p.validateStack(); err != nil {
		return err
	}
	if p.NCCLVersion != "" && !ncclPackageVersion.MatchString(p.NCCLVersion) {
		return fmt.Errorf("profile %q: NCCL version %q, want the CUDA repositories' form such as 2.21.5-1+cuda12.4", p.Name, p.NCCLVersion)
	}
	for _, d := range p.DownPorts {
		if d < 0 || d >= p.Ports {
			return fmt.Errorf("profile %q: down port %d out of range 0..%d", p.Name, d, p.Ports-1)
		}
	}
	if p.RoCEv2IPv4GIDIndex != 3 && p.RoCEv2IPv4GIDIndex != 5 {
		return fmt.Errorf("profile %q: RoCE v2 IPv4 GID index %d, want 3 or 5", p.Name, p.RoCEv2IPv4GIDIndex)
	}
	switch p.Lockdown {
	case LockdownNone, LockdownIntegrity, LockdownConfidentiality:
	default:
		return fmt.Errorf("profile %q: unknown lockdown mode %q", p.Name, p.Lockdown)
	}
	if p.GPUs > 0 && (p.GPUModel == "" || p.GPUMemMiB <= 0 || p.BAR1MiB <= 0 || p.DriverVersion == "") {
		return fmt.Errorf("profile %q: GPUs need a model, memory and BAR1 sizes and a driver version", p.Name)
	}
	if p.MTU < 1280 || p.MTU > 9216 {
		return fmt.Errorf("profile %q: MTU %d out of range 1280..9216", p.Name, p.MTU)
	}
	return nil
}

func (p Profile) validateStack() error {
	switch p.Stack {
	case StackInbox:
		if p.OFEDVersion != "" {
			return fmt.Errorf("profile %q: inbox stack with OFED version %q", p.Name, p.OFEDVersion)
		}
	case StackDOCA, StackMLNX:
		if !slices.Contains(repoVersions[p.Stack], p.OFEDVersion) {
			return fmt.Errorf("profile %q: %s version %q is not in the twin repository (have %v)",
				p.Name, p.Stack, p.OFEDVersion, repoVersions[p.Stack])
		}
	default:
		return fmt.Errorf("profile %q: unknown stack %q", p.Name, p.Stack)
	}
	return nil
}

// OFED reports whether the profile starts with an OFED stack (DOCA or MLNX).
func (p Profile) OFED() bool { return p.Stack == StackDOCA || p.Stack == StackMLNX }

// PortDown reports whether port i is down.
func (p Profile) PortDown(i int) bool { return slices.Contains(p.DownPorts, i) }

// DMABUF reports whether GPU memory can be registered through DMA-BUF: open
// GPU kernel modules (the twin's kernel is the machine's, assumed >= 5.12).
func (p Profile) DMABUF() bool { return p.OpenKernelModules }

// RDMADevices returns the RDMA device names the host shows, "mlx5_0"...
func (p Profile) RDMADevices() []string {
	hw := newHardware(p, HostID{})
	out := make([]string, len(hw.ports))
	for i, pt := range hw.ports {
		out[i] = pt.rdma
	}
	return out
}

// Netdevs returns the netdev of each RDMA device, in the same order:
// "ens1f0np0"... ("ens1f0v0"... with VirtualFunctions).
func (p Profile) Netdevs() []string {
	hw := newHardware(p, HostID{})
	out := make([]string, len(hw.ports))
	for i, pt := range hw.ports {
		out[i] = pt.netdev
	}
	return out
}

// HostID identifies one twin host. Index makes its addresses unique: MACs
// b8:3f:d2:a0:<index>:<port>, IPv4 10.<index>.<port>.1.
type HostID struct {
	// Name is the host name, e.g. "gpu-node-0".
	Name string
	// Index is 0..255.
	Index int
}

// IPv4 returns the address of port i (0-based) of the host, the one its
// RoCE v2 IPv4 GID carries: 10.<index>.<i>.1.
func (id HostID) IPv4(i int) netip.Addr {
	return netip.AddrFrom4([4]byte{10, byte(id.Index), byte(i), 1})
}

// Validate reports an index out of range or an empty name.
func (id HostID) Validate() error {
	if id.Name == "" {
		return fmt.Errorf("host id: empty name")
	}
	if id.Index < 0 || id.Index > 255 {
		return fmt.Errorf("host %q: index %d out of range 0..255", id.Name, id.Index)
	}
	return nil
}
