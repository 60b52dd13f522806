package facts

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseDpkgQuery(t *testing.T) {
	want := []Package{
		{Name: "mlnx-ofed-kernel-dkms", Arch: "all", Version: "24.10.OFED.24.10.1.1.4.1", Status: "hold ok installed", Installed: true, Held: true},
		{Name: "mlnx-ofed-kernel-utils", Arch: "amd64", Version: "24.10.OFED.24.10.1.1.4.1-1", Status: "install ok installed", Installed: true},
		{Name: "doca-ofed", Arch: "amd64", Version: "3.2.0-064000", Status: "install ok installed", Installed: true},
		{Name: "nvidia-dkms-550", Arch: "amd64", Version: "550.54.15-0ubuntu1", Status: "deinstall ok config-files"},
	}
	got, err := ParseDpkgQuery(fixture(t, "dpkg_query.txt"))
	if err != nil {
		t.Fatalf("ParseDpkgQuery() error: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseDpkgQuery() mismatch (-want +got):\n%s", diff)
	}
	_, err = ParseDpkgQuery("doca-ofed 3.2.0 install ok installed\n")
	wantParseError(t, err, "dpkg-query")
}

func FuzzDpkgQuery(f *testing.F) {
	addSeeds(f, "dpkg_query.txt")
	f.Fuzz(func(t *testing.T, s string) {
		pkgs, err := ParseDpkgQuery(s)
		if err != nil {
			return
		}
		for _, p := range pkgs {
			if p.Name == "" {
				t.Error("package without name")
			}
		}
	})
}
