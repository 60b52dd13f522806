package facts

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

func ncclTestCommand() shell.Command { return shell.New("all_reduce_perf", "-b", "8", "-e", "1G") }

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
		Version:     "2.18.3+cuda12.2",
		Network:     "Socket",
		Networks:    []string{"Socket"},
		NoIBDevice:  true,
		GDRByHCA:    map[string]bool{},
		GDRPaths:    []NCCLGDRPath{{GPU: "42000", HCA: "0", Enabled: false, Detail: "distance 6 > 4"}},
		NetChannels: 2,
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

func TestWithNCCLDebug(t *testing.T) {
	cmd := WithNCCLDebug(ncclTestCommand())
	want := "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET all_reduce_perf -b 8 -e 1G"
	if got := cmd.String(); got != want {
		t.Errorf("WithNCCLDebug() = %q, want %q", got, want)
	}
}

func FuzzNCCLLog(f *testing.F) {
	addSeeds(f, "nccl_ib_gdr.txt", "nccl_socket.txt", "nccl_warn.txt")
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
