package facts

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRPMQuery(t *testing.T) {
	want := []Package{
		{Name: "doca-ofed", Arch: "x86_64", Version: "3.2.0-064000_25.10_rhel9", Status: "installed", Installed: true},
		{Name: "kmod-mlnx-ofed-kernel", Arch: "x86_64", Version: "24.10-OFED.24.10.3.2.5.1.rhel9u4", Status: "installed", Installed: true},
		{Name: "kernel", Arch: "x86_64", Version: "5.14.0-427.13.1.el9_4", Status: "installed", Installed: true},
		{Name: "perl-Errno", Arch: "x86_64", Version: "1.30-481.el9", Status: "installed", Installed: true},
		{Name: "nvidia-driver", Arch: "x86_64", Version: "3:550.54.15-1.el9", Status: "installed", Installed: true},
		{Name: "mlnx-tools"},
	}
	got, err := ParseRPMQuery(fixture(t, "rpm_query.txt"))
	if err != nil {
		t.Fatalf("ParseRPMQuery() error: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseRPMQuery() mismatch (-want +got):\n%s", diff)
	}
	_, err = ParseRPMQuery("error: rpmdb: damaged header\n")
	wantParseError(t, err, "rpm")
}

func FuzzRPMQuery(f *testing.F) {
	addSeeds(f, "rpm_query.txt")
	f.Fuzz(func(t *testing.T, s string) {
		pkgs, err := ParseRPMQuery(s)
		if err != nil {
			return
		}
		for _, p := range pkgs {
			if p.Name == "" || p.Installed != (p.Status == "installed") {
				t.Errorf("bad package %+v", p)
			}
		}
	})
}
