package preflight

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

// outcome is the part of a verdict most tests compare.
type outcome struct {
	Check, Subject string
	Pass           bool
}

// outcomes projects verdicts to their outcomes.
func outcomes(vs []verdict.Verdict) []outcome {
	out := make([]outcome, 0, len(vs))
	for _, v := range vs {
		out = append(out, outcome{v.Check, v.Subject, v.Pass})
	}
	return out
}

// only returns the verdicts of check.
func only(vs []verdict.Verdict, check string) []verdict.Verdict {
	var out []verdict.Verdict
	for _, v := range vs {
		if v.Check == check {
			out = append(out, v)
		}
	}
	return out
}

// wantText fails the test unless s contains every one of subs.
func wantText(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s = %q, want it to contain %q", what, s, sub)
		}
	}
}

// wellFormed fails the test for a verdict that breaks the verdict.Verdict contract:
// a known check id, a detail, and a remedy exactly when it failed.
func wellFormed(t *testing.T, vs []verdict.Verdict) {
	t.Helper()
	for _, v := range vs {
		if !knownChecks[v.Check] {
			t.Errorf("verdict %+v: unknown check id", v)
		}
		if v.Detail == "" {
			t.Errorf("verdict %+v: empty Detail", v)
		}
		if v.Pass != (v.Remedy == "") {
			t.Errorf("verdict %+v: Pass=%v with Remedy %q", v, v.Pass, v.Remedy)
		}
	}
}

var knownChecks = map[string]bool{
	CheckPortActive: true, CheckLinkLayer: true, CheckRoCEv2GID: true, CheckGIDIndex: true,
	CheckAffinity: true, CheckBAR1: true, CheckGPUDirect: true, CheckACS: true,
	CheckNCCLNetwork: true, CheckNCCLGDRHCA: true, CheckNCCLGDRPath: true, CheckNCCLGDRDMA: true,
	CheckNCCLWarn: true,
}

// port returns an ibv_devinfo port.
func port(num int, state string, code int, layer string) facts.IBPort {
	return facts.IBPort{Num: num, State: state, StateCode: code, ActiveMTU: 4096, MaxMTU: 4096, LinkLayer: layer}
}

// roceDevice returns a ConnectX-7 with one active RoCE port.
func roceDevice(name string) facts.IBDevice {
	return facts.IBDevice{Name: name, VendorPartID: 4129, PhysPortCount: 1,
		Ports: []facts.IBPort{port(1, "PORT_ACTIVE", facts.PortActive, "Ethernet")}}
}

// gidPair returns the RoCE v1 and v2 entries of an IPv4 address at
// index-1 and index.
func gidPair(device, netdev string, index int, hexIP string) []facts.GIDEntry {
	gid := "0000:0000:0000:0000:0000:ffff:" + hexIP
	return []facts.GIDEntry{
		{Device: device, Port: 1, Index: index - 1, GID: gid, Type: facts.GIDRoCEv1, Netdev: netdev, IPv4: true},
		{Device: device, Port: 1, Index: index, GID: gid, Type: facts.GIDRoCEv2, Netdev: netdev, IPv4: true},
	}
}

// linkLocal returns the link-local RoCE v1 and v2 entries at 0 and 1.
func linkLocal(device, netdev string) []facts.GIDEntry {
	gid := "fe80:0000:0000:0000:0ac0:ebff:fe1f:a112"
	return []facts.GIDEntry{
		{Device: device, Port: 1, Index: 0, GID: gid, Type: facts.GIDRoCEv1, Netdev: netdev},
		{Device: device, Port: 1, Index: 1, GID: gid, Type: facts.GIDRoCEv2, Netdev: netdev},
	}
}

// topology returns a matrix of GPUs and NICs; links[i][j] is the link from
// GPUi to NICj.
func topology(nics []string, links ...[]string) facts.Topology {
	t := facts.Topology{NICs: map[string]string{}, Links: map[string]map[string]string{}}
	for j, n := range nics {
		label := "NIC" + string(rune('0'+j))
		t.NICLabels = append(t.NICLabels, label)
		t.NICs[label] = n
	}
	for i, row := range links {
		gpu := "GPU" + string(rune('0'+i))
		t.GPUs = append(t.GPUs, gpu)
		t.Links[gpu] = map[string]string{gpu: "X"}
		for j, l := range row {
			t.Links[gpu][t.NICLabels[j]] = l
		}
	}
	return t
}

// goodHost returns the facts of a host on which every check passes: two
// ConnectX-7 RoCE ports with the RoCE v2 IPv4 GID at index 3, GPU0 PIX to
// mlx5_0 and GPU1 PXB to mlx5_1, 128 GiB BAR1, nvidia-peermem loaded and
// registered, kernel 6.8 with the open GPU kernel modules.
func goodHost() host.Facts {
	return host.Facts{
		Host:      "gpu-a01",
		Gathered:  host.AllFacts(),
		OFED:      facts.OFEDInfo{Flavor: facts.OFEDDOCA, Version: "25.10-1.7.1"},
		Kernel:    host.Kernel{Release: "6.8.0-45-generic", Major: 6, Minor: 8},
		IBDevices: []facts.IBDevice{roceDevice("mlx5_0"), roceDevice("mlx5_1")},
		Netdevs: []host.Netdev{
			{Name: "ens1f0np0", RDMADevice: "mlx5_0", OperState: "up", MTU: 9000},
			{Name: "ens1f1np1", RDMADevice: "mlx5_1", OperState: "up", MTU: 9000},
		},
		GIDs: slices.Concat(
			linkLocal("mlx5_0", "ens1f0np0"), gidPair("mlx5_0", "ens1f0np0", 3, "0a0c:0015"),
			linkLocal("mlx5_1", "ens1f1np1"), gidPair("mlx5_1", "ens1f1np1", 3, "0a0d:0015"),
		),
		Topology: topology([]string{"mlx5_0", "mlx5_1"}, []string{"PIX", "SYS"}, []string{"SYS", "PXB"}),
		GPUMemory: []facts.GPUMemory{
			{BusID: "00000000:18:00.0", FBTotal: 81559, BAR1Total: 131072, BAR1Used: 1, BAR1Free: 131071},
			{BusID: "00000000:2A:00.0", FBTotal: 81559, BAR1Total: 131072, BAR1Used: 1, BAR1Free: 131071},
		},
		Modules: map[string]facts.Module{"nvidia_peermem": {}, "nvidia": {}, "mlx5_ib": {}, "ib_core": {}},
		PeerMem: facts.PeerMem{Registered: true, Version: "550.54.15"},
		NVIDIA:  facts.NVIDIADriver{Version: "550.54.15", Open: true},
	}
}

// without returns f with the facts of fs marked as not gathered.
func without(f host.Facts, fs ...host.FactID) host.Facts {
	var keep []host.FactID
	for _, k := range f.Gathered.IDs() {
		drop := false
		for _, x := range fs {
			drop = drop || k == x
		}
		if !drop {
			keep = append(keep, k)
		}
	}
	f.Gathered = host.WantFacts(keep...)
	return f
}

// absent returns f with fact recorded as unreadable for reason.
func absent(f host.Facts, fact host.FactID, reason string) host.Facts {
	f.Absent = map[string]string{fact.String(): reason}
	return f
}

// fixture returns the content of a real output sample of the facts
// package's testdata.
func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "host", "facts", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ncclFixture parses a recorded NCCL log.
func ncclFixture(t *testing.T, name string) *facts.NCCLLog {
	t.Helper()
	l, err := facts.ParseNCCLLog(fixture(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return &l
}
