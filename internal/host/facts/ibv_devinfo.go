package facts

import (
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// IBDevice is one RDMA device (hca_id block) printed by ibv_devinfo.
type IBDevice struct {
	// Name is the RDMA device name, e.g. "mlx5_0".
	Name string
	// Transport is e.g. "InfiniBand (0)"; it reads InfiniBand even for RoCE.
	Transport string
	// FWVersion is the firmware version, e.g. "28.46.3048".
	FWVersion string
	// NodeGUID is the node GUID as printed, e.g. "e8eb:d303:0032:8a4a".
	NodeGUID string
	// SysImageGUID is the system image GUID as printed.
	SysImageGUID string
	// VendorID is the PCI vendor as printed, e.g. "0x02c9".
	VendorID string
	// VendorPartID is the PCI device id in decimal, e.g. 4129.
	VendorPartID int
	// HWVersion is the hardware revision as printed, e.g. "0x0".
	HWVersion string
	// BoardID is the board (PSID), e.g. "MT_0000000838".
	BoardID string
	// PhysPortCount is phys_port_cnt.
	PhysPortCount int
	// Ports are the ports in the order printed.
	Ports []IBPort
}

// IBPort is one port of an [IBDevice].
type IBPort struct {
	// Num is the port number, from 1.
	Num int
	// State is the port state name, e.g. "PORT_ACTIVE".
	State string
	// StateCode is the numeric state, e.g. 4 for PORT_ACTIVE.
	StateCode int
	// MaxMTU and ActiveMTU are in bytes, e.g. 4096.
	MaxMTU, ActiveMTU int
	// LinkLayer is "Ethernet" for RoCE or "InfiniBand".
	LinkLayer string
	// PhysState is e.g. "LINK_UP (5)"; printed only with -v.
	PhysState string
	// ActiveWidth and ActiveSpeed are as printed with -v, e.g. "4X (2)",
	// "100.0 Gbps (64)".
	ActiveWidth, ActiveSpeed string
	// GIDs are the GID lines printed with -v.
	GIDs []IBGID
}

// IBGID is one "GID[  3]: ::ffff:192.168.57.3, RoCE v2" line of ibv_devinfo -v.
type IBGID struct {
	// Index is the GID table index.
	Index int
	// GID is the address as printed (compressed IPv6 text in newer
	// rdma-core, full hex in older).
	GID string
	// Type is e.g. "RoCE v2"; empty when not printed.
	Type string
}

// RateGbps is the port's line rate in Gb/s, its active width's lanes times its active
// speed per lane ("4X (2)" and "100.0 Gbps (128)": 400), as ibv_devinfo -v prints them. On
// Ethernet (RoCE) ports mlx5 reports the Ethernet speed as an InfiniBand width and lane
// speed (translate_eth_proto_oper in drivers/infiniband/hw/mlx5/main.c), so the product is the
// netdev's speed. ok is false when either is missing or unreadable.
func (p IBPort) RateGbps() (gbps float64, ok bool) {
	w, _, _ := strings.Cut(strings.TrimSpace(p.ActiveWidth), " ")
	lanes, err := strconv.Atoi(strings.TrimSuffix(w, "X"))
	if err != nil || lanes < 1 || !strings.HasSuffix(w, "X") {
		return 0, false
	}
	f := strings.Fields(p.ActiveSpeed)
	if len(f) < 2 || f[1] != "Gbps" {
		return 0, false
	}
	lane, err := strconv.ParseFloat(f[0], 64)
	if err != nil || lane <= 0 {
		return 0, false
	}
	return float64(lanes) * lane, true
}

// Port states as numbered by ibv_devinfo ("PORT_ACTIVE (4)").
const (
	PortDown   = 1
	PortInit   = 2
	PortArmed  = 3
	PortActive = 4
)

// Active reports whether the port state is PORT_ACTIVE.
func (p IBPort) Active() bool { return p.StateCode == PortActive || p.State == "PORT_ACTIVE" }

// RoCE reports whether the port runs RoCE (Ethernet link layer).
func (p IBPort) RoCE() bool { return p.LinkLayer == "Ethernet" }

// mlx5Models maps vendor_part_id (the PCI device id in decimal) to the product
// name, after the mlx5_core PCI table.
var mlx5Models = map[int]string{
	0x1011: "Connect-IB",
	0x1013: "ConnectX-4",
	0x1015: "ConnectX-4 Lx",
	0x1017: "ConnectX-5",
	0x1019: "ConnectX-5 Ex",
	0x101b: "ConnectX-6",
	0x101d: "ConnectX-6 Dx",
	0x101e: "ConnectX VF",
	0x101f: "ConnectX-6 Lx",
	0x1021: "ConnectX-7",
	0x1023: "ConnectX-8",
	0x1025: "ConnectX-9",
	0x1027: "ConnectX-10",
	0xa2d2: "BlueField",
	0xa2d6: "BlueField-2",
	0xa2dc: "BlueField-3",
	0xa2df: "BlueField-4",
}

// Model returns the product name for the device's vendor_part_id, e.g.
// "ConnectX-7" for 4129 and "ConnectX-8" for 4131, or "" when unknown.
func (d IBDevice) Model() string { return mlx5Models[d.VendorPartID] }

// IBVDevinfoCommand lists RDMA devices and ports. Add "-v" with
// [shell.Command.Arg] to include the GID lines.
var IBVDevinfoCommand = shell.New("ibv_devinfo")

// IBVDevinfoProbe is the RDMA device probe.
var IBVDevinfoProbe = Probe[[]IBDevice]{Name: "ibv_devinfo", Command: IBVDevinfoCommand, Parse: ParseIBVDevinfo}

// ParseIBVDevinfo reads the output of ibv_devinfo, with or without -v. Keys it
// does not know (the many capability lines of -v) are skipped. Output with no
// hca_id block, or "No IB devices found", gives no devices and no error.
func ParseIBVDevinfo(out string) ([]IBDevice, error) {
	const fact = "ibv_devinfo"
	var devs []IBDevice
	var dev *IBDevice
	var port *IBPort
	for i, raw := range lines(out) {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "No IB devices found") {
			continue
		}
		key, val, ok := cutKV(line)
		if !ok {
			continue // flag lists under device_cap_flags and similar
		}
		if key == "hca_id" {
			if val == "" {
				return nil, lineError(fact, i+1, raw, "empty hca_id")
			}
			devs = append(devs, IBDevice{Name: val})
			dev, port = &devs[len(devs)-1], nil
			continue
		}
		if dev == nil {
			return nil, lineError(fact, i+1, raw, "%q before any hca_id", key)
		}
		if key == "port" {
			n, err := atoi(val)
			if err != nil {
				return nil, wrapLineError(fact, i+1, raw, err, "port number")
			}
			dev.Ports = append(dev.Ports, IBPort{Num: n})
			port = &dev.Ports[len(dev.Ports)-1]
			continue
		}
		var err error
		if port != nil {
			err = setPortField(port, key, val)
		} else {
			err = setDeviceField(dev, key, val)
		}
		if err != nil {
			return nil, wrapLineError(fact, i+1, raw, err, "%s", key)
		}
	}
	return devs, nil
}

func setDeviceField(d *IBDevice, key, val string) error {
	var err error
	switch key {
	case "transport":
		d.Transport = val
	case "fw_ver":
		d.FWVersion = val
	case "node_guid":
		d.NodeGUID = val
	case "sys_image_guid":
		d.SysImageGUID = val
	case "vendor_id":
		d.VendorID = val
	case "vendor_part_id":
		d.VendorPartID, err = atoi(val)
	case "hw_ver":
		d.HWVersion = val
	case "board_id":
		d.BoardID = val
	case "phys_port_cnt":
		d.PhysPortCount, err = atoi(val)
	}
	return err
}

func setPortField(p *IBPort, key, val string) error {
	var err error
	switch {
	case key == "state":
		p.State, p.StateCode, err = nameCode(val)
	case key == "max_mtu":
		p.MaxMTU, err = leadingNumber(val)
	case key == "active_mtu":
		p.ActiveMTU, err = leadingNumber(val)
	case key == "link_layer":
		p.LinkLayer = val
	case key == "phys_state":
		p.PhysState = val
	case key == "active_width":
		p.ActiveWidth = val
	case key == "active_speed":
		p.ActiveSpeed = val
	case strings.HasPrefix(key, "GID["):
		var g IBGID
		g, err = parseDevinfoGID(key, val)
		if err == nil {
			p.GIDs = append(p.GIDs, g)
		}
	}
	return err
}

// nameCode splits "PORT_ACTIVE (4)" into its name and code.
func nameCode(val string) (string, int, error) {
	name, code, ok := strings.Cut(val, "(")
	if !ok {
		return strings.TrimSpace(val), 0, nil
	}
	n, err := atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(code), ")")))
	return strings.TrimSpace(name), n, err
}

// leadingNumber reads the number of "4096 (5)", checking the code is well formed.
func leadingNumber(val string) (int, error) {
	name, _, err := nameCode(val)
	if err != nil {
		return 0, err
	}
	return atoi(name)
}

// parseDevinfoGID reads key "GID[  3]" and value "::ffff:1.2.3.4, RoCE v2".
func parseDevinfoGID(key, val string) (IBGID, error) {
	idx := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(key, "GID["), "]"))
	n, err := atoi(idx)
	if err != nil {
		return IBGID{}, err
	}
	gid, typ, _ := strings.Cut(val, ",")
	return IBGID{Index: n, GID: strings.TrimSpace(gid), Type: strings.TrimSpace(typ)}, nil
}

// String returns the device name and model, for messages.
func (d IBDevice) String() string {
	if m := d.Model(); m != "" {
		return d.Name + " (" + m + ")"
	}
	return d.Name + " (part " + strconv.Itoa(d.VendorPartID) + ")"
}
