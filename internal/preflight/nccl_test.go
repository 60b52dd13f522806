package preflight

import (
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/google/go-cmp/cmp"
)

// The recorded logs: a healthy RoCE run with GDR, a fallback to Socket, and
// a run full of warnings whose ranks disagreed on the network.
func TestCheckNCCLFixtures(t *testing.T) {
	tests := []struct {
		file    string
		want    []outcome
		details map[string][]string // by check, in the first verdict of it
		remedy  map[string][]string
	}{
		{"nccl_ib_gdr.txt", []outcome{
			{CheckNCCLNetwork, "", true},
			{CheckNCCLGDRHCA, "mlx5_0", true}, {CheckNCCLGDRHCA, "mlx5_1", true},
			{CheckNCCLGDRPath, "GPU 18000 / HCA 0", true},
			{CheckNCCLGDRDMA, "", true},
			{CheckNCCLWarn, "", true},
		}, map[string][]string{
			CheckNCCLNetwork: {"NCCL 2.21.5+cuda12.4 using network IB; HCAs mlx5_0:1/RoCE mlx5_1:1/RoCE"},
			CheckNCCLGDRPath: {"GPU Direct RDMA enabled (distance 3 <= 3)"},
			CheckNCCLGDRDMA:  {"4 of 4 network channels via GDRDMA"},
		}, nil},
		{"nccl_socket.txt", []outcome{
			{CheckNCCLNetwork, "", false},
			{CheckNCCLGDRHCA, "", true},
			{CheckNCCLGDRPath, "GPU 42000 / HCA 0", false},
			{CheckNCCLGDRDMA, "", false},
			{CheckNCCLWarn, "", true},
		}, map[string][]string{
			CheckNCCLNetwork: {"NCCL 2.18.3+cuda12.2 using network Socket over eth0"},
			CheckNCCLGDRHCA:  {"no per-HCA GPU Direct RDMA lines"},
			CheckNCCLGDRPath: {"GPU Direct RDMA disabled (distance 6 > 4)"},
			CheckNCCLGDRDMA:  {"0 of 2 network channels via GDRDMA"},
		}, map[string][]string{
			CheckNCCLNetwork: {"NET/IB : No device found.", "/dev/infiniband", "NCCL_IB_HCA matches no device"},
			CheckNCCLGDRPath: {"NCCL_NET_GDR_LEVEL"},
			CheckNCCLGDRDMA:  {"fix nccl_network first"},
		}},
		{"nccl_warn.txt", []outcome{
			{CheckNCCLNetwork, "", false},
			{CheckNCCLGDRHCA, "mlx5_0", false},
			{CheckNCCLGDRDMA, "", false},
			{CheckNCCLWarn, "retry-exceeded", false}, {CheckNCCLWarn, "retry-exceeded", false},
			{CheckNCCLWarn, "gid-index", false}, {CheckNCCLWarn, "network-unreachable", false},
			{CheckNCCLWarn, "memlock", false}, {CheckNCCLWarn, "memlock", false},
			{CheckNCCLWarn, "gid-table-changed", false}, {CheckNCCLWarn, "incompatible-devices", false},
			{CheckNCCLWarn, "completion-error", false}, {CheckNCCLWarn, "unknown", false},
		}, map[string][]string{
			CheckNCCLNetwork: {"using network IB, Socket: ranks disagreed, some fell back to Socket"},
			CheckNCCLGDRHCA:  {"GPU Direct RDMA disabled"},
			CheckNCCLGDRDMA:  {"no channel goes via NET"},
			CheckNCCLWarn:    {"status=12", "usual cause: transport retry counter exceeded"},
		}, map[string][]string{
			CheckNCCLNetwork: {"compare the hosts whose ranks fell back"},
			CheckNCCLGDRHCA:  {"see gpudirect"},
			CheckNCCLGDRDMA:  {"NCCL_DEBUG_SUBSYS=INIT,NET"},
			CheckNCCLWarn:    {"PFC on the RDMA priority"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got := checkNCCL(*ncclFixture(t, tt.file), DefaultOptions())
			wellFormed(t, got)
			if diff := cmp.Diff(tt.want, outcomes(got)); diff != "" {
				t.Fatalf("outcomes mismatch (-want +got):\n%s", diff)
			}
			for check, subs := range tt.details {
				wantText(t, check+" detail", only(got, check)[0].Detail, subs...)
			}
			for check, subs := range tt.remedy {
				wantText(t, check+" remedy", only(got, check)[0].Remedy, subs...)
			}
		})
	}
}

// TestCheckNCCLReleasesAndPlugins judges the logs of every NCCL release and
// of external net plugins (facts/testdata/SOURCES.md): RDMA through a plugin
// passes, and a Socket fallback names the cause its log shows.
func TestCheckNCCLReleasesAndPlugins(t *testing.T) {
	for _, tc := range []struct {
		file                    string
		network, gdrdma         bool
		networkText, remedyText []string
	}{
		{"nccl_ibext_merged.txt", true, false, []string{"using network IBext_v8 (external net plugin)", "mlx5_2:1/RoCE mlx5_3:1/RoCE mlx5_0:1/RoCE mlx5_1:1/RoCE"}, nil},
		{"nccl_aws_libfabric.txt", false, true, []string{"no \"Using network\" line"}, nil},
		{"nccl_ibext_gdr_226.txt", true, true, []string{"NCCL 2.26.6+cuda12.9 using network IBext_v10 (external net plugin)"}, nil},
		{"nccl_ib_229_gdr.txt", true, true, []string{"NCCL 2.29.7+cuda12.9 using network IB"}, nil},
		{"nccl_ib_230_rail.txt", true, true, []string{"NCCL 2.30.7+cuda13.0 using network IB; HCAs mlx5_0:1/RoCE mlx5_1:1/RoCE"}, nil},
		{"nccl_ib_merged_222.txt", true, true, []string{"mlx5_0:1/RoCE mlx5_1:1/RoCE mlx5_2:1/RoCE"}, nil},
		{"nccl_socket_noverbs.txt", false, false, []string{"using network Socket over eth0"}, []string{"libibverbs could not be loaded", "Failed to open libibverbs.so"}},
		{"nccl_socket_ibdisable_228.txt", false, false, []string{"using network Socket over ens1f0np0"}, []string{"NCCL_IB_DISABLE=1 is set"}},
		{"nccl_socket_nodevice_229.txt", false, false, []string{"Socket over enp129s0, wlp128s20f3, tailscale0"}, []string{"No device found", "/dev/infiniband"}},
		{"nccl_socket_lo.txt", false, false, []string{"Socket over lo"}, []string{"only the loopback interface lo"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got := checkNCCL(*ncclFixture(t, tc.file), Options{RequireGDR: true, ExpectedGIDIndex: -1})
			wellFormed(t, got)
			nw, ch := only(got, CheckNCCLNetwork)[0], only(got, CheckNCCLGDRDMA)[0]
			if nw.Pass != tc.network || ch.Pass != tc.gdrdma {
				t.Errorf("nccl_network pass = %v (%s), nccl_gdrdma_channels pass = %v (%s); want %v, %v",
					nw.Pass, nw.Detail, ch.Pass, ch.Detail, tc.network, tc.gdrdma)
			}
			wantText(t, "nccl_network detail", nw.Detail, tc.networkText...)
			wantText(t, "nccl_network remedy", nw.Remedy, tc.remedyText...)
			for _, v := range only(got, CheckNCCLGDRHCA) {
				if v.Subject == "lo" {
					t.Errorf("nccl_gdr_hca judges the Socket net's interface lo: %+v", v)
				}
			}
		})
	}
}

func TestCheckNCCLWarnings(t *testing.T) {
	got := only(checkNCCL(*ncclFixture(t, "nccl_warn.txt"), DefaultOptions()), CheckNCCLWarn)
	// An unknown warning gets a generic remedy; a known one keeps the
	// parser's.
	unknown := got[len(got)-1]
	wantText(t, "unknown detail", unknown.Detail, "Cuda failure 'out of memory'")
	wantText(t, "unknown remedy", unknown.Remedy, "NCCL's troubleshooting guide")
	if unknown.Detail != "node1:2001:2053 [0] NCCL WARN Cuda failure 'out of memory'" {
		t.Errorf("unknown detail = %q, want the bare line", unknown.Detail)
	}
	gid := got[2]
	wantText(t, "gid-index remedy", gid.Remedy, "unset NCCL_IB_GID_INDEX")
	memlock := got[4]
	wantText(t, "memlock remedy", memlock.Remedy, "memlock unlimited")
}

func TestCheckNCCLSynthetic(t *testing.T) {
	notRequired := DefaultOptions()
	notRequired.RequireGDR = false
	tests := []struct {
		name       string
		l          facts.NCCLLog
		o          Options
		want       []outcome
		check      string // whose first verdict the texts are about
		wantDetail string
		wantRemedy string
	}{
		{"empty log", facts.NCCLLog{}, DefaultOptions(), []outcome{
			{CheckNCCLNetwork, "", false}, {CheckNCCLGDRHCA, "", true}, {CheckNCCLGDRDMA, "", false}, {CheckNCCLWarn, "", true},
		}, CheckNCCLNetwork, "no \"Using network\" line", "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET"},
		{"HPC-X IBext plugin", facts.NCCLLog{Network: "IBext", Networks: []string{"IBext"}, NetChannels: 2, GDRDMAChannels: 2},
			DefaultOptions(), []outcome{
				{CheckNCCLNetwork, "", true}, {CheckNCCLGDRHCA, "", true}, {CheckNCCLGDRDMA, "", true}, {CheckNCCLWarn, "", true},
			}, CheckNCCLNetwork, "using network IBext", ""},
		{"some channels without GDR", facts.NCCLLog{Network: "IB", Networks: []string{"IB"}, NetChannels: 4, GDRDMAChannels: 3},
			DefaultOptions(), []outcome{
				{CheckNCCLNetwork, "", true}, {CheckNCCLGDRHCA, "", true}, {CheckNCCLGDRDMA, "", true}, {CheckNCCLWarn, "", true},
			}, CheckNCCLGDRDMA, "3 of 4 network channels via GDRDMA, 1 without", ""},
		{"GDR off, not required", facts.NCCLLog{Network: "IB", Networks: []string{"IB"}, NetChannels: 2,
			GDRByHCA: map[string]bool{"mlx5_1": false, "mlx5_0": true}}, notRequired, []outcome{
			{CheckNCCLNetwork, "", true}, {CheckNCCLGDRHCA, "mlx5_0", true}, {CheckNCCLGDRHCA, "mlx5_1", true},
			{CheckNCCLGDRDMA, "", true}, {CheckNCCLWarn, "", true},
		}, CheckNCCLGDRDMA, "0 of 2 network channels via GDRDMA (GPU Direct RDMA not required)", ""},
		{"repeated GPU/HCA lines, the last wins", facts.NCCLLog{Network: "IB", Networks: []string{"IB"}, NetChannels: 1, GDRDMAChannels: 1,
			GDRPaths: []facts.NCCLGDRPath{
				{GPU: "18000", HCA: "0", Enabled: true}, {GPU: "2a000", HCA: "1", Enabled: true},
				{GPU: "18000", HCA: "0", Enabled: false, Detail: "distance 5 > 3"},
			}}, DefaultOptions(), []outcome{
			{CheckNCCLNetwork, "", true}, {CheckNCCLGDRHCA, "", true},
			{CheckNCCLGDRPath, "GPU 18000 / HCA 0", false}, {CheckNCCLGDRPath, "GPU 2a000 / HCA 1", true},
			{CheckNCCLGDRDMA, "", true}, {CheckNCCLWarn, "", true},
		}, CheckNCCLGDRPath, "GPU Direct RDMA disabled (distance 5 > 3)", "gpu_nic_affinity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkNCCL(tt.l, tt.o)
			wellFormed(t, got)
			if diff := cmp.Diff(tt.want, outcomes(got)); diff != "" {
				t.Fatalf("outcomes mismatch (-want +got):\n%s", diff)
			}
			v := only(got, tt.check)[0]
			wantText(t, "detail", v.Detail, tt.wantDetail)
			wantText(t, "remedy", v.Remedy, tt.wantRemedy)
		})
	}
}

// TestCheckNCCLPluginAllPass: a log of an external net plugin with GPU Direct
// RDMA on every channel passes every NCCL check, GDR required.
func TestCheckNCCLPluginAllPass(t *testing.T) {
	for _, v := range checkNCCL(*ncclFixture(t, "nccl_ibext_gdr_226.txt"), Options{RequireGDR: true, ExpectedGIDIndex: -1}) {
		if !v.Pass {
			t.Errorf("%s %s failed: %s (%s)", v.Check, v.Subject, v.Detail, v.Remedy)
		}
	}
}
