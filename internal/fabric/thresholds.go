package fabric

import (
	"fmt"
	"math"
)

// RatioWindow bounds the ratio pfc.pause_threshold_bytes /
// ecn.min_threshold_bytes. Outside Min..Max is an error; more than
// TargetBand away from Target is a warning.
type RatioWindow struct {
	Min, Max, Target, TargetBand float64
}

// DefaultRatioWindow returns the window users asked for: 2.0..3.0, target
// 2.5 ± 0.25 (ECN marking at 100 KB, PFC pause at about 250 KB).
func DefaultRatioWindow() RatioWindow {
	return RatioWindow{Min: 2.0, Max: 3.0, Target: 2.5, TargetBand: 0.25}
}

// Validate checks Min > 0, Min <= Target <= Max and TargetBand >= 0. Paths:
// "ratio_window.min", "ratio_window.max", "ratio_window.target",
// "ratio_window.target_band".
func (w RatioWindow) Validate() Findings {
	var fs Findings
	for _, v := range []struct {
		path string
		val  float64
	}{{"ratio_window.min", w.Min}, {"ratio_window.max", w.Max}, {"ratio_window.target", w.Target}, {"ratio_window.target_band", w.TargetBand}} {
		if math.IsNaN(v.val) || math.IsInf(v.val, 0) {
			fs = append(fs, errorf(v.path, "Invalid Ratio", "%s is %v: use a finite number", v.path, v.val))
		}
	}
	if fs != nil {
		return fs
	}
	if w.Min <= 0 {
		fs = append(fs, errorf("ratio_window.min", "Invalid Ratio Window",
			"ratio_window.min is %.2f; it must be above 0: use 2.0", w.Min))
	}
	if w.Max < w.Min {
		fs = append(fs, errorf("ratio_window.max", "Invalid Ratio Window",
			"ratio_window.max (%.2f) is below ratio_window.min (%.2f): raise max or lower min", w.Max, w.Min))
	} else if w.Target < w.Min || w.Target > w.Max {
		fs = append(fs, errorf("ratio_window.target", "Invalid Ratio Window",
			"ratio_window.target is %.2f, outside ratio_window.min..ratio_window.max (%.2f-%.2f): set it inside the window", w.Target, w.Min, w.Max))
	}
	if w.TargetBand < 0 {
		fs = append(fs, errorf("ratio_window.target_band", "Invalid Ratio Window",
			"ratio_window.target_band is %.2f; it must be 0 or more: use 0.25", w.TargetBand))
	}
	return fs
}

// Thresholds are the ECN marking and PFC pause thresholds of the RDMA
// class on one port. MarkProbabilityPercent 0 means not given; SpeedGbps 0
// means unknown.
type Thresholds struct {
	ECNMinBytes, ECNMaxBytes, PFCPauseBytes int64
	MarkProbabilityPercent                  int
	SpeedGbps                               int
}

// Recommended ECN marking start at 400G, in bytes (KB = 1000 B).
const (
	ECNMin400GLowBytes  = 80_000
	ECNMin400GHighBytes = 120_000
)

// CheckThresholds applies the plan-time ECN/PFC rule: positive thresholds,
// ECN min < ECN max <= PFC pause, pause / ECN min inside the ratio window
// (warning when off target), a marking probability of 1..100 % when given,
// and at 400G an ECN min of 80-120 KB (warning). The window's own findings
// are included; the ratio checks are skipped when the window is invalid.
func CheckThresholds(t Thresholds, w RatioWindow) Findings {
	windowFindings := w.Validate()
	fs := append(Findings(nil), windowFindings...)
	fs = append(fs, checkPositive("ecn.min_threshold_bytes", t.ECNMinBytes)...)
	fs = append(fs, checkPositive("ecn.max_threshold_bytes", t.ECNMaxBytes)...)
	fs = append(fs, checkPositive("pfc.pause_threshold_bytes", t.PFCPauseBytes)...)
	if t.MarkProbabilityPercent != 0 {
		fs = append(fs, CheckMarkProbability(t.MarkProbabilityPercent)...)
	}
	fs = append(fs, checkOrder(t)...)
	if !windowFindings.HasErrors() && t.ECNMinBytes > 0 && t.PFCPauseBytes > 0 {
		fs = append(fs, checkRatio(t, w)...)
	}
	fs = append(fs, checkSpeed(t)...)
	return fs
}

// CheckMarkProbability checks an ECN marking probability of 1..100 %, 0 included: for
// callers where the probability is always given (a switch policy), 0 is a value, not "not
// given". Path: "ecn.mark_probability_percent".
func CheckMarkProbability(percent int) Findings {
	return checkRange("ecn.mark_probability_percent", "a probability", int64(percent), 1, 100)
}

func checkPositive(path string, v int64) Findings {
	if v > 0 {
		return nil
	}
	return Findings{errorf(path, "Threshold Not Positive", "%s is %d; it must be above 0 bytes: set a byte count", path, v)}
}

func checkOrder(t Thresholds) Findings {
	var fs Findings
	if t.ECNMinBytes > 0 && t.ECNMaxBytes > 0 && t.ECNMinBytes >= t.ECNMaxBytes {
		fs = append(fs, errorf("ecn.min_threshold_bytes", "ECN Thresholds Out of Order",
			"ecn.min_threshold_bytes (%d) must be below ecn.max_threshold_bytes (%d): lower the min or raise the max",
			t.ECNMinBytes, t.ECNMaxBytes))
	}
	if t.ECNMaxBytes > 0 && t.PFCPauseBytes > 0 && t.ECNMaxBytes > t.PFCPauseBytes {
		fs = append(fs, errorf("ecn.max_threshold_bytes", "ECN Marks After PFC Pauses",
			"ecn.max_threshold_bytes (%d) exceeds pfc.pause_threshold_bytes (%d); ECN must act before PFC: set it to at most %d",
			t.ECNMaxBytes, t.PFCPauseBytes, t.PFCPauseBytes))
	}
	return fs
}

func checkRatio(t Thresholds, w RatioWindow) Findings {
	ratio := float64(t.PFCPauseBytes) / float64(t.ECNMinBytes)
	near := int64(math.Round(w.Target * float64(t.ECNMinBytes)))
	head := fmt.Sprintf("pfc.pause_threshold_bytes is %d, %.2f x ecn.min_threshold_bytes (%d)",
		t.PFCPauseBytes, ratio, t.ECNMinBytes)
	if ratio < w.Min || ratio > w.Max {
		return Findings{errorf("pfc.pause_threshold_bytes", "PFC/ECN Ratio Outside Window",
			"%s; the allowed window is %.2f-%.2f x (target %.2f): set it near %d", head, w.Min, w.Max, w.Target, near)}
	}
	if math.Abs(ratio-w.Target) > w.TargetBand {
		return Findings{warnf("pfc.pause_threshold_bytes", "PFC/ECN Ratio Off Target",
			"%s; the target is %.2f +/- %.2f x: set it near %d", head, w.Target, w.TargetBand, near)}
	}
	return nil
}

// CheckECNForSpeed returns the speed-dependent ECN warning alone, for callers that learn the
// port speed after the speed-free rules ran (a plan that has just read the switch).
func CheckECNForSpeed(ecnMinBytes int64, speedGbps int) Findings {
	return checkSpeed(Thresholds{ECNMinBytes: ecnMinBytes, SpeedGbps: speedGbps})
}

func checkSpeed(t Thresholds) Findings {
	if t.SpeedGbps != 400 || t.ECNMinBytes <= 0 {
		return nil
	}
	if t.ECNMinBytes >= ECNMin400GLowBytes && t.ECNMinBytes <= ECNMin400GHighBytes {
		return nil
	}
	return Findings{warnf("ecn.min_threshold_bytes", "ECN Threshold Unusual for 400G",
		"ecn.min_threshold_bytes is %d; at 400G ECN marking usually starts at 80-120 KB (%d-%d bytes): set it near 100000",
		t.ECNMinBytes, ECNMin400GLowBytes, ECNMin400GHighBytes)}
}
