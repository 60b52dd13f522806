package facts

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// defaultRP and defaultNP are the firmware defaults of the ecn/ parameters.
func defaultRP() map[string]int64 {
	return map[string]int64{
		"clamp_tgt_rate": 0, "clamp_tgt_rate_after_time_inc": 1, "dce_tcp_g": 1019, "dce_tcp_rtt": 1,
		"initial_alpha_value": 1023, "rate_reduce_monitor_period": 4, "rate_to_set_on_first_cnp": 0,
		"rpg_ai_rate": 5, "rpg_byte_reset": 32767, "rpg_gd": 11, "rpg_hai_rate": 50, "rpg_max_rate": 0,
		"rpg_min_dec_fac": 50, "rpg_min_rate": 1, "rpg_threshold": 1, "rpg_time_reset": 300,
	}
}

func defaultNP() map[string]int64 {
	return map[string]int64{"cnp_802p_prio": 6, "cnp_dscp": 48, "min_time_between_cnps": 4}
}

func TestParseECNTree(t *testing.T) {
	want := map[string]ECNState{
		"ens1f0np0": {RPEnabled: [8]bool{3: true}, NPEnabled: [8]bool{3: true}, RP: defaultRP(), NP: defaultNP()},
		"ens1f1np1": {RP: defaultRP(), NP: defaultNP()},
	}
	got, err := ParseECNTree(fixture(t, "ecn_tree.txt"))
	if err != nil {
		t.Fatalf("ParseECNTree() error: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseECNTree() mismatch (-want +got):\n%s", diff)
	}
}

func TestParseECNTreeErrors(t *testing.T) {
	for _, in := range []string{
		"ens1 rp dce_tcp_g\n",
		"ens1 xx dce_tcp_g 1\n",
		"ens1 rp dce_tcp_g one\n",
		"ens1 rp enable/8 1\n",
		"ens1 np enable/x 1\n",
		"ens1 rp dce_tcp_g 1 extra\n",
	} {
		_, err := ParseECNTree(in)
		wantParseError(t, err, "ecn")
	}
}

// TestECNTreeScript runs the script on a fake /sys/class/net with one OFED
// interface, one inbox interface and a non-file entry.
func TestECNTreeScript(t *testing.T) {
	root := filepath.Join(t.TempDir(), "net")
	ecn := filepath.Join(root, "ens1f0np0", "ecn")
	for name, v := range defaultRP() {
		writeFile(t, filepath.Join(ecn, "roce_rp", name), strconv.FormatInt(v, 10)+"\n")
	}
	for name, v := range defaultNP() {
		writeFile(t, filepath.Join(ecn, "roce_np", name), strconv.FormatInt(v, 10)+"\n")
	}
	for p := 0; p < 8; p++ {
		v := "0\n"
		if p == 3 {
			v = "1\n"
		}
		writeFile(t, filepath.Join(ecn, "roce_rp", "enable", strconv.Itoa(p)), v)
		writeFile(t, filepath.Join(ecn, "roce_np", "enable", strconv.Itoa(p)), v)
	}
	writeFile(t, filepath.Join(root, "eno1", "address"), "00:11:22:33:44:55\n") // inbox: no ecn/
	want := map[string]ECNState{
		"ens1f0np0": {RPEnabled: [8]bool{3: true}, NPEnabled: [8]bool{3: true}, RP: defaultRP(), NP: defaultNP()},
	}

	for _, ifaces := range [][]string{nil, {"ens1f0np0", "eno1"}} {
		s, err := ecnTreeScript(root, ifaces)
		if err != nil {
			t.Fatal(err)
		}
		script, err := s.Render()
		if err != nil {
			t.Fatal(err)
		}
		out := runScript(t, script)
		got, err := ParseECNTree(out)
		if err != nil {
			t.Fatalf("ParseECNTree(%q): %v", out, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ifaces %v: parsed script output mismatch (-want +got):\n%s", ifaces, diff)
		}
	}
}

func TestECNTreeScriptRejectsBadNames(t *testing.T) {
	for _, bad := range []string{"", "../../etc", "a b", "x:1", "waytoolonginterfacename", ".", ".."} {
		if _, err := ECNTreeScript("ens1", bad); err == nil {
			t.Errorf("ECNTreeScript(%q) succeeded, want error", bad)
		}
		if _, err := ECNTreeProbe(bad); err == nil {
			t.Errorf("ECNTreeProbe(%q) succeeded, want error", bad)
		}
	}
	s, err := ECNTreeScript("eth$(id)")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.String(), "for i in 'eth$(id)'; do") {
		t.Errorf("interface not quoted:\n%s", s)
	}
}

func FuzzECNTree(f *testing.F) {
	addSeeds(f, "ecn_tree.txt")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseECNTree(s)
		if err != nil {
			return
		}
		for ifc, st := range got {
			if ifc == "" || st.RP == nil || st.NP == nil {
				t.Errorf("bad state for %q: %+v", ifc, st)
			}
		}
	})
}
