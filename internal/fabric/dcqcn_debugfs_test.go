package fabric

import "testing"

func TestDebugfsName(t *testing.T) {
	tests := []struct {
		sysfs, want string
		ok          bool
	}{
		{"dce_tcp_g", "rp_dce_tcp_g", true},
		{"clamp_tgt_rate_after_time_inc", "rp_clamp_tgt_rate_ati", true},
		{"rpg_gd", "rp_gd", true},
		{"rpg_min_dec_fac", "rp_min_dec_fac", true},
		{"min_time_between_cnps", "np_min_time_between_cnps", true},
		{"cnp_dscp", "np_cnp_dscp", true},
		{"cnp_802p_prio", "np_cnp_prio", true},
		{"enable", "", false},
		{"rp_gd", "", false},
	}
	for _, tt := range tests {
		got, ok := DebugfsName(tt.sysfs)
		if got != tt.want || ok != tt.ok {
			t.Errorf("DebugfsName(%q) = %q, %v; want %q, %v", tt.sysfs, got, ok, tt.want, tt.ok)
		}
	}
	// Every knob Knobs emits has a debugfs name.
	k, err := DefaultDCQCN().Knobs()
	if err != nil {
		t.Fatal(err)
	}
	for _, kn := range append(append(k.RP, k.NP...), DefaultTrafficClass().CNPKnobs()...) {
		if _, ok := DebugfsName(kn.Name); !ok {
			t.Errorf("knob %s has no debugfs name", kn.Name)
		}
	}
}
