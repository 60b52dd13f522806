package nccltest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

func fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustParse(t *testing.T, name string) Result {
	t.Helper()
	r, err := Parse(fixture(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestParseNewFormat(t *testing.T) {
	r := mustParse(t, "allreduce_2200_spark.txt")
	if r.Version != "2.20.0 (b4d5bee)" || len(r.Ranks) != 2 || r.Ranks[1].Host != "spark-dbf4" || r.Ranks[1].GPU != "NVIDIA GB10" {
		t.Errorf("header = %+v", r)
	}
	if len(r.Rows) != 2 || r.Rows[1].SizeBytes != 16384 || r.Rows[1].Redop != "sum" || r.Rows[1].InPlace.BusBW != 0.53 || r.Footer {
		t.Errorf("rows = %+v, footer %v", r.Rows, r.Footer)
	}
}

func TestParseLegacyFooter(t *testing.T) {
	r := mustParse(t, "allreduce_legacy_footer.txt")
	if len(r.Rows) != 3 || !r.Footer || !r.OutOfBoundsOK || r.AvgBusBW != 84.8558 {
		t.Fatalf("result = %+v", r)
	}
	if row, _ := r.Largest(); row.SizeBytes != 133169160 || row.OutOfPlace.TimeUS != 2666.0 {
		t.Errorf("largest = %+v", row)
	}
}

func TestParseWrongResults(t *testing.T) {
	r := mustParse(t, "allreduce_wrong_1184.txt")
	if r.Rows[0].OutOfPlace.Wrong != 237858 || r.Rows[0].InPlace.Wrong != 238038 || r.OutOfBoundsOK || r.OutOfBounds != 2 {
		t.Fatalf("result = %+v", r)
	}
	vs := Judge(r, facts.NCCLLog{}, nil, Options{})
	if v := find(vs, CheckData); v.Pass || !strings.Contains(v.Detail, "524288 bytes (237858/238038 wrong)") {
		t.Errorf("data verdict = %+v", v)
	}
}

func TestParsePre213(t *testing.T) {
	r := mustParse(t, "allreduce_pre213_340.txt")
	if len(r.Rows) != 1 || r.Rows[0].Type != "float" || r.Rows[0].Redop != "" || r.Rows[0].InPlace.BusBW != 19.95 || r.Rows[0].OutOfPlace.Wrong != 0 {
		t.Errorf("rows = %+v", r.Rows)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, out := range []string{
		"",
		"all_reduce_perf: error while loading shared libraries: libnccl.so.2: cannot open shared object file\n",
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n" +
			"           8             2     float     sum      -1    19.90    0.00    x.00      0    18.96    0.00    0.00      0\n",
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n# Avg bus bandwidth    : fast\n",
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n# Avg bus bandwidth    : nan\n",
		"#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n" +
			"           8             2     float     sum      -1    19.90    0.00    inf      0    18.96    0.00    0.00      0\n",
	} {
		if _, err := Parse(out); err == nil {
			t.Errorf("Parse(%q) = nil error", out)
		}
	}
}

func TestParseShortRankLine(t *testing.T) {
	r, err := Parse("# Rank\n#  Rank  0\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n")
	if err == nil {
		t.Errorf("a rank line without its fields was accepted: %+v", r)
	}
}

func find(vs []verdict.Verdict, check string) verdict.Verdict {
	for _, v := range vs {
		if v.Check == check {
			return v
		}
	}
	return verdict.Verdict{Check: "missing " + check}
}

func TestJudgeNamesTheCause(t *testing.T) {
	socket := fixture(t, "allreduce_socket_217.txt")
	r, err := Parse(socket)
	if err != nil {
		t.Fatal(err)
	}
	log, _ := facts.ParseNCCLLog(socket)
	v := find(Judge(r, log, ParseHostNets(socket), Options{MinBusBWGBps: 40}), CheckBusBW)
	if v.Pass || !strings.Contains(v.Detail, "2.50 GB/s at 134217728 bytes") || !strings.Contains(v.Detail, "Socket") {
		t.Errorf("socket verdict = %+v", v)
	}
	if v := find(Judge(r, log, nil, Options{MinBusBWGBps: 2}), CheckBusBW); !v.Pass {
		t.Errorf("2.5 GB/s judged below 2: %+v", v)
	}

	// Two hosts: node2's GDR off and node1 short of rails hide in the merged log.
	out := "node1:100:111 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [RO]; OOB ens1f0np0:10.0.0.1<0>\n" +
		"node1:100:111 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'\n" +
		"node2:200:211 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [2]mlx5_2:1/RoCE [RO]; OOB ens1f0np0:10.0.0.2<0>\n" +
		"node2:200:211 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\n" +
		"node2:200:211 [0] NCCL INFO Using network IB\n" +
		"node1:100:111 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'\n"
	merged, _ := facts.ParseNCCLLog(out)
	hosts := ParseHostNets(out)
	if !merged.GDRByHCA["mlx5_0"] {
		t.Fatal("the merged log should show GDR on (its last line), which is why hosts are judged one by one")
	}
	if v := find(Judge(r, merged, hosts, Options{MinBusBWGBps: 40}), CheckBusBW); !strings.Contains(v.Detail, "GPU Direct RDMA was off on node2 (mlx5_0)") {
		t.Errorf("gdr verdict = %+v", v)
	}
	delete(hosts, "node2")
	if v := find(Judge(r, merged, hosts, Options{MinBusBWGBps: 40, Rails: 8}), CheckBusBW); !strings.Contains(v.Detail, "of the 8 rails per host, node1 used 2 (mlx5_0, mlx5_1)") {
		t.Errorf("rail verdict = %+v", v)
	}
}

func FuzzParse(f *testing.F) {
	names, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(names) == 0 {
		f.Fatalf("fixtures: %v %v", names, err)
	}
	for _, name := range names {
		f.Add(fixture(f, filepath.Base(name)))
	}
	f.Fuzz(func(t *testing.T, out string) {
		r, err := Parse(out)
		if err != nil {
			return
		}
		for _, row := range r.Rows {
			if row.SizeBytes < 0 || row.OutOfPlace.BusBW < 0 || row.InPlace.Wrong < 0 {
				t.Fatalf("accepted %+v", row)
			}
		}
	})
}

func TestParseLauncherPrefixes(t *testing.T) {
	r := mustParse(t, "allreduce_tagged_ompi_503.txt")
	if len(r.Rows) != 3 || r.Rows[2].OutOfPlace.TimeUS != 22.25 || !r.Footer || r.AvgBusBW != 92.3405 {
		t.Errorf("Open MPI --tag-output: %+v", r)
	}

	plain := fixture(t, "allreduce_socket_217.txt")
	want, err := Parse(plain)
	if err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{"[1,0]<stdout>:", "[0] "} {
		lines := strings.Split(plain, "\n")
		for i := range lines {
			if i%3 != 2 { // a few lines without one, as stderr or another launcher's own lines would be
				lines[i] = prefix + lines[i]
			}
		}
		got, err := Parse(strings.Join(lines, "\n"))
		if err != nil {
			t.Errorf("%q: %v", prefix, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q: (-want +got)\n%s", prefix, diff)
		}
	}

	for in, want := range map[string]string{
		"[1,0]<stdout>:# Avg bus bandwidth    : 1": "# Avg bus bandwidth    : 1",
		"[12,7]<stderr>:x":                         "x",
		"[3] #  Rank  3":                           "#  Rank  3",
		"[0]x":                                     "[0]x",
		"[1,0]<stdin>:x":                           "[1,0]<stdin>:x",
		" [0] x":                                   " [0] x",
		"node1:1:2 [0] NCCL INFO x":                "node1:1:2 [0] NCCL INFO x",
	} {
		if got := stripLauncher(in); got != want {
			t.Errorf("stripLauncher(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseExtraColumns(t *testing.T) {
	for _, name := range []string{"allreduce_cputime_timestamps.txt", "allreduce_per_iter.txt", "allreduce_per_iter_timestamps.txt"} {
		r := mustParse(t, name)
		if len(r.Rows) != 3 || !r.Footer {
			t.Errorf("%s: %+v", name, r)
			continue
		}
		row := r.Rows[2]
		want := Row{SizeBytes: 4194304, Count: 1048576, Type: "float", Redop: "sum",
			OutOfPlace: Half{TimeUS: 53.24, AlgBW: 78.78, BusBW: 78.78}, InPlace: Half{TimeUS: 52.85, AlgBW: 79.36, BusBW: 79.36}}
		if diff := cmp.Diff(want, row); diff != "" {
			t.Errorf("%s: largest row (-want +got)\n%s", name, diff)
		}
	}
	if _, err := Parse("#       size         count      type   redop    root     time   algbw   busbw  #wrong\n"); err == nil {
		t.Error("a header with one half was accepted")
	}
}
