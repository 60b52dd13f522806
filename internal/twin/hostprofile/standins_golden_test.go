package hostprofile

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var updateStandIns = flag.Bool("update", false, "rewrite testdata/standins/*.golden from the stand-ins' output")

// TestStandInOutputGolden pins what the hardware stand-ins print, for every profile, byte for
// byte: their output is what the gather parses, so a rewrite that makes one cheaper must keep
// it. The sequence also sets NV configuration and QoS, so the queries after it show next-boot
// values apart from current ones. Times (nvidia-smi prints one) read <time>.
func TestStandInOutputGolden(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := mustProfile(t, name)
			root := renderRoot(t, p, HostID{Name: "golden", Index: 3})
			nd := p.Netdevs()[0]
			var b strings.Builder
			for _, c := range [][]string{
				{"show_gids"}, {"show_gids", "mlx5_0"},
				{"ibv_devinfo"}, {"ibv_devinfo", "-v"}, {"ibv_devinfo", "-d", "mlx5_0"},
				{"ibdev2netdev"}, {"ibdev2netdev", "-v"},
				{"nvidia-smi", "topo", "-m"}, {"nvidia-smi", "-q", "-d", "MEMORY"},
				{"lsmod"}, {"cma_roce_tos", "-d", "mlx5_0"}, {"ethtool", "-S", nd},
				{"mlnx_qos", "-i", nd},
				{"mlxconfig", "q"}, {"mlxconfig", "-e", "q"}, {"mlxconfig", "-d", "mlx5_0", "-e", "q"},
				{"mlxconfig", "-d", "/dev/mst/mt4129_pciconf0", "q", "LINK_TYPE_P1", "NO_SUCH_PARAM", "ROCE_CC_PRIO_MASK_P1"},
				{"mlxconfig", "-d", "mlx5_0", "-y", "s", "ROCE_CC_PRIO_MASK_P1=8", "LINK_TYPE_P1=ETH", "SRIOV_EN=True"},
				{"mlxconfig", "-d", "mlx5_0", "-y", "s", "LINK_TYPE_P1=FOO"},
				{"mlxconfig", "-d", "mlx5_0", "-e", "q"}, {"mlxconfig", "-d", "mlx5_0", "q", "SRIOV_EN"},
				{"mlnx_qos", "-i", nd, "--trust", "dscp", "--pfc", "0,0,0,1,0,0,0,0"},
				{"mlnx_qos", "-i", nd, "-a"},
			} {
				r := runTool(t, root, "", c[0], c[1:]...)
				fmt.Fprintf(&b, "$ %s\n[exit %d]\n--- stdout\n%s--- stderr\n%s\n", strings.Join(c, " "), r.code, clockTime.ReplaceAllString(r.stdout, "<time>"), r.stderr)
			}
			golden := filepath.Join("testdata", "standins", name+".golden")
			if *updateStandIns {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./internal/twin/hostprofile -run TestStandInOutputGolden -update writes it)", err)
			}
			if got := b.String(); got != string(want) {
				t.Errorf("stand-in output differs from %s:\n%s", golden, firstDiff(string(want), got))
			}
		})
	}
}

// clockTime is a time as nvidia-smi prints it: "Wed Dec  2 09:42:29 2026".
var clockTime = regexp.MustCompile(`[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}`)

// firstDiff shows the first line where got leaves want, with a little context.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			from := max(0, i-3)
			ctx := strings.Join(g[from:min(i, len(g))], "\n")
			return fmt.Sprintf("line %d\ncontext:\n%s\nwant: %q\ngot:  %q", i+1, ctx, wl, gl)
		}
	}
	return "(equal)"
}
