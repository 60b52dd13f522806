package hostprofile

import "sort"

// DefaultProfile is the profile name used when none is given.
const DefaultProfile = "cx7"

// cx7 is the reference host: 8 × ConnectX-7 400G with DOCA-OFED and 8 ×
// H100 on the proprietary driver, so GPUDirect RDMA needs nvidia-peermem.
func cx7() Profile {
	return Profile{
		Name:               "cx7",
		Description:        "8 x ConnectX-7 400GbE, DOCA-OFED 25.10, 8 x H100, proprietary NVIDIA driver (GPUDirect via nvidia-peermem)",
		NICModel:           ConnectX7,
		Ports:              8,
		Stack:              StackDOCA,
		OFEDVersion:        "25.10-1.7.1",
		GPUs:               8,
		GPUModel:           "NVIDIA H100 80GB HBM3",
		GPUMemMiB:          81559,
		BAR1MiB:            131072,
		DriverVersion:      "550.54.15",
		CUDAVersion:        "12.4",
		NCCLVersion:        "2.21.5-1+cuda12.4",
		RoCEv2IPv4GIDIndex: 3,
		Lockdown:           LockdownNone,
		MTU:                9000,
	}
}

// variant returns cx7 renamed and changed by edit.
func variant(name, desc string, edit func(*Profile)) Profile {
	p := cx7()
	p.Name, p.Description = name, desc
	edit(&p)
	return p
}

// profiles builds the named profiles afresh, so a caller that changes a
// returned profile's slices changes only its copy.
func profiles() map[string]Profile {
	list := []Profile{
		cx7(),
		variant("cx8", "8 x ConnectX-8 800GbE, DOCA-OFED 25.10, 8 x B200 on the open GPU kernel modules (DMA-BUF capable)", func(p *Profile) {
			p.NICModel = ConnectX8
			// Blackwell needs the open kernel modules; the memory sizes
			// and driver version are plausible values, not a recorded host.
			p.GPUModel, p.GPUMemMiB, p.BAR1MiB = "NVIDIA B200", 183359, 262144
			p.DriverVersion, p.CUDAVersion = "570.124.06", "12.8"
			p.OpenKernelModules = true
		}),
		variant("gid-index-5", "cx7 with an IPv6 global address pair at GID 2/3, so the RoCE v2 IPv4 entry is at index 5", func(p *Profile) {
			p.RoCEv2IPv4GIDIndex = 5
		}),
		variant("nccl-2.19", "cx7 with NCCL 2.19.3 (before GID auto-selection) and its RoCE v2 IPv4 GID at index 5", func(p *Profile) {
			p.NCCLVersion = "2.19.3-1+cuda12.2"
			p.RoCEv2IPv4GIDIndex = 5
		}),
		variant("port-down", "cx7 with port 3 (mlx5_3) down: PORT_DOWN, no carrier", func(p *Profile) {
			p.DownPorts = []int{3}
		}),
		variant("inbox", "cx7 hardware on the distribution's inbox rdma-core: no ofed_info, no ecn/ sysfs, no mlnx-tools; DCQCN only via debugfs", func(p *Profile) {
			p.Stack, p.OFEDVersion = StackInbox, ""
		}),
		variant("mlnx", "cx7 with the standalone MLNX_OFED 24.10 LTS instead of DOCA-OFED", func(p *Profile) {
			p.Stack, p.OFEDVersion = StackMLNX, "24.10-3.2.5.0"
		}),
		variant("lockdown", "cx7 booted with Secure Boot: kernel lockdown integrity, debugfs cc_params cannot be opened", func(p *Profile) {
			p.Lockdown = LockdownIntegrity
		}),
		variant("peermem-wrong-order", "cx7 whose NVIDIA driver was built before OFED: modprobe nvidia-peermem fails with Invalid argument until the driver is rebuilt", func(p *Profile) {
			p.PeermemWrongOrder = true
		}),
		variant("dmabuf", "cx7 with the open GPU kernel modules: DMA-BUF capable, nvidia-peermem optional", func(p *Profile) {
			p.OpenKernelModules = true
		}),
		variant("rocky9", "cx7 on Rocky Linux 9.6: DOCA-OFED 25.10 from a dnf repository, rpm database, dnf versionlock plugin; no apt or dpkg", func(p *Profile) {
			p.Family = FamilyRHEL
		}),
		variant("rocky9-inbox", "rocky9 on Rocky's own rdma-core 57.0 (inbox): no ofed_info, no ecn/ sysfs", func(p *Profile) {
			p.Family = FamilyRHEL
			p.Stack, p.OFEDVersion = StackInbox, ""
		}),
		variant("rocky9-peermem-wrong-order", "rocky9 whose NVIDIA driver was built before OFED: modprobe nvidia-peermem fails until the driver is rebuilt", func(p *Profile) {
			p.Family = FamilyRHEL
			p.PeermemWrongOrder = true
		}),
		variant("vf", "cx7 seen through SR-IOV virtual functions: ecn/ read-only, physfn present, no debugfs cc_params, no QoS control", func(p *Profile) {
			p.VirtualFunctions = true
		}),
	}
	m := make(map[string]Profile, len(list))
	for _, p := range list {
		m[p.Name] = p
	}
	return m
}

// Lookup returns the named profile; an empty name means DefaultProfile.
func Lookup(name string) (Profile, bool) {
	if name == "" {
		name = DefaultProfile
	}
	p, ok := profiles()[name]
	return p, ok
}

// Names returns the profile names in sorted order.
func Names() []string {
	m := profiles()
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
