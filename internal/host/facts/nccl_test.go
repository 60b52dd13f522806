package facts

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseNCCLLogGDR(t *testing.T) {
	got, err := ParseNCCLLog(fixture(t, "nccl_ib_gdr.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := NCCLLog{
		Version:  "2.21.5+cuda12.4",
		Network:  "IB",
		Networks: []string{"IB"},
		HCAs: []NCCLHCA{
			{Index: 0, Device: "mlx5_0", Port: 1, LinkLayer: "RoCE"},
			{Index: 1, Device: "mlx5_1", Port: 1, LinkLayer: "RoCE"},
		},
		OOBIface:       "enp220s0np0",
		GDRByHCA:       map[string]bool{"mlx5_0": true, "mlx5_1": true},
		GDRPaths:       []NCCLGDRPath{{GPU: "18000", HCA: "0", Enabled: true, Detail: "distance 3 <= 3"}},
		DMABufGPUs:     []string{"0", "1"},
		NetChannels:    4,
		GDRDMAChannels: 4,
		ChannelNets:    []string{"IB"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseNCCLLog() mismatch (-want +got):\n%s", diff)
	}
}

func TestParseNCCLLogSocket(t *testing.T) {
	got, err := ParseNCCLLog(fixture(t, "nccl_socket.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := NCCLLog{
		Version:      "2.18.3+cuda12.2",
		Network:      "Socket",
		Networks:     []string{"Socket"},
		NoIBDevice:   true,
		GDRByHCA:     map[string]bool{},
		GDRPaths:     []NCCLGDRPath{{GPU: "42000", HCA: "0", Enabled: false, Detail: "distance 6 > 4"}},
		NetChannels:  2,
		SocketIfaces: []string{"eth0"},
		ChannelNets:  []string{"Socket"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseNCCLLog() mismatch (-want +got):\n%s", diff)
	}
}

func TestParseNCCLLogWarnings(t *testing.T) {
	got, err := ParseNCCLLog(fixture(t, "nccl_warn.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"IB", "Socket"}, got.Networks); diff != "" {
		t.Errorf("Networks mismatch (-want +got):\n%s", diff)
	}
	if got.Network != "IB" {
		t.Errorf("Network = %q, want the first, IB", got.Network)
	}
	if diff := cmp.Diff(map[string]bool{"mlx5_0": false}, got.GDRByHCA); diff != "" {
		t.Errorf("GDRByHCA mismatch (-want +got):\n%s", diff)
	}
	wantHCAs := []NCCLHCA{{0, "mlx5_0", 1, "RoCE"}, {1, "mlx5_2", 1, "IB"}}
	if diff := cmp.Diff(wantHCAs, got.HCAs); diff != "" {
		t.Errorf("HCAs mismatch (-want +got):\n%s", diff)
	}
	if got.OOBIface != "bond0" {
		t.Errorf("OOBIface = %q, want bond0", got.OOBIface)
	}
	var kinds []NCCLWarnKind
	for _, w := range got.Warnings {
		kinds = append(kinds, w.Kind)
		if w.Kind != WarnUnknown && (w.Cause == "" || w.Remedy == "") {
			t.Errorf("warning %q has no cause or remedy", w.Line)
		}
		if w.Line == "" {
			t.Error("warning without line")
		}
	}
	wantKinds := []NCCLWarnKind{
		WarnRetryExceeded, WarnRetryExceeded, WarnGIDIndex, WarnUnreachable, WarnMemlock, WarnMemlock,
		WarnGIDChanged, WarnIncompatible, WarnCompletionError, WarnUnknown,
	}
	if diff := cmp.Diff(wantKinds, kinds); diff != "" {
		t.Errorf("warning kinds mismatch (-want +got):\n%s", diff)
	}
}

func TestParseNCCLLogEmpty(t *testing.T) {
	got, err := ParseNCCLLog("")
	if err != nil {
		t.Fatal(err)
	}
	if got.Network != "" || got.GDRDMAChannels != 0 || len(got.Warnings) != 0 {
		t.Errorf("empty log gave %+v", got)
	}
}

func FuzzNCCLLog(f *testing.F) {
	addSeeds(f, "nccl_ib_gdr.txt", "nccl_socket.txt", "nccl_warn.txt", "nccl_ibext_merged.txt", "nccl_aws_libfabric.txt",
		"nccl_libfabric_229.txt", "nccl_socket_nodevice_229.txt", "nccl_socket_noverbs.txt", "nccl_ib_219.txt", "nccl_ibext_sharp.txt",
		"nccl_ib_229_gdr.txt", "nccl_ib_230_rail.txt", "nccl_ib_merged_222.txt", "nccl_socket_ibdisable_228.txt", "nccl_socket_lo.txt", "nccl_ibext_gdr_226.txt")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseNCCLLog(s)
		if err != nil {
			t.Fatalf("ParseNCCLLog never fails, got %v", err)
		}
		if l.GDRDMAChannels > l.NetChannels {
			t.Errorf("%d GDRDMA channels of %d NET channels", l.GDRDMAChannels, l.NetChannels)
		}
		if (l.Network == "") != (len(l.Networks) == 0) {
			t.Errorf("Network %q vs Networks %v", l.Network, l.Networks)
		}
	})
}

// TestParseNCCLLogReleasesAndPlugins reads the real and synthetic logs of
// testdata/SOURCES.md: every NCCL release's formats and external net
// plugins.
func TestParseNCCLLogReleasesAndPlugins(t *testing.T) {
	type view struct {
		Version, Network, OOB                     string
		HCAs, Sockets, ChannelNets, FailedPlugins []string
		NoIBDevice, IBVerbsMissing, IBDisabled    bool
		GDRByHCA                                  map[string]bool
		GDRPaths                                  []NCCLGDRPath
		NetChannels, GDRDMAChannels               int
	}
	hcas := func(l NCCLLog) []string {
		var out []string
		for _, h := range l.HCAs {
			out = append(out, fmt.Sprintf("%d:%s:%d/%s", h.Index, h.Device, h.Port, h.LinkLayer))
		}
		return out
	}
	for _, tc := range []struct {
		fixture string
		want    view
	}{
		{"nccl_ibext_merged.txt", view{Network: "IBext_v8", OOB: "bond0.526",
			HCAs:        []string{"0:mlx5_2:1/RoCE", "1:mlx5_3:1/RoCE", "2:mlx5_0:1/RoCE", "3:mlx5_1:1/RoCE"},
			ChannelNets: []string{"IBext_v8"}, GDRByHCA: map[string]bool{}, NetChannels: 3}},
		{"nccl_aws_libfabric.txt", view{ChannelNets: []string{"AWS Libfabric"}, GDRByHCA: map[string]bool{},
			NetChannels: 3, GDRDMAChannels: 3}},
		{"nccl_libfabric_229.txt", view{Version: "2.29.2+cuda12.8", Network: "Libfabric", ChannelNets: []string{"Libfabric"},
			GDRByHCA: map[string]bool{}, NetChannels: 2}},
		{"nccl_socket_nodevice_229.txt", view{Version: "2.29.7+cuda12.9", Network: "Socket", OOB: "enp129s0",
			Sockets: []string{"enp129s0", "wlp128s20f3", "tailscale0"}, FailedPlugins: []string{"IB"},
			NoIBDevice: true, GDRByHCA: map[string]bool{}}},
		{"nccl_socket_noverbs.txt", view{Network: "Socket", Sockets: []string{"eth0"}, IBVerbsMissing: true, GDRByHCA: map[string]bool{}}},
		{"nccl_ib_219.txt", view{Version: "2.19.3+cuda12.3", Network: "IB", OOB: "enp220s0np0",
			HCAs: []string{"0:mlx5_10:1/RoCE", "1:mlx5_11:1/RoCE"}, GDRByHCA: map[string]bool{}}},
		{"nccl_ibext_sharp.txt", view{Version: "2.21.5+cuda12.4", Network: "IBext_v8", OOB: "ib0.0065",
			HCAs:     []string{"0:mlx5_0:1/IB", "1:mlx5_1:1/IB", "2:mlx5_4:1/IB", "3:mlx5_5:1/IB", "4:mlx5_2:1/RoCE"},
			GDRByHCA: map[string]bool{}}},
		{"nccl_ibext_gdr_226.txt", view{Version: "2.26.6+cuda12.9", Network: "IBext_v10", OOB: "ens1f0np0",
			HCAs: []string{"0:mlx5_0:1/RoCE", "1:mlx5_1:1/RoCE"}, ChannelNets: []string{"IBext_v10"},
			GDRByHCA:    map[string]bool{"mlx5_0": true, "mlx5_1": true},
			GDRPaths:    []NCCLGDRPath{{GPU: "0", HCA: "0", Enabled: true, Detail: "distance 3 <= 4"}},
			NetChannels: 3, GDRDMAChannels: 3}},
		{"nccl_ib_229_gdr.txt", view{Version: "2.29.7+cuda12.9", Network: "IB", OOB: "ens9f0np0",
			HCAs: []string{"0:mlx5_0:1/RoCE", "1:mlx5_1:1/RoCE"}, ChannelNets: []string{"IB"},
			GDRByHCA: map[string]bool{"mlx5_0": true, "mlx5_1": true},
			GDRPaths: []NCCLGDRPath{
				{GPU: "0-98304", HCA: "0-0", Enabled: true, Detail: "distance 3 <= 4, read 1, mode Default"},
				{GPU: "0-98304", HCA: "0-1", Detail: "distance 6 > 4"},
			},
			NetChannels: 3, GDRDMAChannels: 3}},
		{"nccl_ib_230_rail.txt", view{Version: "2.30.7+cuda13.0", Network: "IB", OOB: "ens9f0np0",
			HCAs: []string{"0:mlx5_0:1/RoCE", "1:mlx5_1:1/RoCE"}, ChannelNets: []string{"IB"},
			GDRByHCA: map[string]bool{"mlx5_0": true, "mlx5_1": true}, NetChannels: 2, GDRDMAChannels: 2}},
		{"nccl_ib_merged_222.txt", view{Version: "2.22.3+cuda12.6", Network: "IB", OOB: "ens1f0np0",
			HCAs: []string{"0:mlx5_0:1/RoCE", "1:mlx5_1:1/RoCE", "1:mlx5_2:1/RoCE"}, ChannelNets: []string{"IB"},
			GDRByHCA: map[string]bool{"mlx5_0+mlx5_1": true, "mlx5_2": true}, NetChannels: 2, GDRDMAChannels: 2}},
		{"nccl_socket_ibdisable_228.txt", view{Version: "2.28.9+cuda12.9", Network: "Socket", Sockets: []string{"ens1f0np0"},
			ChannelNets: []string{"Socket"}, FailedPlugins: []string{"IB"}, IBDisabled: true, GDRByHCA: map[string]bool{}, NetChannels: 1}},
		{"nccl_socket_lo.txt", view{Version: "2.24.3+cuda12.6", Network: "Socket", OOB: "lo", Sockets: []string{"lo"},
			NoIBDevice: true, GDRByHCA: map[string]bool{}}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			l, err := ParseNCCLLog(fixture(t, tc.fixture))
			if err != nil {
				t.Fatal(err)
			}
			got := view{Version: l.Version, Network: l.Network, OOB: l.OOBIface, HCAs: hcas(l), Sockets: l.SocketIfaces,
				ChannelNets: l.ChannelNets, FailedPlugins: l.FailedPlugins, NoIBDevice: l.NoIBDevice,
				IBVerbsMissing: l.IBVerbsMissing, IBDisabled: l.IBDisabled, GDRByHCA: l.GDRByHCA, GDRPaths: l.GDRPaths,
				NetChannels: l.NetChannels, GDRDMAChannels: l.GDRDMAChannels}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseNCCLLog(%s) mismatch (-want +got):\n%s", tc.fixture, diff)
			}
		})
	}
}
