package preflight

import (
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/google/go-cmp/cmp"
)

func TestCheckPorts(t *testing.T) {
	down := goodHost()
	down.IBDevices[1].Ports[0] = port(1, "PORT_DOWN", facts.PortDown, "Ethernet")
	ib := goodHost()
	ib.IBDevices[1].Ports[0].LinkLayer = "InfiniBand"
	dual := goodHost()
	dual.IBDevices[0].Ports = append(dual.IBDevices[0].Ports, port(2, "PORT_INIT", facts.PortInit, ""))
	none := goodHost()
	none.IBDevices = nil

	tests := []struct {
		name       string
		f          host.Facts
		want       []outcome
		wantDetail string
		wantRemedy string
	}{
		{"all active RoCE", goodHost(), []outcome{
			{CheckPortActive, "mlx5_0:1", true}, {CheckPortActive, "mlx5_1:1", true},
			{CheckLinkLayer, "mlx5_0:1", true}, {CheckLinkLayer, "mlx5_1:1", true},
		}, "PORT_ACTIVE (4), netdev ens1f0np0", ""},
		{"port down", down, []outcome{
			{CheckPortActive, "mlx5_0:1", true}, {CheckPortActive, "mlx5_1:1", false},
			{CheckLinkLayer, "mlx5_0:1", true}, {CheckLinkLayer, "mlx5_1:1", true},
		}, "PORT_DOWN (1), netdev ens1f1np1", "ip link set ens1f1np1 up"},
		{"InfiniBand port", ib, []outcome{
			{CheckPortActive, "mlx5_0:1", true}, {CheckPortActive, "mlx5_1:1", true},
			{CheckLinkLayer, "mlx5_0:1", true}, {CheckLinkLayer, "mlx5_1:1", false},
		}, "link layer InfiniBand: the port does not run RoCE", "LINK_TYPE_P1=2"},
		{"second port not active, no link layer", dual, []outcome{
			{CheckPortActive, "mlx5_0:1", true}, {CheckPortActive, "mlx5_0:2", false}, {CheckPortActive, "mlx5_1:1", true},
			{CheckLinkLayer, "mlx5_0:1", true}, {CheckLinkLayer, "mlx5_0:2", false}, {CheckLinkLayer, "mlx5_1:1", true},
		}, "PORT_INIT (2)", "LINK_TYPE_P2=2"},
		{"no devices", none, []outcome{{CheckPortActive, "", false}}, "found no RDMA devices", "mlx5_ib"},
		{"not gathered", without(goodHost(), host.FactIBDevices), []outcome{{CheckPortActive, "", false}},
			"not checked: ibv_devinfo not gathered", "gather ibv_devinfo; it needs ibv_devinfo"},
		{"unreadable", absent(goodHost(), host.FactIBDevices, "ibv_devinfo: command not found"), []outcome{{CheckPortActive, "", false}},
			"ibv_devinfo could not be read: ibv_devinfo: command not found", "ibverbs-utils"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkPorts(tt.f)
			wellFormed(t, got)
			if diff := cmp.Diff(tt.want, outcomes(got)); diff != "" {
				t.Fatalf("outcomes mismatch (-want +got):\n%s", diff)
			}
			var details, remedies string
			for _, v := range got {
				details += v.Detail + "\n"
				remedies += v.Remedy + "\n"
			}
			wantText(t, "details", details, tt.wantDetail)
			wantText(t, "remedies", remedies, tt.wantRemedy)
		})
	}
}

// An ibdev2netdev map names the netdev when sysfs netdevs were not read.
func TestCheckPortsNetdevFromIBDev2Netdev(t *testing.T) {
	f := goodHost()
	f.Netdevs = nil
	f.DevNetdevs = []facts.DevNetdev{{Device: "mlx5_1", Port: 1, Netdev: "ens12f1np1", State: "Down"}}
	f.IBDevices[1].Ports[0] = port(1, "PORT_DOWN", facts.PortDown, "Ethernet")
	got := only(checkPorts(f), CheckPortActive)
	wantText(t, "mlx5_0 detail", got[0].Detail, "state PORT_ACTIVE (4)")
	if got[0].Detail != "state PORT_ACTIVE (4)" {
		t.Errorf("mlx5_0 detail = %q, want no netdev", got[0].Detail)
	}
	wantText(t, "mlx5_1 remedy", got[1].Remedy, "ip link set ens12f1np1 up")
}

func TestPortRemedy(t *testing.T) {
	down := portActive("mlx5_3:1", "", port(1, "PORT_DOWN", facts.PortDown, "Ethernet"))
	wantText(t, "down remedy", down.Remedy, "ip link set <netdev> up")
	if strings.Contains(down.Remedy, "subnet manager") {
		t.Errorf("down remedy = %q, want no subnet manager hint", down.Remedy)
	}
	for _, p := range []facts.IBPort{port(1, "PORT_INIT", facts.PortInit, "InfiniBand"), port(1, "PORT_ARMED", facts.PortArmed, "InfiniBand")} {
		v := portActive("mlx5_3:1", "ib0", p)
		wantText(t, p.State+" remedy", v.Remedy, "no subnet manager", "ip link set ib0 up")
	}
}

// The second port of a dual-port device has its own netdev, known only from
// ibdev2netdev.
func TestPortNetdev(t *testing.T) {
	f := goodHost()
	f.IBDevices[0].Ports = append(f.IBDevices[0].Ports, port(2, "PORT_DOWN", facts.PortDown, "Ethernet"))
	got := only(checkPorts(f), CheckPortActive)
	wantText(t, "mlx5_0:2 remedy", got[1].Remedy, "ip link set <netdev> up")
	f.DevNetdevs = []facts.DevNetdev{{Device: "mlx5_0", Port: 1, Netdev: "x"}, {Device: "mlx5_0", Port: 2, Netdev: "ens1f0np1"}}
	got = only(checkPorts(f), CheckPortActive)
	wantText(t, "mlx5_0:1 detail", got[0].Detail, "netdev ens1f0np0")
	wantText(t, "mlx5_0:2 remedy", got[1].Remedy, "ip link set ens1f0np1 up")
}
