package hostprofile

import (
	"strings"
	"testing"
	"time"
)

func BenchmarkRenderHost(b *testing.B) {
	requireRoot(b)
	p := mustProfile(b, "cx7")
	dir := fastTempDir(b)
	for b.Loop() {
		if err := RenderHost(dir, p, HostID{Name: "bench", Index: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResetRuntime(b *testing.B) {
	requireRoot(b)
	p := mustProfile(b, "cx7")
	dir := fastTempDir(b)
	id := HostID{Name: "bench", Index: 1}
	if err := RenderHost(dir, p, id); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := ResetRuntime(dir, p, id); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildBaseCached is the cost of BuildBase on an up-to-date layer:
// what every hosttwin start pays.
func BenchmarkBuildBaseCached(b *testing.B) {
	dir := fastTempDir(b)
	if err := BuildBase(dir, false); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := BuildBase(dir, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBuildBaseFresh(b *testing.B) {
	for b.Loop() {
		if err := BuildBase(fastTempDir(b), false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStandIn is the cost of the stand-ins a gather runs, on a ConnectX-7 host with
// OFED: wall time per call and the CPU the call's processes used (cpu-ms/op), which is what
// a twin adds to every figure of make bench.
func BenchmarkStandIn(b *testing.B) {
	root := renderRoot(b, mustProfile(b, "cx7"), HostID{Name: "bench", Index: 1})
	for _, c := range [][]string{
		{"ibv_devinfo"}, {"ibdev2netdev"}, {"nvidia-smi", "topo", "-m"}, {"nvidia-smi", "-q", "-d", "MEMORY"},
		{"lsmod"}, {"mlnx_qos", "-i", "ens1f0np0"}, {"cma_roce_tos", "-d", "mlx5_0"},
		{"mlxconfig", "-d", "mlx5_0", "-e", "q"}, {"show_gids"}, {"ibv_devinfo", "-v"},
	} {
		b.Run(strings.Join(c, "_"), func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				cmd := standIn(root, c[0], c[1:]...)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%s: %v\n%s", strings.Join(c, " "), err, out)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
