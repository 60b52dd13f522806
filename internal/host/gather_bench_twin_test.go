package host_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
)

// BenchmarkGatherTwinCPU is what one full gather (every fact, as roce_host_facts reads)
// costs: wall time per gather, and the CPU of the twin's processes (twin-cpu-ms/op), which
// make bench adds to every figure and which a real host would spend in its real tools.
func BenchmarkGatherTwinCPU(b *testing.B) {
	for _, name := range []string{"cx7", "inbox"} {
		b.Run(name, func(b *testing.B) {
			f, r := twin(b, name)
			ctx := context.Background()
			if _, err := host.Gather(ctx, r, host.AllFacts()); err != nil { // connect outside the loop
				b.Fatal(err)
			}
			before, err := f.CPUTime(name)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := host.Gather(ctx, r, host.AllFacts()); err != nil {
					b.Fatal(err)
				}
			}
			after, err := f.CPUTime(name)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64((after-before).Microseconds())/1000/float64(b.N), "twin-cpu-ms/op")
		})
	}
}

// BenchmarkGatherTwinRetained is the heap that the facts of one full gather keep alive while a
// provider process caches them (retained-KiB/facts): the figure a walk holds per host.
func BenchmarkGatherTwinRetained(b *testing.B) {
	_, r := twin(b, "cx7")
	ctx := context.Background()
	if _, err := host.Gather(ctx, r, host.AllFacts()); err != nil { // connect outside the loop
		b.Fatal(err)
	}
	var kept []host.Facts
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for b.Loop() {
		facts, err := host.Gather(ctx, r, host.AllFacts())
		if err != nil {
			b.Fatal(err)
		}
		kept = append(kept, facts)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/1024/float64(len(kept)), "retained-KiB/facts")
	runtime.KeepAlive(kept)
}
