package preflight

import (
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/google/go-cmp/cmp"
)

func TestCheckBAR1(t *testing.T) {
	h100 := facts.GPUMemory{BusID: "00000000:18:00.0", FBTotal: 81559, BAR1Total: 131072, BAR1Used: 1}
	small := facts.GPUMemory{BusID: "00000000:2A:00.0", FBTotal: 81559, BAR1Total: 256, BAR1Used: 5}
	hidden := facts.GPUMemory{BusID: "00000000:3B:00.0", FBTotal: 81559, BAR1Total: facts.Unknown, BAR1Used: facts.Unknown}
	withMem := func(ms ...facts.GPUMemory) host.Facts { f := goodHost(); f.GPUMemory = ms; return f }
	withMin := func(n int64) Options { o := DefaultOptions(); o.MinBAR1MiB = n; return o }

	tests := []struct {
		name       string
		f          host.Facts
		o          Options
		want       []outcome
		wantDetail string // of the last verdict
		wantRemedy string
	}{
		{"report only", withMem(h100, small), DefaultOptions(),
			[]outcome{{CheckBAR1, "GPU0", true}, {CheckBAR1, "GPU1", true}},
			"BAR1 256 MiB (5 MiB used), bus 00000000:2A:00.0; smaller than the 81559 MiB framebuffer", ""},
		{"above the minimum", withMem(h100), withMin(32768),
			[]outcome{{CheckBAR1, "GPU0", true}}, "BAR1 131072 MiB (1 MiB used), bus 00000000:18:00.0", ""},
		{"below the minimum", withMem(h100, small), withMin(32768),
			[]outcome{{CheckBAR1, "GPU0", true}, {CheckBAR1, "GPU1", false}},
			"below the minimum of 32768 MiB", "Above 4G Decoding"},
		{"exactly the minimum", withMem(small), withMin(256), []outcome{{CheckBAR1, "GPU0", true}}, "BAR1 256 MiB", ""},
		{"N/A, report only", withMem(hidden), DefaultOptions(), []outcome{{CheckBAR1, "GPU0", true}}, "BAR1 size not reported (N/A)", ""},
		{"N/A with a minimum", withMem(hidden), withMin(1024), []outcome{{CheckBAR1, "GPU0", false}},
			"cannot compare with the minimum of 1024 MiB", "vGPU or MIG"},
		{"no GPUs", withMem(), DefaultOptions(), []outcome{{CheckBAR1, "", false}}, "lists no GPUs", "NVIDIA driver"},
		{"not gathered", without(goodHost(), host.FactGPUMemory), DefaultOptions(),
			[]outcome{{CheckBAR1, "", false}}, "nvidia-smi memory not gathered", "gather nvidia-smi memory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkBAR1(tt.f, tt.o)
			wellFormed(t, got)
			if diff := cmp.Diff(tt.want, outcomes(got)); diff != "" {
				t.Fatalf("outcomes mismatch (-want +got):\n%s", diff)
			}
			last := got[len(got)-1]
			wantText(t, "detail", last.Detail, tt.wantDetail)
			wantText(t, "remedy", last.Remedy, tt.wantRemedy)
		})
	}
	if d := checkBAR1(withMem(h100), DefaultOptions())[0].Detail; d != "BAR1 131072 MiB (1 MiB used), bus 00000000:18:00.0" {
		t.Errorf("BAR1 larger than the framebuffer: detail = %q, want no note", d)
	}
}

// The real nvidia-smi -q -d MEMORY sample: an H100 and a GPU with 256 MiB.
func TestCheckBAR1Sample(t *testing.T) {
	mem, err := facts.ParseGPUMemory(fixture(t, "nvidia_smi_memory.txt"))
	if err != nil {
		t.Fatal(err)
	}
	f := goodHost()
	f.GPUMemory = mem
	o := DefaultOptions()
	o.MinBAR1MiB = 32768
	got := checkBAR1(f, o)
	want := []outcome{{CheckBAR1, "GPU0", true}, {CheckBAR1, "GPU1", false}}
	if diff := cmp.Diff(want, outcomes(got)); diff != "" {
		t.Fatalf("outcomes mismatch (-want +got):\n%s", diff)
	}
}
