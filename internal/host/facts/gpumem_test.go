package facts

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseGPUMemory reads "nvidia-smi -q -d MEMORY" and a full "nvidia-smi -q", whose
// headings "GPU Operation Mode", "GPU Link Info", "GPU Reset Status" and others start with
// "GPU " but open no GPU.
func TestParseGPUMemory(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		want    []GPUMemory
	}{
		{"nvidia_smi_memory.txt", []GPUMemory{
			{BusID: "00000000:18:00.0", FBTotal: 81559, FBUsed: 0, FBFree: 81230, BAR1Total: 131072, BAR1Used: 1, BAR1Free: 131071},
			{BusID: "00000000:2A:00.0", FBTotal: 81559, FBUsed: 40210, FBFree: 41020, BAR1Total: 256, BAR1Used: 5, BAR1Free: 251},
		}},
		{"nvidia_smi_q_full.txt", []GPUMemory{
			{BusID: "00000000:18:00.0", FBTotal: 81559, FBUsed: 0, FBFree: 81008, BAR1Total: 131072, BAR1Used: 1, BAR1Free: 131071},
			{BusID: "00000000:2A:00.0", FBTotal: 81559, FBUsed: 40210, FBFree: 40798, BAR1Total: 131072, BAR1Used: 1, BAR1Free: 131071},
		}},
	} {
		got, err := ParseGPUMemory(fixture(t, tc.fixture))
		if err != nil {
			t.Fatalf("ParseGPUMemory(%s) error: %v", tc.fixture, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseGPUMemory(%s) mismatch (-want +got):\n%s", tc.fixture, diff)
		}
	}
}

func TestParseGPUMemoryInline(t *testing.T) {
	in := "GPU 00000000:18:00.0\n    FB Memory Usage\n        Total : N/A\n    BAR1 Memory Usage\n        Total : 2 GiB\n        Used : 2048 KiB\n"
	want := []GPUMemory{{BusID: "00000000:18:00.0", FBTotal: Unknown, FBUsed: Unknown, FBFree: Unknown, BAR1Total: 2048, BAR1Used: 2, BAR1Free: Unknown}}
	got, err := ParseGPUMemory(in)
	if err != nil {
		t.Fatalf("ParseGPUMemory() error: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseGPUMemory() mismatch (-want +got):\n%s", diff)
	}
}

func TestParseGPUMemoryErrors(t *testing.T) {
	for _, in := range []string{
		"GPU 00000000:18:00.0\n  BAR1 Memory Usage\n    Total : lots MiB\n",
		"GPU 00000000:18:00.0\n  BAR1 Memory Usage\n    Total : 12 TiB\n",
		"GPU 00000000:18:00.0\n  FB Memory Usage\n    Used : -5 MiB\n",
	} {
		_, err := ParseGPUMemory(in)
		wantParseError(t, err, "nvidia-smi memory")
	}
}

func TestGPUMemoryCommand(t *testing.T) {
	if got, want := GPUMemoryCommand.String(), "nvidia-smi -q -d MEMORY"; got != want {
		t.Errorf("command = %q, want %q", got, want)
	}
}

func FuzzGPUMemory(f *testing.F) {
	addSeeds(f, "nvidia_smi_memory.txt", "nvidia_smi_q_full.txt")
	f.Fuzz(func(t *testing.T, s string) {
		gpus, err := ParseGPUMemory(s)
		if err != nil {
			return
		}
		for _, g := range gpus {
			if g.BAR1Total < Unknown || g.FBTotal < Unknown {
				t.Errorf("negative size: %+v", g)
			}
		}
	})
}
