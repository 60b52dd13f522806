package preflight

import (
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/google/go-cmp/cmp"
)

func TestCheckAffinity(t *testing.T) {
	nics := []string{"mlx5_0", "mlx5_1"}
	withTopo := func(topo facts.Topology) host.Facts { f := goodHost(); f.Topology = topo; return f }
	notRequired := DefaultOptions()
	notRequired.RequireGDR = false

	tests := []struct {
		name       string
		f          host.Facts
		o          Options
		want       []outcome
		wantDetail string // of the last verdict
		wantRemedy string
	}{
		{"PIX and PXB", goodHost(), DefaultOptions(),
			[]outcome{{CheckAffinity, "GPU0", true}, {CheckAffinity, "GPU1", true}},
			"closest NIC mlx5_1 via PXB (several PCIe bridges, no host bridge)", ""},
		{"PHB", withTopo(topology(nics, []string{"PIX", "SYS"}, []string{"SYS", "PHB"})), DefaultOptions(),
			[]outcome{{CheckAffinity, "GPU0", true}, {CheckAffinity, "GPU1", false}},
			"closest NIC mlx5_1 via PHB", "GDR will be off or slow for GPU1"},
		{"NODE, closest of two wins", withTopo(topology(nics, []string{"PIX", "SYS"}, []string{"SYS", "NODE"})), DefaultOptions(),
			[]outcome{{CheckAffinity, "GPU0", true}, {CheckAffinity, "GPU1", false}},
			"closest NIC mlx5_1 via NODE", "pin NCCL to mlx5_1"},
		{"SYS only", withTopo(topology(nics, []string{"PIX", "SYS"}, []string{"SYS", "SYS"})), DefaultOptions(),
			[]outcome{{CheckAffinity, "GPU0", true}, {CheckAffinity, "GPU1", false}},
			"closest NIC mlx5_0 via SYS (across the link between CPU sockets, QPI/UPI)", "other CPU socket"},
		{"PHB without GDR required", withTopo(topology(nics, []string{"PHB", "SYS"})), notRequired,
			[]outcome{{CheckAffinity, "GPU0", true}},
			"via PHB (through a PCIe host bridge, typically the CPU) (GPU Direct RDMA not required)", ""},
		{"no NIC", withTopo(topology(nil, []string{})), DefaultOptions(),
			[]outcome{{CheckAffinity, "GPU0", false}}, "lists no NIC", "mlx5_ib"},
		{"no GPU", withTopo(topology(nics)), DefaultOptions(),
			[]outcome{{CheckAffinity, "", false}}, "lists no GPUs", "NVIDIA driver"},
		{"not readable", absent(goodHost(), host.FactTopology, "nvidia-smi: command not found"), DefaultOptions(),
			[]outcome{{CheckAffinity, "", false}}, "nvidia-smi topo could not be read", "nvidia-smi with the NVIDIA driver loaded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkAffinity(tt.f, tt.o)
			wellFormed(t, got)
			if diff := cmp.Diff(tt.want, outcomes(got)); diff != "" {
				t.Fatalf("outcomes mismatch (-want +got):\n%s", diff)
			}
			last := got[len(got)-1]
			wantText(t, "detail", last.Detail, tt.wantDetail)
			wantText(t, "remedy", last.Remedy, tt.wantRemedy)
		})
	}
}

// The real H100 sample: GPU0 PIX, GPU1 PXB, GPU2 NODE, GPU3 PHB.
func TestCheckAffinityH100(t *testing.T) {
	topo, err := facts.ParseTopo(fixture(t, "topo_h100.txt"))
	if err != nil {
		t.Fatal(err)
	}
	f := goodHost()
	f.Topology = topo
	got := checkAffinity(f, DefaultOptions())
	want := []outcome{
		{CheckAffinity, "GPU0", true}, {CheckAffinity, "GPU1", true},
		{CheckAffinity, "GPU2", false}, {CheckAffinity, "GPU3", false},
	}
	if diff := cmp.Diff(want, outcomes(got)); diff != "" {
		t.Fatalf("outcomes mismatch (-want +got):\n%s", diff)
	}
	wantText(t, "GPU0", got[0].Detail, "closest NIC mlx5_0 via PIX")
	wantText(t, "GPU3", got[3].Detail, "closest NIC mlx5_2 via PHB")
}

// Old drivers label NICs by their RDMA device and print no NIC legend.
func TestCheckAffinityOldFormat(t *testing.T) {
	topo, err := facts.ParseTopo(fixture(t, "topo_old.txt"))
	if err != nil {
		t.Fatal(err)
	}
	f := goodHost()
	f.Topology = topo
	got := checkAffinity(f, DefaultOptions())
	want := []outcome{{CheckAffinity, "GPU0", false}, {CheckAffinity, "GPU1", false}}
	if diff := cmp.Diff(want, outcomes(got)); diff != "" {
		t.Fatalf("outcomes mismatch (-want +got):\n%s", diff)
	}
	wantText(t, "GPU1", got[1].Detail, "closest NIC mlx5_1 via NODE")
}
