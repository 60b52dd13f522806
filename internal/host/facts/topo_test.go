package facts

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTopo(t *testing.T) {
	got, err := ParseTopo(fixture(t, "topo_h100.txt"))
	if err != nil {
		t.Fatalf("ParseTopo() error: %v", err)
	}
	if diff := cmp.Diff([]string{"GPU0", "GPU1", "GPU2", "GPU3"}, got.GPUs); diff != "" {
		t.Errorf("GPUs mismatch (-want +got):\n%s", diff)
	}
	wantNICs := map[string]string{"NIC0": "mlx5_0", "NIC1": "mlx5_1", "NIC2": "mlx5_2", "NIC3": "mlx5_bond_0"}
	if diff := cmp.Diff(wantNICs, got.NICs); diff != "" {
		t.Errorf("NICs mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"NIC0", "NIC1", "NIC2", "NIC3"}, got.NICLabels); diff != "" {
		t.Errorf("NICLabels mismatch (-want +got):\n%s", diff)
	}
	wantGPU0 := map[string]string{
		"GPU0": "X", "GPU1": "NV18", "GPU2": "NV18", "GPU3": "NV18",
		"NIC0": "PIX", "NIC1": "NODE", "NIC2": "SYS", "NIC3": "SYS",
	}
	if diff := cmp.Diff(wantGPU0, got.Links["GPU0"]); diff != "" {
		t.Errorf("GPU0 row mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"GPU0": "0-47,96-143", "GPU1": "0-47,96-143", "GPU2": "48-95,144-191", "GPU3": "48-95,144-191"}, got.CPUAffinity); diff != "" {
		t.Errorf("CPUAffinity mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"GPU0": "0", "GPU1": "0", "GPU2": "1", "GPU3": "1"}, got.NUMAAffinity); diff != "" {
		t.Errorf("NUMAAffinity mismatch (-want +got):\n%s", diff)
	}

	links := []struct{ a, b, want string }{
		{"GPU0", "NIC0", "PIX"},
		{"GPU0", "mlx5_0", "PIX"},
		{"mlx5_0", "GPU0", "PIX"},
		{"GPU1", "mlx5_1", "PXB"},
		{"GPU3", "mlx5_bond_0", "PHB"},
		{"GPU0", "GPU1", "NV18"},
		{"NIC2", "NIC3", "PIX"},
		{"GPU0", "mlx5_9", ""},
		{"GPU9", "NIC0", ""},
	}
	for _, l := range links {
		if g := got.Link(l.a, l.b); g != l.want {
			t.Errorf("Link(%s, %s) = %q, want %q", l.a, l.b, g, l.want)
		}
	}

	best := []struct{ gpu, dev, link string }{
		{"GPU0", "mlx5_0", "PIX"},
		{"GPU1", "mlx5_1", "PXB"},
		{"GPU2", "mlx5_2", "NODE"}, // tie with mlx5_bond_0: first column wins
		{"GPU3", "mlx5_2", "PHB"},
	}
	for _, b := range best {
		dev, link, ok := got.BestNIC(b.gpu)
		if !ok || dev != b.dev || link != b.link {
			t.Errorf("BestNIC(%s) = %s, %s, %v; want %s, %s", b.gpu, dev, link, ok, b.dev, b.link)
		}
	}
	if _, _, ok := got.BestNIC("GPU7"); ok {
		t.Error("BestNIC of an unknown GPU should fail")
	}
}

// TestParseTopoLostEscape reads a matrix whose header kept "[4m" and "[0m"
// after a tool dropped the ESC bytes: the same topology as with them.
func TestParseTopoLostEscape(t *testing.T) {
	want, err := ParseTopo(fixture(t, "topo_h100.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseTopo(fixture(t, "topo_h100_no_esc.txt"))
	if err != nil {
		t.Fatalf("ParseTopo() error: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseTopo() mismatch (-with ESC +without):\n%s", diff)
	}
}

func TestParseTopoOldAndSpaces(t *testing.T) {
	old, err := ParseTopo(fixture(t, "topo_old.txt"))
	if err != nil {
		t.Fatalf("old format: %v", err)
	}
	if diff := cmp.Diff(map[string]string{"mlx5_0": "mlx5_0", "mlx5_1": "mlx5_1"}, old.NICs); diff != "" {
		t.Errorf("old NICs mismatch (-want +got):\n%s", diff)
	}
	if dev, link, _ := old.BestNIC("GPU1"); dev != "mlx5_1" || link != "NODE" {
		t.Errorf("old BestNIC(GPU1) = %s, %s", dev, link)
	}
	if a := old.CPUAffinity["GPU1"]; a != "64-127" {
		t.Errorf("old CPU affinity of GPU1 = %q", a)
	}

	sp, err := ParseTopo(fixture(t, "topo_spaces.txt"))
	if err != nil {
		t.Fatalf("space-separated: %v", err)
	}
	if l := sp.Link("GPU0", "mlx5_0"); l != "PXB" {
		t.Errorf("space-separated Link(GPU0, mlx5_0) = %q, want PXB", l)
	}
	if n := sp.NUMAAffinity["GPU1"]; n != "1" {
		t.Errorf("space-separated NUMA affinity of GPU1 = %q, want 1", n)
	}
}

func TestParseTopoErrors(t *testing.T) {
	h100 := fixture(t, "topo_h100.txt")
	for name, in := range map[string]string{
		"empty":          "",
		"blank":          "\n\n",
		"no columns":     "\tCPU Affinity\nGPU0\t0-7\n",
		"short row":      "\tGPU0\tNIC0\nGPU0\t X \n",
		"unknown row":    "\tGPU0\tNIC0\nGPU7\t X \tPIX\n",
		"duplicate":      "\tGPU0\tGPU0\n",
		"bad legend":     strings.Replace(h100, "NIC1: mlx5_1", "NIC1 mlx5_1", 1),
		"legend unknown": strings.Replace(h100, "NIC1: mlx5_1", "NIC9: mlx5_1", 1),
		"nvidia-smi err": "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
		"only NICs":      "\tNIC0\tNIC1\nNIC0\t X \tPIX\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseTopo(in)
			wantParseError(t, err, "nvidia-smi topo")
		})
	}
}

func TestLinkRank(t *testing.T) {
	order := []string{"X", "NV18", "PIX", "PXB", "PHB", "NODE", "SYS", "???"}
	for i := 1; i < len(order); i++ {
		if LinkRank(order[i-1]) >= LinkRank(order[i]) {
			t.Errorf("LinkRank(%s) should be below LinkRank(%s)", order[i-1], order[i])
		}
	}
}

func FuzzTopo(f *testing.F) {
	addSeeds(f, "topo_h100.txt", "topo_old.txt", "topo_spaces.txt", "topo_h100_no_esc.txt")
	f.Fuzz(func(t *testing.T, s string) {
		topo, err := ParseTopo(s)
		if err != nil {
			return
		}
		for _, g := range topo.GPUs {
			if dev, _, ok := topo.BestNIC(g); ok && dev == "" {
				t.Errorf("BestNIC(%s) ok with empty device", g)
			}
			for _, n := range topo.NICLabels {
				_ = topo.Link(g, n)
			}
		}
	})
}
