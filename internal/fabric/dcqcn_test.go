package fabric

import (
	"math"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/violation"
	"github.com/google/go-cmp/cmp"
)

func TestDefaultDCQCN(t *testing.T) {
	want := DCQCN{
		Gain: 5.0 / 1024, AlphaUpdatePeriodUS: 1, InitialAlpha: 1023.0 / 1024,
		AdditiveIncreaseMbps: 5, HyperIncreaseMbps: 50, TimeResetUS: 300, ByteReset: 32767,
		Threshold: 1, MinRateMbps: 1, CutFloorPercent: 50, RateReduceMonitorPeriodUS: 4,
		MinTimeBetweenCNPsUS: 4, DecreaseShift: 11, ClampTargetRateAfterTimeInc: true,
	}
	if diff := cmp.Diff(want, DefaultDCQCN()); diff != "" {
		t.Errorf("DefaultDCQCN() mismatch (-want +got):\n%s", diff)
	}
}

func TestDCQCNValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*DCQCN)
		want   []string
	}{
		{"defaults", func(*DCQCN) {}, nil},
		{"gain 1/256 (paper)", func(d *DCQCN) { d.Gain = 1.0 / 256 }, nil},
		{"gain 1", func(d *DCQCN) { d.Gain = 1 }, nil},
		{"gain 1/1024", func(d *DCQCN) { d.Gain = 1.0 / 1024 }, nil},
		{"gain zero", func(d *DCQCN) { d.Gain = 0 }, []string{"error dcqcn.gain"}},
		{"gain above 1", func(d *DCQCN) { d.Gain = 1.5 }, []string{"error dcqcn.gain"}},
		{"gain NaN", func(d *DCQCN) { d.Gain = math.NaN() }, []string{"error dcqcn.gain"}},
		{"gain not on the 1/1024 grid", func(d *DCQCN) { d.Gain = 0.005 }, []string{"warning dcqcn.gain"}},
		{"alpha 1 does not fit", func(d *DCQCN) { d.InitialAlpha = 1 }, []string{"error dcqcn.initial_alpha"}},
		{"alpha zero", func(d *DCQCN) { d.InitialAlpha = 0 }, []string{"error dcqcn.initial_alpha"}},
		{"alpha 0.5", func(d *DCQCN) { d.InitialAlpha = 0.5 }, nil},
		{"alpha off grid", func(d *DCQCN) { d.InitialAlpha = 0.3 }, []string{"warning dcqcn.initial_alpha"}},
		{"alpha period zero", func(d *DCQCN) { d.AlphaUpdatePeriodUS = 0 }, []string{"error dcqcn.alpha_update_period_us"}},
		{"alpha period max", func(d *DCQCN) { d.AlphaUpdatePeriodUS = 131071 }, nil},
		{"alpha period above max", func(d *DCQCN) { d.AlphaUpdatePeriodUS = 131072 }, []string{"error dcqcn.alpha_update_period_us"}},
		{"AI zero", func(d *DCQCN) { d.AdditiveIncreaseMbps = 0 }, []string{"error dcqcn.additive_increase_mbps"}},
		{"AI above line rate", func(d *DCQCN) { d.AdditiveIncreaseMbps = 800_001; d.HyperIncreaseMbps = 800_000 },
			[]string{"error dcqcn.additive_increase_mbps", "warning dcqcn.hyper_increase_mbps"}},
		{"HAI zero", func(d *DCQCN) { d.HyperIncreaseMbps = 0 }, []string{"error dcqcn.hyper_increase_mbps", "warning dcqcn.hyper_increase_mbps"}},
		{"HAI below AI", func(d *DCQCN) { d.HyperIncreaseMbps = 4 }, []string{"warning dcqcn.hyper_increase_mbps"}},
		{"time reset zero", func(d *DCQCN) { d.TimeResetUS = 0 }, []string{"error dcqcn.time_reset_us"}},
		{"time reset above max", func(d *DCQCN) { d.TimeResetUS = 131072 }, []string{"error dcqcn.time_reset_us"}},
		{"byte reset zero", func(d *DCQCN) { d.ByteReset = 0 }, []string{"error dcqcn.byte_reset"}},
		{"byte reset above max", func(d *DCQCN) { d.ByteReset = 32768 }, []string{"error dcqcn.byte_reset"}},
		{"threshold zero", func(d *DCQCN) { d.Threshold = 0 }, []string{"error dcqcn.threshold"}},
		{"threshold 31", func(d *DCQCN) { d.Threshold = 31 }, nil},
		{"threshold 32", func(d *DCQCN) { d.Threshold = 32 }, []string{"error dcqcn.threshold"}},
		{"min rate zero", func(d *DCQCN) { d.MinRateMbps = 0 }, []string{"error dcqcn.min_rate_mbps"}},
		{"cut floor 0", func(d *DCQCN) { d.CutFloorPercent = 0 }, nil},
		{"cut floor 101", func(d *DCQCN) { d.CutFloorPercent = 101 }, []string{"error dcqcn.cut_floor_percent"}},
		{"monitor period zero", func(d *DCQCN) { d.RateReduceMonitorPeriodUS = 0 }, []string{"error dcqcn.rate_reduce_monitor_period_us"}},
		{"CNP interval 0", func(d *DCQCN) { d.MinTimeBetweenCNPsUS = 0 }, nil},
		{"CNP interval 4096", func(d *DCQCN) { d.MinTimeBetweenCNPsUS = 4096 }, []string{"error dcqcn.min_time_between_cnps_us"}},
		{"decrease shift 10", func(d *DCQCN) { d.DecreaseShift = 10 }, nil},
		{"decrease shift 7 (old firmware)", func(d *DCQCN) { d.DecreaseShift = 7 }, []string{"error dcqcn.decrease_shift"}},
		{"first CNP rate negative", func(d *DCQCN) { d.RateOnFirstCNPMbps = -1 }, []string{"error dcqcn.rate_on_first_cnp_mbps"}},
		{"max rate negative", func(d *DCQCN) { d.MaxRateMbps = -1 }, []string{"error dcqcn.max_rate_mbps"}},
		{"max rate below min rate", func(d *DCQCN) { d.MinRateMbps = 1000; d.MaxRateMbps = 500 }, []string{"error dcqcn.min_rate_mbps"}},
		{"max rate cap above min", func(d *DCQCN) { d.MinRateMbps = 100; d.MaxRateMbps = 200_000 }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := DefaultDCQCN()
			tt.modify(&d)
			checkFindings(t, tt.want, d.Validate())
		})
	}
}

func TestDCQCNValidateRoundingMessage(t *testing.T) {
	d := DefaultDCQCN()
	d.Gain = 0.005
	fs := render(d.Validate())
	want := []found{{violation.Warning, "dcqcn.gain", "Value Rounded by Firmware",
		"dcqcn.gain is 0.005, which the firmware stores in 1/1024 steps as 5/1024 = 0.00488281: use that value to avoid a permanent diff"}}
	if diff := cmp.Diff(want, fs); diff != "" {
		t.Errorf("Validate mismatch (-want +got):\n%s", diff)
	}
}

func defaultKnobs() DCQCNKnobs {
	return DCQCNKnobs{
		RP: []Knob{
			{"clamp_tgt_rate", 0}, {"clamp_tgt_rate_after_time_inc", 1}, {"rpg_time_reset", 300},
			{"rpg_byte_reset", 32767}, {"rpg_threshold", 1}, {"rpg_max_rate", 0}, {"rpg_ai_rate", 5},
			{"rpg_hai_rate", 50}, {"rpg_gd", 11}, {"rpg_min_dec_fac", 50}, {"rpg_min_rate", 1},
			{"rate_to_set_on_first_cnp", 0}, {"dce_tcp_g", 1019}, {"dce_tcp_rtt", 1},
			{"rate_reduce_monitor_period", 4}, {"initial_alpha_value", 1023},
		},
		NP: []Knob{{"min_time_between_cnps", 4}},
	}
}

func TestDCQCNKnobs(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*DCQCN)
		want   func(*DCQCNKnobs)
	}{
		{"defaults are the firmware defaults", func(*DCQCN) {}, func(*DCQCNKnobs) {}},
		{"gain 1/256 is dce_tcp_g 1020", func(d *DCQCN) { d.Gain = 1.0 / 256 }, func(k *DCQCNKnobs) { k.RP[12].Value = 1020 }},
		{"gain 1 is dce_tcp_g 0", func(d *DCQCN) { d.Gain = 1 }, func(k *DCQCNKnobs) { k.RP[12].Value = 0 }},
		{"gain rounds to nearest", func(d *DCQCN) { d.Gain = 0.0054 }, func(k *DCQCNKnobs) { k.RP[12].Value = 1018 }},
		{"alpha rounds to nearest", func(d *DCQCN) { d.InitialAlpha = 0.3 }, func(k *DCQCNKnobs) { k.RP[15].Value = 307 }},
		{"alpha 0.5 is 512", func(d *DCQCN) { d.InitialAlpha = 0.5 }, func(k *DCQCNKnobs) { k.RP[15].Value = 512 }},
		{"booleans", func(d *DCQCN) { d.ClampTargetRate = true; d.ClampTargetRateAfterTimeInc = false },
			func(k *DCQCNKnobs) { k.RP[0].Value = 1; k.RP[1].Value = 0 }},
		{"rates", func(d *DCQCN) { d.MaxRateMbps = 400_000; d.RateOnFirstCNPMbps = 100_000; d.MinRateMbps = 10 },
			func(k *DCQCNKnobs) { k.RP[5].Value = 400_000; k.RP[11].Value = 100_000; k.RP[10].Value = 10 }},
		{"CNP interval", func(d *DCQCN) { d.MinTimeBetweenCNPsUS = 0 }, func(k *DCQCNKnobs) { k.NP[0].Value = 0 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := DefaultDCQCN()
			tt.modify(&d)
			want := defaultKnobs()
			tt.want(&want)
			got, err := d.Knobs()
			if err != nil {
				t.Fatalf("Knobs: %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Knobs mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDCQCNKnobsRejectsInvalid(t *testing.T) {
	d := DefaultDCQCN()
	d.Gain = 2
	d.Threshold = 0
	_, err := d.Knobs()
	if err == nil {
		t.Fatal("Knobs accepted gain 2 and threshold 0")
	}
	for _, want := range []string{"invalid dcqcn settings", "DCQCN.Gain is 2", "DCQCN.Threshold is 0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
}

func TestDCQCNRoundTrip(t *testing.T) {
	edges := map[string]func(*DCQCN){
		"defaults": func(*DCQCN) {},
		"low edges": func(d *DCQCN) {
			*d = DCQCN{Gain: 1, AlphaUpdatePeriodUS: 1, InitialAlpha: 1.0 / 1024, AdditiveIncreaseMbps: 1,
				HyperIncreaseMbps: 1, TimeResetUS: 1, ByteReset: 1, Threshold: 1, MinRateMbps: 1,
				RateReduceMonitorPeriodUS: 1, DecreaseShift: 10}
		},
		"high edges": func(d *DCQCN) {
			*d = DCQCN{Gain: 1.0 / 1024, AlphaUpdatePeriodUS: 131071, InitialAlpha: 1023.0 / 1024,
				AdditiveIncreaseMbps: 800_000, HyperIncreaseMbps: 800_000, TimeResetUS: 131071, ByteReset: 32767,
				Threshold: 31, MinRateMbps: 800_000, CutFloorPercent: 100, RateReduceMonitorPeriodUS: math.MaxUint32,
				MinTimeBetweenCNPsUS: 4095, DecreaseShift: 11, ClampTargetRate: true, ClampTargetRateAfterTimeInc: true,
				RateOnFirstCNPMbps: 800_000, MaxRateMbps: 800_000}
		},
	}
	for name, modify := range edges {
		t.Run(name, func(t *testing.T) {
			d := DefaultDCQCN()
			modify(&d)
			k, err := d.Knobs()
			if err != nil {
				t.Fatalf("Knobs: %v", err)
			}
			back, err := DCQCNFromKnobs(k)
			if err != nil {
				t.Fatalf("DCQCNFromKnobs: %v", err)
			}
			if diff := cmp.Diff(d, back); diff != "" {
				t.Errorf("round trip mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDCQCNFromKnobsOrderFree(t *testing.T) {
	k := defaultKnobs()
	for i, j := 0, len(k.RP)-1; i < j; i, j = i+1, j-1 {
		k.RP[i], k.RP[j] = k.RP[j], k.RP[i]
	}
	got, err := DCQCNFromKnobs(k)
	if err != nil {
		t.Fatalf("DCQCNFromKnobs: %v", err)
	}
	if diff := cmp.Diff(DefaultDCQCN(), got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestDCQCNFromKnobsErrors(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*DCQCNKnobs)
		want   string
	}{
		{"missing RP knob", func(k *DCQCNKnobs) { k.RP = k.RP[1:] },
			"knob clamp_tgt_rate is missing: read every dcqcn knob before converting"},
		{"missing NP knob", func(k *DCQCNKnobs) { k.NP = nil },
			"knob min_time_between_cnps is missing: read every dcqcn knob before converting"},
		{"duplicate", func(k *DCQCNKnobs) { k.RP = append(k.RP, Knob{"rpg_gd", 11}) },
			"knob rpg_gd appears twice: give each knob once"},
		{"NP knob under RP", func(k *DCQCNKnobs) { k.RP = append(k.RP, Knob{"min_time_between_cnps", 4}) },
			`knob "min_time_between_cnps" is not a dcqcn knob under ecn/roce_rp: use one of clamp_tgt_rate, clamp_tgt_rate_after_time_inc, rpg_time_reset, rpg_byte_reset, rpg_threshold, rpg_max_rate, rpg_ai_rate, rpg_hai_rate, rpg_gd, rpg_min_dec_fac, rpg_min_rate, rate_to_set_on_first_cnp, dce_tcp_g, dce_tcp_rtt, rate_reduce_monitor_period, initial_alpha_value`},
		{"unknown NP knob", func(k *DCQCNKnobs) { k.NP = append(k.NP, Knob{"cnp_dscp", 48}) },
			`knob "cnp_dscp" is not a dcqcn knob under ecn/roce_np: use one of min_time_between_cnps`},
		{"dce_tcp_g 1024", func(k *DCQCNKnobs) { k.RP[12].Value = 1024 },
			"knob dce_tcp_g is 1024: the firmware range is 0..1023"},
		{"initial alpha 0", func(k *DCQCNKnobs) { k.RP[15].Value = 0 },
			"knob initial_alpha_value is 0: the firmware range is 1..1023"},
		{"boolean 2", func(k *DCQCNKnobs) { k.RP[0].Value = 2 },
			"knob clamp_tgt_rate is 2: the firmware range is 0..1"},
		{"old firmware gd 7", func(k *DCQCNKnobs) { k.RP[8].Value = 7 },
			"knob rpg_gd is 7: the firmware range is 10..11"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := defaultKnobs()
			tt.modify(&k)
			_, err := DCQCNFromKnobs(k)
			if err == nil {
				t.Fatalf("DCQCNFromKnobs accepted %+v", k)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
