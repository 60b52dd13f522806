package hostprofile

import (
	"crypto/sha256"
	"fmt"
	"net/netip"
)

const (
	maxPorts = 16
	maxGPUs  = 16
	// gidSlots is the number of GID table entries rendered per port. A real
	// ConnectX port has 255; the twin keeps the table short so rendering
	// stays fast, and every populated entry fits in it.
	gidSlots = 16
)

// nicModel holds what a ConnectX model shows in sysfs and the tools.
type nicModel struct {
	pciDevice, vfPCIDevice string // PCI device ids, "0x1021"
	partID, vfPartID       int    // ibv_devinfo vendor_part_id (decimal PCI device id)
	fwVersion              string
	boardID                string // PSID
	partNumber             string // ibdev2netdev -v, mlxconfig Name
	description            string
	mlxconfigType          string // mlxconfig "Device type:"
	rate                   string // ports/1/rate
	activeSpeed            string // ibv_devinfo -v active_speed
	speedMbps              int    // /sys/class/net/<if>/speed
}

// nicModels: part numbers, firmware and the CX-7 PSID come from public
// ibv_devinfo and ibdev2netdev samples (e.g. DeepEP issue #38), the PCI
// device ids from the kernel's mlx5 PCI id table (mlx5/core/main.c); the
// CX-8 board id is a plausible stand-in.
var nicModels = map[string]nicModel{
	ConnectX7: {
		pciDevice: "0x1021", vfPCIDevice: "0x101e", partID: 4129, vfPartID: 4126,
		fwVersion: "28.46.3048", boardID: "MT_0000000838", partNumber: "MCX75310AAS-NEAT",
		description:   "NVIDIA ConnectX-7 HHHL adapter card, 400GbE / NDR IB (default mode), Single-port OSFP, PCIe 5.0 x16, Crypto Disabled, Secure Boot Enabled",
		mlxconfigType: "ConnectX7", rate: "400 Gb/sec (4X NDR)", activeSpeed: "100.0 Gbps (128)", speedMbps: 400000,
	},
	ConnectX8: {
		pciDevice: "0x1023", vfPCIDevice: "0x101e", partID: 4131, vfPartID: 4126,
		fwVersion: "40.45.1200", boardID: "MT_0000001070", partNumber: "900-9X81E-00EX-ST0",
		description:   "NVIDIA ConnectX-8 C8180 HHHL SuperNIC",
		mlxconfigType: "ConnectX8", rate: "800 Gb/sec (4X XDR)", activeSpeed: "200.0 Gbps (256)", speedMbps: 800000,
	},
}

// nicBuses are the PCI buses of the first eight NICs, each GPU sitting on
// the next bus behind the same PCIe switch (an HGX-like layout).
var nicBuses = [8]int{0x17, 0x29, 0x39, 0x5c, 0x99, 0xaa, 0xb9, 0xda}

func nicBus(i int) int {
	if i < len(nicBuses) {
		return nicBuses[i]
	}
	return 0xe0 + 2*(i-len(nicBuses))
}

// port is one rendered RDMA port: an RDMA device, its netdev and PCI
// function.
type port struct {
	index  int
	rdma   string // "mlx5_0"
	netdev string // "ens1f0np0", or "ens1f0v0" for a VF
	bdf    string // the function the netdev belongs to
	pfBDF  string // the physical function; equal to bdf unless a VF
	vf     bool
	mac    [6]byte
	ipv4   netip.Addr
	numa   int
	down   bool
}

// gpu is one rendered GPU.
type gpu struct {
	index int
	bdf   string // "0000:18:00.0"
	busID string // nvidia-smi form, "00000000:18:00.0"
	uuid  string
	numa  int
	nic   int // the port behind the same PCIe switch (PIX)
}

// hardware is everything derived from a profile and host id.
type hardware struct {
	model nicModel
	ports []port
	gpus  []gpu
}

func newHardware(p Profile, id HostID) hardware {
	hw := hardware{model: nicModels[p.NICModel]}
	for i := range p.Ports {
		bus := nicBus(i)
		pt := port{
			index:  i,
			rdma:   fmt.Sprintf("mlx5_%d", i),
			netdev: fmt.Sprintf("ens%df0np0", i+1),
			bdf:    fmt.Sprintf("0000:%02x:00.0", bus),
			mac:    [6]byte{0xb8, 0x3f, 0xd2, 0xa0, byte(id.Index), byte(i)},
			ipv4:   id.IPv4(i),
			numa:   i * 2 / p.Ports,
			down:   p.PortDown(i),
		}
		pt.pfBDF = pt.bdf
		if p.VirtualFunctions {
			pt.vf = true
			pt.netdev = fmt.Sprintf("ens%df0v0", i+1)
			pt.bdf = fmt.Sprintf("0000:%02x:00.1", bus)
		}
		hw.ports = append(hw.ports, pt)
	}
	for i := range p.GPUs {
		bus := nicBus(i) + 1
		sum := sha256.Sum256(fmt.Appendf(nil, "twin-gpu/%d/%d", id.Index, i))
		hw.gpus = append(hw.gpus, gpu{
			index: i,
			bdf:   fmt.Sprintf("0000:%02x:00.0", bus),
			busID: fmt.Sprintf("00000000:%02X:00.0", bus),
			uuid:  fmt.Sprintf("GPU-%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16]),
			numa:  i * 2 / p.GPUs,
			nic:   i * p.Ports / p.GPUs,
		})
	}
	return hw
}

// cpuList is the CPU affinity of a NUMA node on the twin's 2 × 96-thread
// layout.
func cpuList(numa int) string {
	if numa == 0 {
		return "0-47,96-143"
	}
	return "48-95,144-191"
}

// macString formats the MAC as sysfs prints it.
func (pt port) macString() string {
	m := pt.mac
	return fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5])
}

// nodeGUID is the RDMA node GUID: the MAC with 03:00 inserted after the
// OUI, in sysfs form "b83f:d203:00a0:0000".
func (pt port) nodeGUID() string {
	m := pt.mac
	return fmt.Sprintf("%02x%02x:%02x03:00%02x:%02x%02x", m[0], m[1], m[2], m[3], m[4], m[5])
}

// linkLocal is the port's fe80:: address (modified EUI-64 of the MAC).
func (pt port) linkLocal() netip.Addr {
	m := pt.mac
	return netip.AddrFrom16([16]byte{0: 0xfe, 1: 0x80, 8: m[0] ^ 2, m[1], m[2], 0xff, 0xfe, m[3], m[4], m[5]})
}

// globalIPv6 is the unique-local address that the gid-index-5 profile puts
// in front of the IPv4 entries.
func (pt port) globalIPv6() netip.Addr {
	return netip.AddrFrom16([16]byte{0xfd, 0xaa, 0, 0, 0, pt.ipv4.As4()[1], 0, byte(pt.index), 15: 1})
}

// gidEntry is one GID table slot; an empty typ marks an unused slot whose
// type and netdev files cannot be read.
type gidEntry struct {
	gid netip.Addr
	typ string // "IB/RoCE v1" or "RoCE v2"
}

// The GID types as /sys/class/infiniband/*/ports/*/gid_attrs/types/N shows
// them.
const (
	gidTypeV1 = "IB/RoCE v1"
	gidTypeV2 = "RoCE v2"
)

// gids returns the port's GID table: v1/v2 pairs for the link-local address,
// in the gid-index-5 profile an IPv6 global pair, then the IPv4 address.
func (pt port) gids(p Profile) []gidEntry {
	addrs := []netip.Addr{pt.linkLocal()}
	if p.RoCEv2IPv4GIDIndex == 5 {
		addrs = append(addrs, pt.globalIPv6())
	}
	addrs = append(addrs, netip.AddrFrom16(pt.ipv4.As16()))
	table := make([]gidEntry, gidSlots)
	for i, a := range addrs {
		table[2*i] = gidEntry{gid: a, typ: gidTypeV1}
		table[2*i+1] = gidEntry{gid: a, typ: gidTypeV2}
	}
	return table
}

// sysfsGID formats an address as sysfs prints a GID: 8 groups of 4 hex
// digits; the zero address for unused slots.
func sysfsGID(a netip.Addr) string {
	var b [16]byte
	if a.IsValid() {
		b = a.As16()
	}
	return fmt.Sprintf("%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
}
