package facts

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseNVIDIAVersion(t *testing.T) {
	tests := []struct {
		in   string
		want NVIDIADriver
	}{
		{fixture(t, "nvidia_version_open.txt"), NVIDIADriver{
			Version: "550.54.15", Open: true, Arch: "x86_64", GCC: "gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)",
		}},
		{fixture(t, "nvidia_version_proprietary.txt"), NVIDIADriver{
			Version: "535.129.03", Open: false, Arch: "x86_64", GCC: "gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)",
		}},
		{fixture(t, "nvidia_version_open_arm.txt"), NVIDIADriver{
			Version: "580.95.05", Open: true, Arch: "aarch64", GCC: "gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)",
		}},
		{"NVRM version: NVIDIA UNIX Open Kernel Module  580.65\n", NVIDIADriver{Version: "580.65", Open: true}},
		{"NVRM version: NVIDIA UNIX x86_64 Kernel Module 390.48 Thu Mar 22 00:42:57 PDT 2018\n", NVIDIADriver{Version: "390.48", Arch: "x86_64"}},
		// A wrapped line (seen when copied from a terminal).
		{"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.82.09\nRelease Build (akmods@fedora)  Wed Oct  8 00:02:31 CEST 2025\n", NVIDIADriver{Version: "580.82.09", Open: true, Arch: "x86_64"}},
	}
	for _, tt := range tests {
		got, err := ParseNVIDIAVersion(tt.in)
		if err != nil {
			t.Fatalf("ParseNVIDIAVersion(%q) error: %v", tt.in, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseNVIDIAVersion(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestParseNVIDIAVersionErrors(t *testing.T) {
	_, err := ParseNVIDIAVersion("cat: /proc/driver/nvidia/version: No such file or directory\n")
	wantParseError(t, err, "nvidia driver")
	if !errors.Is(err, ErrEmpty) {
		t.Errorf("error %v should wrap ErrEmpty", err)
	}
	_, err = ParseNVIDIAVersion("NVRM version: something else\n")
	wantParseError(t, err, "nvidia driver")
}

func FuzzNVIDIAVersion(f *testing.F) {
	addSeeds(f, "nvidia_version_open.txt", "nvidia_version_proprietary.txt", "nvidia_version_open_arm.txt")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseNVIDIAVersion(s)
		if err == nil && d.Version == "" {
			t.Error("no error and no version")
		}
	})
}
