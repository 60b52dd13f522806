package nccltest

import (
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

func TestJudgePre213ErrorColumn(t *testing.T) {
	// 128 ranks reported a largest deviation of 1e-06 in float: well inside the tool's bound.
	r := mustParse(t, "allreduce_pre213_error_176.txt")
	if !r.MaxDelta || len(r.Rows) != 6 || r.Rows[5].InPlace.Wrong != 1e-06 {
		t.Fatalf("result = %+v", r)
	}
	for _, ranks := range []int{0, 128} {
		if v := find(Judge(r, facts.NCCLLog{}, nil, Options{Ranks: ranks}), CheckData); !v.Pass {
			t.Errorf("ranks %d: a deviation within the bound failed the data check: %+v", ranks, v)
		}
	}

	// The bound grows with the ranks: 2e-05 in float is past 1e-5 x (2-1), within 1e-5 x (4-1).
	out := strings.Replace(fixture(t, "allreduce_pre213_error_176.txt"), "117.4    1.12    2.22  1e-06", "117.4    1.12    2.22  2e-05", 1)
	if r, _ = Parse(out); r.Rows[5].InPlace.Wrong != 2e-05 {
		t.Fatalf("rows = %+v", r.Rows)
	}
	if v := find(Judge(r, facts.NCCLLog{}, nil, Options{Ranks: 2}), CheckData); v.Pass || !strings.Contains(v.Detail, "131072 bytes (largest error 1e-06/2e-05, above 1e-05)") {
		t.Errorf("2 ranks: data verdict = %+v", v)
	}
	if v := find(Judge(r, facts.NCCLLog{}, nil, Options{Ranks: 4}), CheckData); !v.Pass {
		t.Errorf("4 ranks: data verdict = %+v", v)
	}

	// Integers must come out exact.
	out = strings.Replace(fixture(t, "allreduce_pre213_340.txt"), "float    212.5   19.73   19.73  0e+00", "int32    212.5   19.73   19.73  1e+00", 1)
	if r, _ = Parse(out); find(Judge(r, facts.NCCLLog{}, nil, Options{}), CheckData).Pass {
		t.Errorf("an int32 off by one passed: %+v", r.Rows)
	}
}

func TestJudgeBuiltWithoutMPI(t *testing.T) {
	socket := fixture(t, "allreduce_nompi_182.txt")
	r, err := Parse(socket)
	if err != nil {
		t.Fatal(err)
	}
	if r.Tables != 2 || len(r.Ranks) != 4 {
		t.Fatalf("tables %d, ranks %+v", r.Tables, r.Ranks)
	}
	log, _ := facts.ParseNCCLLog(socket)
	vs := Judge(r, log, ParseHostNets(socket), Options{Ranks: 4, MinBusBWGBps: 40})
	v := find(vs, CheckRanks)
	if v.Pass || !strings.Contains(v.Detail, "2 result tables") || !strings.Contains(v.Detail, "2 distinct ranks, 4 expected") ||
		!strings.Contains(v.Detail, "built without MPI") || !strings.Contains(v.Remedy, "MPI=1") {
		t.Errorf("ranks verdict = %+v", v)
	}
	if v := find(vs, CheckBusBW); v.Pass || !strings.Contains(v.Detail, "not across the hosts") || strings.Contains(v.Detail, "fabric") {
		t.Errorf("busbw verdict = %+v", v)
	}
	// Even a bandwidth above the minimum is no measure of the fabric.
	if v := find(Judge(r, log, nil, Options{Ranks: 4, MinBusBWGBps: 1}), CheckBusBW); v.Pass {
		t.Errorf("busbw verdict of separate runs passed: %+v", v)
	}

	// One table, but fewer ranks than hosts x GPUs.
	spark := mustParse(t, "allreduce_2200_spark.txt")
	if v := find(Judge(spark, facts.NCCLLog{}, nil, Options{Ranks: 16}), CheckRanks); v.Pass || !strings.Contains(v.Detail, "2 ranks in the run, 16 expected") {
		t.Errorf("short verdict = %+v", v)
	}
	if v := find(Judge(spark, facts.NCCLLog{}, nil, Options{Ranks: 2}), CheckRanks); !v.Pass || v.Detail != "2 ranks in one job, as expected" {
		t.Errorf("ranks verdict = %+v", v)
	}
}
