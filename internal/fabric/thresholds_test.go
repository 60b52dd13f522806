package fabric

import (
	"math"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/violation"
	"github.com/google/go-cmp/cmp"
)

func TestRatioWindowValidate(t *testing.T) {
	tests := []struct {
		name string
		w    RatioWindow
		want []string
	}{
		{"default", DefaultRatioWindow(), nil},
		{"point window", RatioWindow{Min: 2.5, Max: 2.5, Target: 2.5}, nil},
		{"min zero", RatioWindow{Min: 0, Max: 3, Target: 2.5, TargetBand: 0.25}, []string{"error ratio_window.min"}},
		{"min negative", RatioWindow{Min: -1, Max: 3, Target: 2.5, TargetBand: 0.25}, []string{"error ratio_window.min"}},
		{"max below min", RatioWindow{Min: 3, Max: 2, Target: 2.5, TargetBand: 0.25}, []string{"error ratio_window.max"}},
		{"target below min", RatioWindow{Min: 2, Max: 3, Target: 1.5, TargetBand: 0.25}, []string{"error ratio_window.target"}},
		{"target above max", RatioWindow{Min: 2, Max: 3, Target: 3.5, TargetBand: 0.25}, []string{"error ratio_window.target"}},
		{"band negative", RatioWindow{Min: 2, Max: 3, Target: 2.5, TargetBand: -0.1}, []string{"error ratio_window.target_band"}},
		{"NaN", RatioWindow{Min: math.NaN(), Max: 3, Target: 2.5, TargetBand: 0.25}, []string{"error ratio_window.min"}},
		{"infinite band", RatioWindow{Min: 2, Max: 3, Target: 2.5, TargetBand: math.Inf(1)}, []string{"error ratio_window.target_band"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkFindings(t, tt.want, tt.w.Validate())
		})
	}
}

// goodThresholds is ECN 100 KB / 200 KB, PFC 250 KB at 400G: the rule's own example.
func goodThresholds() Thresholds {
	return Thresholds{ECNMinBytes: 100_000, ECNMaxBytes: 200_000, PFCPauseBytes: 250_000, MarkProbabilityPercent: 100, SpeedGbps: 400}
}

func TestCheckThresholds(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Thresholds)
		w      RatioWindow
		want   []string
	}{
		{"rule example is clean", func(*Thresholds) {}, DefaultRatioWindow(), nil},
		{"ECN min zero", func(th *Thresholds) { th.ECNMinBytes = 0 }, DefaultRatioWindow(), []string{"error ecn.min_threshold_bytes"}},
		{"ECN max negative", func(th *Thresholds) { th.ECNMaxBytes = -1 }, DefaultRatioWindow(), []string{"error ecn.max_threshold_bytes"}},
		{"pause zero", func(th *Thresholds) { th.PFCPauseBytes = 0 }, DefaultRatioWindow(), []string{"error pfc.pause_threshold_bytes"}},
		{"ECN min equals max", func(th *Thresholds) { th.ECNMaxBytes = 100_000 }, DefaultRatioWindow(), []string{"error ecn.min_threshold_bytes"}},
		{"ECN min above max", func(th *Thresholds) { th.ECNMaxBytes = 90_000 }, DefaultRatioWindow(), []string{"error ecn.min_threshold_bytes"}},
		{"ECN max above pause", func(th *Thresholds) { th.ECNMaxBytes = 260_000 }, DefaultRatioWindow(), []string{"error ecn.max_threshold_bytes"}},
		{"ECN max equals pause", func(th *Thresholds) { th.ECNMaxBytes = 250_000 }, DefaultRatioWindow(), nil},
		{"ratio above window", func(th *Thresholds) { th.PFCPauseBytes = 400_000 }, DefaultRatioWindow(), []string{"error pfc.pause_threshold_bytes"}},
		{"ratio below window", func(th *Thresholds) { th.PFCPauseBytes = 199_999; th.ECNMaxBytes = 150_000 }, DefaultRatioWindow(), []string{"error pfc.pause_threshold_bytes"}},
		{"ratio at window min warns off target", func(th *Thresholds) { th.PFCPauseBytes = 200_000 }, DefaultRatioWindow(), []string{"warning pfc.pause_threshold_bytes"}},
		{"ratio at window max warns off target", func(th *Thresholds) { th.PFCPauseBytes = 300_000 }, DefaultRatioWindow(), []string{"warning pfc.pause_threshold_bytes"}},
		{"ratio at band edge is clean", func(th *Thresholds) { th.PFCPauseBytes = 275_000 }, DefaultRatioWindow(), nil},
		{"ratio just past band warns", func(th *Thresholds) { th.PFCPauseBytes = 276_000 }, DefaultRatioWindow(), []string{"warning pfc.pause_threshold_bytes"}},
		{"custom window accepts 4x", func(th *Thresholds) { th.PFCPauseBytes = 400_000 }, RatioWindow{Min: 3, Max: 5, Target: 4, TargetBand: 0.5}, nil},
		{"probability not given", func(th *Thresholds) { th.MarkProbabilityPercent = 0 }, DefaultRatioWindow(), nil},
		{"probability 1", func(th *Thresholds) { th.MarkProbabilityPercent = 1 }, DefaultRatioWindow(), nil},
		{"probability above 100", func(th *Thresholds) { th.MarkProbabilityPercent = 101 }, DefaultRatioWindow(), []string{"error ecn.mark_probability_percent"}},
		{"probability negative", func(th *Thresholds) { th.MarkProbabilityPercent = -5 }, DefaultRatioWindow(), []string{"error ecn.mark_probability_percent"}},
		{"400G ECN min above 120 KB", func(th *Thresholds) {
			*th = Thresholds{ECNMinBytes: 150_000, ECNMaxBytes: 300_000, PFCPauseBytes: 375_000, SpeedGbps: 400}
		}, DefaultRatioWindow(), []string{"warning ecn.min_threshold_bytes"}},
		{"400G ECN min below 80 KB", func(th *Thresholds) {
			*th = Thresholds{ECNMinBytes: 79_999, ECNMaxBytes: 150_000, PFCPauseBytes: 200_000, SpeedGbps: 400}
		}, DefaultRatioWindow(), []string{"warning ecn.min_threshold_bytes"}},
		{"400G ECN min at 80 KB", func(th *Thresholds) {
			*th = Thresholds{ECNMinBytes: 80_000, ECNMaxBytes: 150_000, PFCPauseBytes: 200_000, SpeedGbps: 400}
		}, DefaultRatioWindow(), nil},
		{"400G ECN min at 120 KB", func(th *Thresholds) {
			*th = Thresholds{ECNMinBytes: 120_000, ECNMaxBytes: 200_000, PFCPauseBytes: 300_000, SpeedGbps: 400}
		}, DefaultRatioWindow(), nil},
		{"800G skips the 400G band", func(th *Thresholds) {
			*th = Thresholds{ECNMinBytes: 150_000, ECNMaxBytes: 300_000, PFCPauseBytes: 375_000, SpeedGbps: 800}
		}, DefaultRatioWindow(), nil},
		{"unknown speed skips the band", func(th *Thresholds) {
			*th = Thresholds{ECNMinBytes: 150_000, ECNMaxBytes: 300_000, PFCPauseBytes: 375_000}
		}, DefaultRatioWindow(), nil},
		{"invalid window reported, ratio skipped", func(th *Thresholds) { th.PFCPauseBytes = 900_000 },
			RatioWindow{Min: 3, Max: 2, Target: 2.5}, []string{"error ratio_window.max"}},
		{"everything wrong", func(th *Thresholds) { *th = Thresholds{MarkProbabilityPercent: 200, SpeedGbps: 400} },
			DefaultRatioWindow(), []string{"error ecn.min_threshold_bytes", "error ecn.max_threshold_bytes",
				"error pfc.pause_threshold_bytes", "error ecn.mark_probability_percent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th := goodThresholds()
			tt.modify(&th)
			checkFindings(t, tt.want, CheckThresholds(th, tt.w))
		})
	}
}

func TestCheckThresholdsMessages(t *testing.T) {
	tests := []struct {
		name string
		th   Thresholds
		want []found
	}{
		{"ratio error", Thresholds{ECNMinBytes: 102_400, ECNMaxBytes: 200_000, PFCPauseBytes: 512_000, SpeedGbps: 400},
			[]found{{violation.Error, "pfc.pause_threshold_bytes", "PFC/ECN Ratio Outside Window",
				"pfc.pause_threshold_bytes is 512000, 5.00 x ecn.min_threshold_bytes (102400); the allowed window is 2.00-3.00 x (target 2.50): set it near 256000"}}},
		{"ratio warning", Thresholds{ECNMinBytes: 100_000, ECNMaxBytes: 200_000, PFCPauseBytes: 210_000},
			[]found{{violation.Warning, "pfc.pause_threshold_bytes", "PFC/ECN Ratio Off Target",
				"pfc.pause_threshold_bytes is 210000, 2.10 x ecn.min_threshold_bytes (100000); the target is 2.50 +/- 0.25 x: set it near 250000"}}},
		{"400G band", Thresholds{ECNMinBytes: 150_000, ECNMaxBytes: 300_000, PFCPauseBytes: 375_000, SpeedGbps: 400},
			[]found{{violation.Warning, "ecn.min_threshold_bytes", "ECN Threshold Unusual for 400G",
				"ecn.min_threshold_bytes is 150000; at 400G ECN marking usually starts at 80-120 KB (80000-120000 bytes): set it near 100000"}}},
		{"order", Thresholds{ECNMinBytes: 100_000, ECNMaxBytes: 260_000, PFCPauseBytes: 250_000},
			[]found{{violation.Error, "ecn.max_threshold_bytes", "ECN Marks After PFC Pauses",
				"ecn.max_threshold_bytes (260000) exceeds pfc.pause_threshold_bytes (250000); ECN must act before PFC: set it to at most 250000"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, render(CheckThresholds(tt.th, DefaultRatioWindow()))); diff != "" {
				t.Errorf("CheckThresholds mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckECNForSpeed(t *testing.T) {
	if fs := render(CheckECNForSpeed(150000, 400)); len(fs) != 1 || fs[0].Severity != violation.Warning || fs[0].Path != "ecn.min_threshold_bytes" {
		t.Errorf("150000 B at 400G: %v, want one warning on ecn.min_threshold_bytes", fs)
	}
	if fs := CheckECNForSpeed(102400, 400); len(fs) != 0 {
		t.Errorf("102400 B at 400G: %v, want none", fs)
	}
	if fs := CheckECNForSpeed(150000, 800); len(fs) != 0 {
		t.Errorf("800G has no band: %v", fs)
	}
}

func TestCheckMarkProbability(t *testing.T) {
	for p, ok := range map[int]bool{0: false, 1: true, 100: true, 101: false, -1: false} {
		vs := CheckMarkProbability(p)
		fs := render(vs)
		if vs.HasErrors() == ok {
			t.Errorf("CheckMarkProbability(%d) = %v", p, fs)
		}
		if !ok && (fs[0].Path != "ecn.mark_probability_percent" || !strings.Contains(fs[0].Detail, "must be 1..100")) {
			t.Errorf("CheckMarkProbability(%d) = %v", p, fs)
		}
	}
}
