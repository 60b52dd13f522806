package facts

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseIBDev2Netdev(t *testing.T) {
	tests := []struct {
		fixture string
		want    []DevNetdev
	}{
		{"ibdev2netdev.txt", []DevNetdev{
			{Device: "mlx5_0", Port: 1, Netdev: "ens108np0", State: "Up"},
			{Device: "mlx5_1", Port: 1, Netdev: "bond0", State: "Up"},
			{Device: "mlx5_2", Port: 1, Netdev: "ens12f1np1", State: "Down"},
			{Device: "mlx5_bond_0", Port: 1, Netdev: "bond1", State: "Up"},
		}},
		{"ibdev2netdev_v.txt", []DevNetdev{
			{Device: "mlx5_0", Port: 1, Netdev: "ens108np0", State: "Up", PCIAddr: "0000:17:00.0", PortState: "ACTIVE"},
			{Device: "mlx5_1", Port: 1, Netdev: "ens12f1np1", State: "Down", PCIAddr: "0000:3d:00.0", PortState: "DOWN"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			got, err := ParseIBDev2Netdev(fixture(t, tt.fixture))
			if err != nil {
				t.Fatalf("ParseIBDev2Netdev() error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseIBDev2Netdev() mismatch (-want +got):\n%s", diff)
			}
			if !got[0].Up() {
				t.Error("first port should be up")
			}
		})
	}
}

func TestParseIBDev2NetdevErrors(t *testing.T) {
	for _, in := range []string{
		"mlx5_0 port 1 -> ens1 (Up)\n",
		"mlx5_0 ==> ens1 (Up)\n",
		"mlx5_0 port x ==> ens1 (Up)\n",
		"mlx5_0 port 1 ==>\n",
		"mlx5_0 1 2 ==> ens1 (Up)\n",
	} {
		_, err := ParseIBDev2Netdev(in)
		wantParseError(t, err, "ibdev2netdev")
	}
}

func FuzzIBDev2Netdev(f *testing.F) {
	addSeeds(f, "ibdev2netdev.txt", "ibdev2netdev_v.txt")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseIBDev2Netdev(s)
		if err != nil {
			return
		}
		for _, d := range got {
			if d.Device == "" || d.Netdev == "" {
				t.Errorf("empty device or netdev: %+v", d)
			}
		}
	})
}
