package preflight

import (
	"slices"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/google/go-cmp/cmp"
)

func TestCheckGIDs(t *testing.T) {
	// mlx5_1 has an extra IPv6 global ahead of its IPv4 address: v2 IPv4 at 5.
	moved := goodHost()
	moved.GIDs = slices.Concat(
		linkLocal("mlx5_0", "ens1f0np0"), gidPair("mlx5_0", "ens1f0np0", 3, "0a0c:0015"),
		linkLocal("mlx5_1", "ens1f1np1"),
		[]facts.GIDEntry{{Device: "mlx5_1", Port: 1, Index: 3, GID: "2001:0db8:0000:0000:0000:0000:0000:0021", Type: facts.GIDRoCEv2, Netdev: "ens1f1np1"}},
		gidPair("mlx5_1", "ens1f1np1", 5, "0a0d:0015"),
	)
	// mlx5_1 has only its link-local and a RoCE v1 IPv4 entry.
	noV2 := goodHost()
	noV2.GIDs = slices.Concat(
		linkLocal("mlx5_0", "ens1f0np0"), gidPair("mlx5_0", "ens1f0np0", 3, "0a0c:0015"),
		linkLocal("mlx5_1", "ens1f1np1"), gidPair("mlx5_1", "ens1f1np1", 3, "0a0d:0015")[:1],
	)
	bare := goodHost()
	bare.GIDs = slices.Concat(linkLocal("mlx5_0", "ens1f0np0"), linkLocal("mlx5_1", "ens1f1np1"))
	// An InfiniBand device has no RoCE GIDs and is left to nic_link_layer.
	withIB := goodHost()
	withIB.IBDevices = append(withIB.IBDevices, facts.IBDevice{Name: "mlx5_ib0",
		Ports: []facts.IBPort{port(1, "PORT_ACTIVE", facts.PortActive, "InfiniBand")}})
	onlyIB := goodHost()
	onlyIB.IBDevices = withIB.IBDevices[2:]

	expect := func(i int) Options { o := DefaultOptions(); o.ExpectedGIDIndex = i; return o }
	old, current := &facts.NCCLLog{Version: "2.18.3+cuda12.2"}, &facts.NCCLLog{Version: "2.21.5+cuda12.4"}
	withLog := func(l *facts.NCCLLog) Options { o := DefaultOptions(); o.NCCLLog = l; return o }

	tests := []struct {
		name       string
		f          host.Facts
		o          Options
		want       []outcome
		wantDetail string // of the last verdict, gid_index_consistent
		wantRemedy string
	}{
		{"same index everywhere", goodHost(), DefaultOptions(), []outcome{
			{CheckRoCEv2GID, "mlx5_0", true}, {CheckRoCEv2GID, "mlx5_1", true}, {CheckGIDIndex, "", true},
		}, "RoCE v2 IPv4 GID index mlx5_0=3, mlx5_1=3", ""},
		{"index moved on one device", moved, DefaultOptions(), []outcome{
			{CheckRoCEv2GID, "mlx5_0", true}, {CheckRoCEv2GID, "mlx5_1", true}, {CheckGIDIndex, "", false},
		}, "mlx5_0=3, mlx5_1=5: the indexes differ", "NCCL ≥ 2.21"},
		{"expected index matches", goodHost(), expect(3), []outcome{
			{CheckRoCEv2GID, "mlx5_0", true}, {CheckRoCEv2GID, "mlx5_1", true}, {CheckGIDIndex, "", true},
		}, "mlx5_0=3, mlx5_1=3", ""},
		{"expected index differs", goodHost(), expect(0), []outcome{
			{CheckRoCEv2GID, "mlx5_0", true}, {CheckRoCEv2GID, "mlx5_1", true}, {CheckGIDIndex, "", false},
		}, "expected 0, differs on mlx5_0=3, mlx5_1=3", "NCCL_IB_GID_INDEX=0 selects a wrong GID"},
		{"expected index differs on one", moved, expect(3), []outcome{
			{CheckRoCEv2GID, "mlx5_0", true}, {CheckRoCEv2GID, "mlx5_1", true}, {CheckGIDIndex, "", false},
		}, "differs on mlx5_1=5", "leave NCCL_IB_GID_INDEX unset"},
		{"one device without RoCE v2 IPv4", noV2, DefaultOptions(), []outcome{
			{CheckRoCEv2GID, "mlx5_0", true}, {CheckRoCEv2GID, "mlx5_1", false}, {CheckGIDIndex, "", true},
		}, "mlx5_0=3; none on mlx5_1", ""},
		{"no IPv4 anywhere", bare, DefaultOptions(), []outcome{
			{CheckRoCEv2GID, "mlx5_0", false}, {CheckRoCEv2GID, "mlx5_1", false}, {CheckGIDIndex, "", false},
		}, "no RoCE device has a RoCE v2 IPv4 GID", "roce_v2_gid"},
		{"InfiniBand device skipped", withIB, DefaultOptions(), []outcome{
			{CheckRoCEv2GID, "mlx5_0", true}, {CheckRoCEv2GID, "mlx5_1", true}, {CheckGIDIndex, "", true},
		}, "mlx5_0=3, mlx5_1=3", ""},
		{"NCCL before 2.21", goodHost(), withLog(old), []outcome{
			{CheckRoCEv2GID, "mlx5_0", true}, {CheckRoCEv2GID, "mlx5_1", true}, {CheckGIDIndex, "", true},
		}, "NCCL 2.18.3+cuda12.2 uses GID index 0 (link-local RoCE v1) unless NCCL_IB_GID_INDEX=3 is set", ""},
		{"GID table not gathered", without(goodHost(), host.FactGIDs), DefaultOptions(),
			[]outcome{{CheckRoCEv2GID, "", false}}, "not checked: gid_table not gathered", "gather gid_table"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkGIDs(tt.f, tt.o)
			wellFormed(t, got)
			if diff := cmp.Diff(tt.want, outcomes(got)); diff != "" {
				t.Fatalf("outcomes mismatch (-want +got):\n%s", diff)
			}
			last := got[len(got)-1]
			wantText(t, "detail", last.Detail, tt.wantDetail)
			wantText(t, "remedy", last.Remedy, tt.wantRemedy)
		})
	}

	if got := checkGIDs(onlyIB, DefaultOptions()); len(got) != 0 {
		t.Errorf("InfiniBand-only host: got %+v, want no GID verdicts", got)
	}
	if got := checkGIDs(goodHost(), withLog(current)); got[2].Detail != "RoCE v2 IPv4 GID index mlx5_0=3, mlx5_1=3" {
		t.Errorf("NCCL 2.21 detail = %q, want no version note", got[2].Detail)
	}
}

func TestCheckGIDsDetail(t *testing.T) {
	got := checkGIDs(goodHost(), DefaultOptions())
	if want := "RoCE v2 IPv4 GID at index 3 (10.12.0.21 on ens1f0np0)"; got[0].Detail != want {
		t.Errorf("mlx5_0 detail = %q, want %q", got[0].Detail, want)
	}
	f := goodHost()
	f.GIDs = f.GIDs[:4]
	got = checkGIDs(f, DefaultOptions())
	wantText(t, "mlx5_1 remedy", got[1].Remedy, "give ens1f1np1 an IPv4 address")
}

func TestNCCLVersion(t *testing.T) {
	tests := []struct {
		in           string
		major, minor int
		ok           bool
	}{
		{"2.21.5+cuda12.4", 2, 21, true},
		{"2.18.3", 2, 18, true},
		{"2.30", 2, 30, true},
		{"", 0, 0, false},
		{"2", 0, 0, false},
		{"x.y.z", 0, 0, false},
	}
	for _, tt := range tests {
		major, minor, ok := ncclVersion(tt.in)
		if ok != tt.ok || ok && (major != tt.major || minor != tt.minor) {
			t.Errorf("ncclVersion(%q) = %d, %d, %v; want %d, %d, %v", tt.in, major, minor, ok, tt.major, tt.minor, tt.ok)
		}
	}
}
