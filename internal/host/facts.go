package host

import (
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// Has reports whether f was gathered and read.
func (fs Facts) Has(f FactID) bool {
	_, absent := fs.Absent[f.String()]
	return fs.Gathered.Has(f) && !absent
}

// ModuleLoaded reports whether the kernel module name is loaded; "-" and "_"
// are the same in module names.
func (fs Facts) ModuleLoaded(name string) bool {
	_, ok := fs.Modules[ModuleName(name)]
	return ok
}

// ModuleName returns a module name as lsmod prints it ("nvidia-peermem" →
// "nvidia_peermem").
func ModuleName(name string) string { return strings.ReplaceAll(name, "-", "_") }

// Netdev returns the ConnectX netdev called name.
func (fs Facts) Netdev(name string) (Netdev, bool) {
	for _, n := range fs.Netdevs {
		if n.Name == name {
			return n, true
		}
	}
	return Netdev{}, false
}

// IsVF reports whether the netdev called name is an SR-IOV virtual function.
func (fs Facts) IsVF(name string) bool {
	n, ok := fs.Netdev(name)
	return ok && n.IsVF
}

// GIDIndex returns the RoCE v2 IPv4-mapped GID index of an RDMA device (the
// value for NCCL_IB_GID_INDEX); ok is false when it has none.
func (fs Facts) GIDIndex(device string) (index int, ok bool) {
	return facts.RoCEv2IPv4Index(fs.GIDs, device)
}

// File returns what was read of the file at path.
func (fs Facts) File(path string) (FileInfo, bool) {
	fi, ok := fs.Files[path]
	return fi, ok
}

// dmabufMinKernel is the first kernel with the DMA-BUF RDMA support NCCL uses.
var dmabufMinKernel = Kernel{Major: 5, Minor: 12}

// DMABUF reports whether GPU memory can be registered with the NICs through
// DMA-BUF (kernel ≥ 5.12 and the open GPU kernel modules) and why not when it
// cannot. It needs FactKernel and FactNVIDIA.
func (fs Facts) DMABUF() (ok bool, why string) {
	switch {
	case !fs.Has(FactKernel):
		return false, "kernel release unknown"
	case !fs.Has(FactNVIDIA):
		return false, "NVIDIA driver not loaded or not gathered"
	case fs.Kernel.Less(dmabufMinKernel):
		return false, "kernel " + fs.Kernel.Release + " is older than 5.12"
	case !fs.NVIDIA.Open:
		return false, "NVIDIA driver " + fs.NVIDIA.Version + " uses the proprietary kernel modules, DMA-BUF needs the open ones"
	}
	return true, "kernel " + fs.Kernel.Release + " and open NVIDIA kernel modules " + fs.NVIDIA.Version
}

// NIC is one RDMA device with its first port and its netdev: the joined view
// of ibv_devinfo and sysfs (or ibdev2netdev).
type NIC struct {
	// Device is the RDMA device, e.g. "mlx5_0".
	Device string
	// Model is e.g. "ConnectX-7"; empty when unknown.
	Model string
	// FWVersion is the firmware version.
	FWVersion string
	// Netdev is the network interface; empty when unknown.
	Netdev string
	// IsVF reports an SR-IOV virtual function.
	IsVF bool
	// PortState is the first port's state, e.g. "PORT_ACTIVE".
	PortState string
	// LinkLayer is the first port's link layer, "Ethernet" for RoCE.
	LinkLayer string
}

// NICs returns the RDMA devices in ibv_devinfo's order, each joined with its
// netdev from the netdev fact, or from ibdev2netdev when that was not read.
func (fs Facts) NICs() []NIC {
	out := make([]NIC, 0, len(fs.IBDevices))
	for _, d := range fs.IBDevices {
		n := NIC{Device: d.Name, Model: d.Model(), FWVersion: d.FWVersion}
		if len(d.Ports) > 0 {
			n.PortState, n.LinkLayer = d.Ports[0].State, d.Ports[0].LinkLayer
		}
		n.Netdev, n.IsVF = fs.netdevOf(d.Name)
		out = append(out, n)
	}
	return out
}

func (fs Facts) netdevOf(device string) (name string, vf bool) {
	for _, n := range fs.Netdevs {
		if n.RDMADevice == device {
			return n.Name, n.IsVF
		}
	}
	for _, m := range fs.DevNetdevs {
		if m.Device == device {
			return m.Netdev, fs.IsVF(m.Netdev)
		}
	}
	return "", false
}
