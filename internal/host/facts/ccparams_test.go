package facts

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCCParams(t *testing.T) {
	got, err := ParseCCParams(fixture(t, "cc_params.txt"))
	if err != nil {
		t.Fatalf("ParseCCParams() error: %v", err)
	}
	if n := len(got["0000:17:00.0"]); n != 20 {
		t.Errorf("0000:17:00.0 has %d params, want 20", n)
	}
	checks := map[string]map[string]int64{
		"0000:17:00.0": {"rp_dce_tcp_g": 1019, "rp_gd": 11, "np_cnp_dscp": 48, "np_cnp_prio": 6, "rp_ai_rate": 5},
		"0000:3d:00.0": {"rp_dce_tcp_g": 1000, "np_cnp_dscp": 46},
	}
	for bdf, params := range checks {
		for name, want := range params {
			if v, ok := got[bdf][name]; !ok || v != want {
				t.Errorf("%s %s = %d, %v; want %d", bdf, name, v, ok, want)
			}
		}
	}
}

func TestParseCCParamsErrors(t *testing.T) {
	for _, in := range []string{"0000:17:00.0 rp_gd\n", "0000:17:00.0 rp_gd eleven\n", "a b c d\n"} {
		_, err := ParseCCParams(in)
		wantParseError(t, err, "cc_params")
	}
}

func TestCCParamsScript(t *testing.T) {
	root := filepath.Join(t.TempDir(), "mlx5")
	cc := filepath.Join(root, "0000:17:00.0", "cc_params")
	writeFile(t, filepath.Join(cc, "rp_dce_tcp_g"), "1019\n")
	writeFile(t, filepath.Join(cc, "np_cnp_dscp"), "48\n")
	writeFile(t, filepath.Join(root, "0000:3d:00.0", "cc_params", "rp_gd"), "11\n")
	writeFile(t, filepath.Join(root, "0000:99:00.0", "other"), "x\n") // no cc cap

	tests := []struct {
		bdfs []string
		want map[string]CCParams
	}{
		{nil, map[string]CCParams{
			"0000:17:00.0": {"rp_dce_tcp_g": 1019, "np_cnp_dscp": 48},
			"0000:3d:00.0": {"rp_gd": 11},
		}},
		{[]string{"0000:3d:00.0", "0000:99:00.0"}, map[string]CCParams{"0000:3d:00.0": {"rp_gd": 11}}},
	}
	for _, tt := range tests {
		s, err := ccParamsScript(root, tt.bdfs)
		if err != nil {
			t.Fatal(err)
		}
		script, err := s.Render()
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseCCParams(runScript(t, script))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("bdfs %v mismatch (-want +got):\n%s", tt.bdfs, diff)
		}
	}
}

func TestCCParamsScriptRejectsBadAddresses(t *testing.T) {
	for _, bad := range []string{"", "../x", "0000:17:00.0/..", "mlx5_0", "0000:17:00.0;id", "zzzz:17:00.0"} {
		if _, err := CCParamsScript(bad); err == nil {
			t.Errorf("CCParamsScript(%q) succeeded, want error", bad)
		}
	}
	s, err := CCParamsScript()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.String(), `r_=/sys/kernel/debug/mlx5; for c in "$r_"/*/cc_params`) {
		t.Errorf("script does not read debugfs:\n%s", s)
	}
}

func FuzzCCParams(f *testing.F) {
	addSeeds(f, "cc_params.txt")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseCCParams(s)
		if err != nil {
			return
		}
		for bdf, p := range got {
			if bdf == "" || len(p) == 0 {
				t.Errorf("empty entry %q", bdf)
			}
		}
	})
}
