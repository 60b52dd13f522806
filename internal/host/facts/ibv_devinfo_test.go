package facts

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseIBVDevinfo(t *testing.T) {
	cx7 := func(name, guid string, port IBPort) IBDevice {
		return IBDevice{
			Name: name, Transport: "InfiniBand (0)", FWVersion: "28.46.3048",
			NodeGUID: guid, SysImageGUID: guid, VendorID: "0x02c9", VendorPartID: 4129,
			HWVersion: "0x0", BoardID: "MT_0000000838", PhysPortCount: 1, Ports: []IBPort{port},
		}
	}
	want := []IBDevice{
		cx7("mlx5_0", "e8eb:d303:0032:8a4a", IBPort{Num: 1, State: "PORT_ACTIVE", StateCode: 4, MaxMTU: 4096, ActiveMTU: 4096, LinkLayer: "Ethernet"}),
		cx7("mlx5_1", "e8eb:d303:0032:8b0c", IBPort{Num: 1, State: "PORT_DOWN", StateCode: 1, MaxMTU: 4096, ActiveMTU: 1024, LinkLayer: "Ethernet"}),
		{
			Name: "mlx5_2", Transport: "InfiniBand (0)", FWVersion: "40.45.1200",
			NodeGUID: "a088:c203:00c1:2e10", SysImageGUID: "a088:c203:00c1:2e10", VendorID: "0x02c9",
			VendorPartID: 4131, HWVersion: "0x0", BoardID: "MT_0000001093", PhysPortCount: 2,
			Ports: []IBPort{
				{Num: 1, State: "PORT_ACTIVE", StateCode: 4, MaxMTU: 4096, ActiveMTU: 4096, LinkLayer: "InfiniBand"},
				{Num: 2, State: "PORT_INIT", StateCode: 2, MaxMTU: 4096, ActiveMTU: 4096, LinkLayer: "InfiniBand"},
			},
		},
	}
	got, err := ParseIBVDevinfo(fixture(t, "ibv_devinfo.txt"))
	if err != nil {
		t.Fatalf("ParseIBVDevinfo() error: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseIBVDevinfo() mismatch (-want +got):\n%s", diff)
	}

	if m := got[0].Model(); m != "ConnectX-7" {
		t.Errorf("Model() = %q, want ConnectX-7", m)
	}
	if m := got[2].Model(); m != "ConnectX-8" {
		t.Errorf("Model() = %q, want ConnectX-8", m)
	}
	if !got[0].Ports[0].Active() || !got[0].Ports[0].RoCE() {
		t.Error("mlx5_0 port 1 should be active RoCE")
	}
	if got[1].Ports[0].Active() || got[2].Ports[0].RoCE() {
		t.Error("mlx5_1 port 1 is down and mlx5_2 is InfiniBand")
	}
}

func TestParseIBVDevinfoVerbose(t *testing.T) {
	got, err := ParseIBVDevinfo(fixture(t, "ibv_devinfo_v.txt"))
	if err != nil {
		t.Fatalf("ParseIBVDevinfo() error: %v", err)
	}
	want := []IBDevice{{
		Name: "mlx5_0", Transport: "InfiniBand (0)", FWVersion: "28.46.3048",
		NodeGUID: "0ac0:eb03:001f:a112", SysImageGUID: "0ac0:eb03:001f:a112", VendorID: "0x02c9",
		VendorPartID: 4129, HWVersion: "0x0", BoardID: "MT_0000000838", PhysPortCount: 1,
		Ports: []IBPort{{
			Num: 1, State: "PORT_ACTIVE", StateCode: 4, MaxMTU: 4096, ActiveMTU: 4096, LinkLayer: "Ethernet",
			PhysState: "LINK_UP (5)", ActiveWidth: "4X (2)", ActiveSpeed: "100.0 Gbps (64)",
			GIDs: []IBGID{
				{Index: 0, GID: "fe80::ac0:ebff:fe1f:a112", Type: "RoCE v1"},
				{Index: 1, GID: "fe80::ac0:ebff:fe1f:a112", Type: "RoCE v2"},
				{Index: 2, GID: "::ffff:192.168.57.3", Type: "RoCE v1"},
				{Index: 3, GID: "::ffff:192.168.57.3", Type: "RoCE v2"},
			},
		}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseIBVDevinfo() mismatch (-want +got):\n%s", diff)
	}
}

func TestParseIBVDevinfoEmpty(t *testing.T) {
	for _, in := range []string{"", fixture(t, "ibv_devinfo_none.txt")} {
		got, err := ParseIBVDevinfo(in)
		if err != nil || len(got) != 0 {
			t.Errorf("ParseIBVDevinfo(%q) = %v, %v; want no devices, no error", in, got, err)
		}
	}
}

func TestParseIBVDevinfoErrors(t *testing.T) {
	for _, in := range []string{
		"Failed to get IB devices list: Function not implemented\n\tfw_ver: 1\n",
		"\tfw_ver:\t\t28.46.3048\n",
		"hca_id:\t\n",
		"hca_id:\tmlx5_0\n\tvendor_part_id:\tfour\n",
		"hca_id:\tmlx5_0\n\t\tport:\tone\n",
		"hca_id:\tmlx5_0\n\t\tport:\t1\n\t\t\tstate:\tPORT_ACTIVE (x)\n",
		"hca_id:\tmlx5_0\n\t\tport:\t1\n\t\t\tactive_mtu:\tbig (5)\n",
		"hca_id:\tmlx5_0\n\t\tport:\t1\n\t\t\tGID[ x]:\t::1, RoCE v2\n",
	} {
		_, err := ParseIBVDevinfo(in)
		wantParseError(t, err, "ibv_devinfo")
	}
}

func TestIBDeviceModel(t *testing.T) {
	tests := map[int]string{4129: "ConnectX-7", 4131: "ConnectX-8", 4125: "ConnectX-6 Dx", 41692: "BlueField-3", 1: ""}
	for part, want := range tests {
		if got := (IBDevice{VendorPartID: part}).Model(); got != want {
			t.Errorf("Model(%d) = %q, want %q", part, got, want)
		}
	}
	if got := (IBDevice{Name: "mlx5_9", VendorPartID: 7}).String(); got != "mlx5_9 (part 7)" {
		t.Errorf("String() = %q", got)
	}
}

func FuzzIBVDevinfo(f *testing.F) {
	addSeeds(f, "ibv_devinfo.txt", "ibv_devinfo_v.txt", "ibv_devinfo_none.txt")
	f.Fuzz(func(t *testing.T, s string) {
		devs, err := ParseIBVDevinfo(s)
		if err != nil {
			return
		}
		for _, d := range devs {
			if d.Name == "" {
				t.Errorf("device without name in %q", s)
			}
		}
	})
}

func TestIBPortRateGbps(t *testing.T) {
	for _, c := range []struct {
		width, speed string
		want         float64
		ok           bool
	}{
		{"4X (2)", "100.0 Gbps (128)", 400, true}, // 400GbE ConnectX-7
		{"4X (2)", "200.0 Gbps (256)", 800, true}, // 800GbE ConnectX-8
		{"1X (1)", "25.0 Gbps (32)", 25, true},
		{"4X (2)", "", 0, false}, // ibv_devinfo without -v
		{"", "100.0 Gbps (128)", 0, false},
		{"4X (2)", "invalid speed (0)", 0, false},
	} {
		got, ok := IBPort{ActiveWidth: c.width, ActiveSpeed: c.speed}.RateGbps()
		if got != c.want || ok != c.ok {
			t.Errorf("%q x %q = %g, %v; want %g, %v", c.width, c.speed, got, ok, c.want, c.ok)
		}
	}
}
