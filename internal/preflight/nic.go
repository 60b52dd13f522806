package preflight

import (
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

// checkPorts returns the nic_port_active and nic_link_layer verdicts, one
// per RDMA port, subject "<device>:<port>" as NCCL_IB_HCA writes it.
func checkPorts(f host.Facts) []verdict.Verdict {
	if v, missing := unread(f, CheckPortActive, host.FactIBDevices); missing {
		return []verdict.Verdict{v}
	}
	if len(f.IBDevices) == 0 {
		return []verdict.Verdict{fail(CheckPortActive, "", "ibv_devinfo found no RDMA devices",
			"load mlx5_core and mlx5_ib (ibv_devinfo lists only devices with an RDMA driver) and check that the ConnectX NICs show in lspci")}
	}
	netdevs := netdevsByDevice(f)
	var active, layer []verdict.Verdict
	for _, d := range f.IBDevices {
		for _, p := range d.Ports {
			subject := fmt.Sprintf("%s:%d", d.Name, p.Num)
			active = append(active, portActive(subject, portNetdev(f, netdevs, d.Name, p.Num), p))
			layer = append(layer, linkLayer(subject, p))
		}
	}
	return append(active, layer...)
}

// netdevsByDevice maps each RDMA device to its netdev, where known.
func netdevsByDevice(f host.Facts) map[string]string {
	m := map[string]string{}
	for _, n := range f.NICs() {
		if n.Netdev != "" {
			m[n.Device] = n.Netdev
		}
	}
	return m
}

// portNetdev returns the netdev of a port: the device's netdev for port 1,
// ibdev2netdev's entry for the others (a sysfs netdev names no port).
func portNetdev(f host.Facts, netdevs map[string]string, device string, port int) string {
	if port == 1 {
		return netdevs[device]
	}
	for _, m := range f.DevNetdevs {
		if m.Device == device && m.Port == port {
			return m.Netdev
		}
	}
	return ""
}

// portActive judges one port's state.
func portActive(subject, netdev string, p facts.IBPort) verdict.Verdict {
	seen := fmt.Sprintf("state %s (%d)", p.State, p.StateCode)
	if netdev != "" {
		seen += ", netdev " + netdev
	}
	if p.Active() {
		return pass(CheckPortActive, subject, seen)
	}
	link := "<netdev>"
	if netdev != "" {
		link = netdev
	}
	remedy := fmt.Sprintf("bring the link up: check the cable, transceiver and switch port, and that the netdev is up (ip link set %s up; ibdev2netdev shows its carrier); or leave the port out of NCCL_IB_HCA", link)
	if p.StateCode == facts.PortInit || p.StateCode == facts.PortArmed {
		remedy = "the link is up but the port is not usable yet (on InfiniBand: no subnet manager has configured it); " + remedy
	}
	return fail(CheckPortActive, subject, seen, remedy)
}

// linkLayer judges one port's link layer.
func linkLayer(subject string, p facts.IBPort) verdict.Verdict {
	seen := "link layer " + p.LinkLayer
	if p.LinkLayer == "" {
		seen = "link layer not reported"
	}
	if p.RoCE() {
		return pass(CheckLinkLayer, subject, seen)
	}
	return fail(CheckLinkLayer, subject, seen+": the port does not run RoCE",
		fmt.Sprintf("set the port to Ethernet (mlxconfig LINK_TYPE_P%d=2 on a VPI card, then reboot or mlxfwreset), or leave it out of NCCL_IB_HCA: NCCL refuses to mix InfiniBand and RoCE devices", p.Num))
}
