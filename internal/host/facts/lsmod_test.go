package facts

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseLsmod(t *testing.T) {
	got, err := ParseLsmod(fixture(t, "lsmod.txt"))
	if err != nil {
		t.Fatalf("ParseLsmod() error: %v", err)
	}
	if len(got) != 11 {
		t.Errorf("got %d modules, want 11", len(got))
	}
	want := map[string]Module{
		"nvidia_peermem": {Size: 16384, Refs: 0},
		"nvidia":         {Size: 54345728, Refs: 3, UsedBy: []string{"nvidia_uvm", "nvidia_peermem", "nvidia_modeset"}},
		"ib_core": {Size: 479232, Refs: 9, UsedBy: []string{
			"rdma_cm", "ib_ipoib", "nvidia_peermem", "iw_cm", "ib_umad", "rdma_ucm", "ib_uverbs", "mlx5_ib", "ib_cm",
		}},
		"ipv6": {Size: 569344, Refs: -1, Permanent: true},
	}
	for name, w := range want {
		if diff := cmp.Diff(w, got[name]); diff != "" {
			t.Errorf("module %s mismatch (-want +got):\n%s", name, diff)
		}
	}
	if _, ok := got["Module"]; ok {
		t.Error("header parsed as a module")
	}
}

func TestParseLsmodErrors(t *testing.T) {
	for _, in := range []string{
		"Module Size Used by\nnvidia\n",
		"nvidia big 0\n",
		"nvidia 10 x\n",
		"nvidia -10 0\n",
		"nvidia 10 -2\n",
	} {
		_, err := ParseLsmod(in)
		wantParseError(t, err, "lsmod")
	}
}

func FuzzLsmod(f *testing.F) {
	addSeeds(f, "lsmod.txt")
	f.Fuzz(func(t *testing.T, s string) {
		mods, err := ParseLsmod(s)
		if err != nil {
			return
		}
		for name, m := range mods {
			if name == "" || m.Size < 0 || m.Refs < -1 {
				t.Errorf("bad module %q: %+v", name, m)
			}
		}
	})
}
