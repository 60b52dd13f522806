package facts

import (
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// DevNetdev is one line of ibdev2netdev: an RDMA port and its netdev.
type DevNetdev struct {
	// Device is the RDMA device, e.g. "mlx5_0" or "mlx5_bond_0".
	Device string
	// Port is the RDMA port number.
	Port int
	// Netdev is the network interface, e.g. "ens1f0np0".
	Netdev string
	// State is the netdev link state as printed: "Up", "Down" or "NA".
	State string
	// PCIAddr is the PCI address; printed only by ibdev2netdev -v.
	PCIAddr string
	// PortState is the RDMA port state, e.g. "ACTIVE"; printed only with -v.
	PortState string
}

// Up reports whether the netdev link is up.
func (d DevNetdev) Up() bool { return d.State == "Up" }

// IBDev2NetdevCommand maps RDMA ports to netdevs. It ships with MLNX_OFED and
// DOCA-OFED (ofed-scripts) only; on inbox hosts read the GID table's netdevs.
var IBDev2NetdevCommand = shell.New("ibdev2netdev")

// IBDev2NetdevProbe is the RDMA-port-to-netdev probe.
var IBDev2NetdevProbe = Probe[[]DevNetdev]{Name: "ibdev2netdev", Command: IBDev2NetdevCommand, Parse: ParseIBDev2Netdev}

// ParseIBDev2Netdev reads lines of the form
//
//	mlx5_0 port 1 ==> ens1f0np0 (Up)
//
// and the -v form
//
//	0000:17:00.0 mlx5_0 (MT4129 - MCX75310AAS-NEAT) ... fw 28.39.1002 port 1 (ACTIVE) ==> ens1f0np0 (Up)
func ParseIBDev2Netdev(out string) ([]DevNetdev, error) {
	const fact = "ibdev2netdev"
	var res []DevNetdev
	for i, line := range lines(out) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		left, right, ok := strings.Cut(line, "==>")
		if !ok {
			return nil, lineError(fact, i+1, line, "no \"==>\"")
		}
		var d DevNetdev
		lf := strings.Fields(left)
		if len(lf) < 3 {
			return nil, lineError(fact, i+1, line, "want \"<device> port <n>\" before \"==>\"")
		}
		if isPCIAddr(lf[0]) {
			d.PCIAddr, lf = lf[0], lf[1:]
		}
		d.Device = lf[0]
		// The port is the number after the last "port" word; -v may add
		// "(ACTIVE)" after it.
		p := -1
		for j := len(lf) - 2; j >= 1; j-- {
			if lf[j] == "port" {
				p = j + 1
				break
			}
		}
		if p < 0 {
			return nil, lineError(fact, i+1, line, "no port number")
		}
		n, err := atoi(lf[p])
		if err != nil {
			return nil, wrapLineError(fact, i+1, line, err, "port number")
		}
		d.Port = n
		if p+1 < len(lf) {
			d.PortState = strings.Trim(lf[p+1], "()")
		}
		rf := strings.Fields(right)
		if len(rf) == 0 {
			return nil, lineError(fact, i+1, line, "no netdev after \"==>\"")
		}
		d.Netdev = rf[0]
		if len(rf) > 1 {
			d.State = strings.Trim(rf[1], "()")
		}
		res = append(res, d)
	}
	return res, nil
}

// isPCIAddr reports whether s looks like a PCI address, "0000:17:00.0".
func isPCIAddr(s string) bool {
	dom, rest, ok := strings.Cut(s, ":")
	return ok && len(dom) == 4 && strings.Count(rest, ":") == 1 && strings.Contains(rest, ".")
}
