package facts

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseDnfVersionlock(t *testing.T) {
	tests := []struct {
		fixture string
		want    []Hold
	}{
		{"dnf4_versionlock.txt", []Hold{
			{Name: "doca-ofed", Version: "3.2.0-064000_25.10_rhel9"},
			{Name: "kernel", Version: "5.14.0-427.13.1.el9_4"},
			{Name: "nvidia-driver", Version: "3:550.54.15-1.el9"},
			{Name: "kmod-mlnx-ofed-kernel", Version: "24.10-OFED.24.10.1.1.4.1.rhel9u4", Exclude: true},
		}},
		{"dnf5_versionlock.txt", []Hold{
			{Name: "doca-ofed", Version: "3.2.0-064000_25.10_rhel9"},
			{Name: "kernel", Version: "5.14.0-503.el9", Exclude: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			got, err := ParseDnfVersionlock(fixture(t, tt.fixture))
			if err != nil {
				t.Fatalf("ParseDnfVersionlock() error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseDnfVersionlock() mismatch (-want +got):\n%s", diff)
			}
		})
	}
	for _, in := range []string{"evr = 1.0-1\n", "Package name:\n"} {
		_, err := ParseDnfVersionlock(in)
		wantParseError(t, err, "dnf versionlock")
	}
	got, err := ParseDnfVersionlock("kernel*\n")
	if err != nil || len(got) != 1 || got[0] != (Hold{Name: "kernel*"}) {
		t.Errorf("glob lock = %v, %v", got, err)
	}
}

func FuzzDnfVersionlock(f *testing.F) {
	addSeeds(f, "dnf4_versionlock.txt", "dnf5_versionlock.txt")
	f.Fuzz(func(t *testing.T, s string) {
		holds, err := ParseDnfVersionlock(s)
		if err != nil {
			return
		}
		for _, h := range holds {
			if h.Name == "" {
				t.Errorf("lock without name in %q", s)
			}
		}
	})
}
