package preflight

import (
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
	"github.com/google/go-cmp/cmp"
)

// sampleHost builds the facts of a host from the real output samples of the
// facts package, parsed by its parsers.
func sampleHost(t *testing.T) host.Facts {
	t.Helper()
	f := host.Facts{Host: "gpu-a01", Gathered: host.AllFacts()}
	var err error
	must := func(e error) {
		t.Helper()
		if e != nil {
			t.Fatal(e)
		}
	}
	f.IBDevices, err = facts.ParseIBVDevinfo(fixture(t, "ibv_devinfo.txt"))
	must(err)
	f.DevNetdevs, err = facts.ParseIBDev2Netdev(fixture(t, "ibdev2netdev.txt"))
	must(err)
	f.GIDs, err = facts.ParseGIDTable(fixture(t, "gid_table.txt"))
	must(err)
	f.Topology, err = facts.ParseTopo(fixture(t, "topo_h100.txt"))
	must(err)
	f.GPUMemory, err = facts.ParseGPUMemory(fixture(t, "nvidia_smi_memory.txt"))
	must(err)
	f.Modules, err = facts.ParseLsmod(fixture(t, "lsmod.txt"))
	must(err)
	f.NVIDIA, err = facts.ParseNVIDIAVersion(fixture(t, "nvidia_version_open.txt"))
	must(err)
	f.OFED, err = facts.ParseOFEDInfo(fixture(t, "ofed_info_doca.txt"))
	must(err)
	f.PeerMem, err = facts.ParsePeerMem("registered\n550.54.15\n")
	must(err)
	f.Kernel, err = host.ParseKernelRelease("6.8.0-45-generic\n")
	must(err)
	return f
}

// Check runs every check in the documented order on real output formats.
func TestCheckSampleHost(t *testing.T) {
	o := DefaultOptions()
	o.MinBAR1MiB = 32768
	o.NCCLLog = ncclFixture(t, "nccl_ib_gdr.txt")
	got := Check(sampleHost(t), o)
	wellFormed(t, got)
	want := []outcome{
		{CheckPortActive, "mlx5_0:1", true}, {CheckPortActive, "mlx5_1:1", false},
		{CheckPortActive, "mlx5_2:1", true}, {CheckPortActive, "mlx5_2:2", false},
		{CheckLinkLayer, "mlx5_0:1", true}, {CheckLinkLayer, "mlx5_1:1", true},
		{CheckLinkLayer, "mlx5_2:1", false}, {CheckLinkLayer, "mlx5_2:2", false},
		{CheckRoCEv2GID, "mlx5_0", true}, {CheckRoCEv2GID, "mlx5_1", true}, {CheckGIDIndex, "", false},
		{CheckAffinity, "GPU0", true}, {CheckAffinity, "GPU1", true},
		{CheckAffinity, "GPU2", false}, {CheckAffinity, "GPU3", false},
		{CheckBAR1, "GPU0", true}, {CheckBAR1, "GPU1", false},
		{CheckGPUDirect, "", true},
		{CheckACS, "", true},
		{CheckNCCLNetwork, "", true},
		{CheckNCCLGDRHCA, "mlx5_0", true}, {CheckNCCLGDRHCA, "mlx5_1", true},
		{CheckNCCLGDRPath, "GPU 18000 / HCA 0", true},
		{CheckNCCLGDRDMA, "", true},
		{CheckNCCLWarn, "", true},
	}
	if diff := cmp.Diff(want, outcomes(got)); diff != "" {
		t.Fatalf("outcomes mismatch (-want +got):\n%s", diff)
	}
	// The sample's GID table has the RoCE v2 IPv4 entry at 5 on mlx5_0 (an
	// IPv6 global comes first) and at 3 on mlx5_1.
	gid := only(got, CheckGIDIndex)[0]
	wantText(t, "gid_index_consistent detail", gid.Detail, "mlx5_0=5, mlx5_1=3")
	wantText(t, "mlx5_0 GID", only(got, CheckRoCEv2GID)[0].Detail, "index 5 (10.12.0.21 on ens1f0np0)")

	if diff := cmp.Diff(got, Check(sampleHost(t), o)); diff != "" {
		t.Errorf("second Check differs (-first +second):\n%s", diff)
	}
	if p, f := verdict.Count(got); p != 17 || f != 8 {
		t.Errorf("Summary = %d passed, %d failed; want 17, 8", p, f)
	}
}

func TestCheckGoodHost(t *testing.T) {
	got := Check(goodHost(), DefaultOptions())
	wellFormed(t, got)
	for _, v := range got {
		if !v.Pass {
			t.Errorf("good host: %+v failed", v)
		}
	}
	if len(only(got, CheckNCCLNetwork)) != 0 {
		t.Error("no NCCL log: got nccl_network verdicts")
	}
	if p, f := verdict.Count(got); p != len(got) || f != 0 {
		t.Errorf("Summary = %d, %d; want %d, 0", p, f, len(got))
	}
}

// A host whose gather read nothing fails every check it cannot run, and
// says so, instead of passing on zero values.
func TestCheckNothingGathered(t *testing.T) {
	got := Check(host.Facts{}, DefaultOptions())
	wellFormed(t, got)
	want := []outcome{
		{CheckPortActive, "", false}, {CheckRoCEv2GID, "", false}, {CheckAffinity, "", false},
		{CheckBAR1, "", false}, {CheckGPUDirect, "", false}, {CheckACS, "", true},
	}
	if diff := cmp.Diff(want, outcomes(got)); diff != "" {
		t.Fatalf("outcomes mismatch (-want +got):\n%s", diff)
	}
	wantText(t, "gid detail", got[1].Detail, "not checked: ibv_devinfo not gathered; gid_table not gathered")
	wantText(t, "gid remedy", got[1].Remedy, "gather ibv_devinfo, gid_table; it needs ibv_devinfo (ibverbs-utils or OFED) with mlx5_ib loaded, mlx5_ib loaded")
}

func TestSummary(t *testing.T) {
	tests := []struct {
		vs             []verdict.Verdict
		passed, failed int
	}{
		{nil, 0, 0},
		{[]verdict.Verdict{{Pass: true}}, 1, 0},
		{[]verdict.Verdict{{Pass: true}, {Pass: false}, {Pass: false}}, 1, 2},
	}
	for _, tt := range tests {
		if p, f := verdict.Count(tt.vs); p != tt.passed || f != tt.failed {
			t.Errorf("verdict.Count(%v) = %d, %d; want %d, %d", tt.vs, p, f, tt.passed, tt.failed)
		}
	}
}

func TestDefaultOptions(t *testing.T) {
	want := Options{RequireGDR: true, ExpectedGIDIndex: -1}
	if diff := cmp.Diff(want, DefaultOptions()); diff != "" {
		t.Errorf("DefaultOptions mismatch (-want +got):\n%s", diff)
	}
}
