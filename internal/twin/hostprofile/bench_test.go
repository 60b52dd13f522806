package hostprofile

import "testing"

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
