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
			for _, s := range mlxconfigSteps(t, root) {
				switch {
				case s.reboot:
					if err := ResetRuntime(root, p, HostID{Name: "golden", Index: 3}); err != nil {
						t.Fatal(err)
					}
					b.WriteString("# reboot\n\n")
				case s.args == nil:
					dumpTree(t, &b, root, nvconfigDirs...)
				default:
					r := runTool(t, root, s.stdin, s.args[0], s.args[1:]...)
					cmd := strings.Join(s.args, " ")
					if s.stdin != "" || s.stdinShown {
						cmd = fmt.Sprintf("printf %q | %s", s.stdin, cmd)
					}
					// The shell's messages name the script by its path under the temporary root.
					fmt.Fprintf(&b, "$ %s\n[exit %d]\n--- stdout\n%s--- stderr\n%s\n", cmd, r.code, r.stdout, strings.ReplaceAll(r.stderr, root, "<root>"))
				}
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

// goldenStep is one more step of the golden sequence: a tool run with stdin, a dump of the
// files under nvconfigDirs (no args) or a reboot.
type goldenStep struct {
	stdin      string
	stdinShown bool // print the stdin even when empty
	args       []string
	reboot     bool
}

// nvconfigDirs are where mlxconfig keeps next-boot (etc) and current (run) NV configuration.
var nvconfigDirs = []string{"etc/twin/nvconfig", "run/twin/nvconfig"}

// mlxconfigSteps are mlxconfig's usage and error cases, its confirmation prompt (answered,
// refused, unanswered), the device forms -d takes, value forms set takes, reset, and the
// files these leave behind, before and after a reboot makes them current.
func mlxconfigSteps(t *testing.T, root string) []goldenStep {
	t.Helper()
	bdf := "0000:00:00.0"
	if l, err := os.Readlink(filepath.Join(root, "sys/class/infiniband/mlx5_0/device")); err == nil {
		bdf = filepath.Base(l)
	}
	short := strings.TrimPrefix(bdf, "0000:")
	run := func(args ...string) goldenStep { return goldenStep{args: append([]string{"mlxconfig"}, args...)} }
	ask := func(stdin string, args ...string) goldenStep {
		return goldenStep{stdin: stdin, stdinShown: true, args: append([]string{"mlxconfig"}, args...)}
	}
	dump := goldenStep{}
	return []goldenStep{
		run(), run("-h"), run("--help", "q"), run("-d", "mlx5_0"), run("bogus"), run("-d", "mlx5_0", "bogus", "x"), run("-d"), run("-d", "mlx5_0", "-b"),
		run("-y", "s", "CNP_DSCP_P1=26"), run("-y", "r"), run("-d", "mlx5_0", "-y", "s"),
		run("-d", "mlx5_0", "-y", "s", "CNP_DSCP_P1"), run("-d", "mlx5_0", "-y", "s", "NO_SUCH_P1=1"),
		run("-d", "mlx5_0", "-y", "s", "cnp_dscp_p1=1"), run("-d", "mlx5_0", "-y", "s", "CNP_DSCP_P1="),
		run("-d", "mlx5_0", "-y", "s", "CNP_DSCP_P1=-1"), run("-d", "mlx5_0", "-y", "s", "CNP_DSCP_P1=1.5"),
		run("-d", "mlx5_0", "-y", "s", "CNP_DSCP_P1=26", "LINK_TYPE_P1=ETHER"),
		run("-d", "mlx5_0", "-y", "s", "CNP_DSCP_P1=26", "NO_SUCH_P1=1"),
		run("-d", "mlx5_0", "q", "NO_SUCH_P1", "CNP_DSCP_P1"),
		ask("n\n", "-d", "mlx5_0", "s", "CNP_DSCP_P1=26"), ask("", "-d", "mlx5_0", "s", "CNP_DSCP_P1=26"),
		ask("y", "-d", "mlx5_0", "s", "CNP_DSCP_P1=26"), ask("no\n", "-d", "mlx5_0", "set", "CNP_DSCP_P1=26"),
		dump,
		ask(" yes \n", "-d", bdf, "set", "CNP_DSCP_P1=26", "QOS_TRUST_STATE_P1=trust_dscp", "LINK_TYPE_P1=02", "NUM_OF_VFS=0008"),
		dump,
		run("-d", short, "-e", "query", "CNP_DSCP_P1", "QOS_TRUST_STATE_P1", "LINK_TYPE_P1", "NUM_OF_VFS", "SRIOV_EN"),
		ask("Y\n", "-d", "mlx5_0", "s", "CNP_DSCP_P1=1", "CNP_DSCP_P1=2", "SRIOV_EN=false"),
		dump,
		run("--dev=mlx5_0", "q", "CNP_DSCP_P1", "SRIOV_EN"), run("-d", "/dev/mst/mt4129_pciconf1", "q", "SRIOV_EN"),
		run("--dev", "/dev/mst/mt4129_pciconf99", "q"), run("-d", "mlx5_42", "q"), run("-d", "0000:ff:00.0", "q"),
		run("-d", "mlx5_0", "-z", "q", "SRIOV_EN"), run("-d", "mlx5_0", "-b", "x.db", "--yes", "query", "SRIOV_EN"),
		{reboot: true},
		dump,
		run("-d", "mlx5_0", "-e", "q"),
		ask("N\n", "-d", "mlx5_0", "r"), run("-d", "mlx5_0", "-y", "reset"),
		dump,
		run("-d", "mlx5_0", "-e", "q", "CNP_DSCP_P1", "SRIOV_EN"), run("-y", "r"),
	}
}

// dumpTree writes every file under dirs of root, sorted, as "--- path" and its content.
func dumpTree(t *testing.T, b *strings.Builder, root string, dirs ...string) {
	t.Helper()
	fmt.Fprintf(b, "# files under %s\n", strings.Join(dirs, " "))
	for _, d := range dirs {
		entries, err := os.ReadDir(filepath.Join(root, d))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, e := range entries {
			c, err := os.ReadFile(filepath.Join(root, d, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(b, "--- %s/%s\n%s", d, e.Name(), c)
		}
	}
	b.WriteString("\n")
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
