package fabric

import (
	"fmt"
	"math"

	"github.com/clusterbid/terraform-provider-roce/internal/violation"
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

// The ratio window's fields, as violations name them.
var (
	FieldRatioMin        = violation.At("RatioWindow.Min")
	FieldRatioMax        = violation.At("RatioWindow.Max")
	FieldRatioTarget     = violation.At("RatioWindow.Target")
	FieldRatioTargetBand = violation.At("RatioWindow.TargetBand")
)

// Validate checks Min > 0, Min <= Target <= Max and TargetBand >= 0.
func (w RatioWindow) Validate() violation.List {
	var vs violation.List
	for _, v := range []struct {
		at  violation.Field
		val float64
	}{{FieldRatioMin, w.Min}, {FieldRatioMax, w.Max}, {FieldRatioTarget, w.Target}, {FieldRatioTargetBand, w.TargetBand}} {
		if math.IsNaN(v.val) || math.IsInf(v.val, 0) {
			vs = append(vs, violation.ErrorAt(v.at, NotFinite{Value: v.val}))
		}
	}
	if vs != nil {
		return vs
	}
	if w.Min <= 0 {
		vs = append(vs, violation.ErrorAt(FieldRatioMin, RatioWindowInvalid{Window: w}))
	}
	if w.Max < w.Min {
		vs = append(vs, violation.ErrorAt(FieldRatioMax, RatioWindowInvalid{Window: w}))
	} else if w.Target < w.Min || w.Target > w.Max {
		vs = append(vs, violation.ErrorAt(FieldRatioTarget, RatioWindowInvalid{Window: w}))
	}
	if w.TargetBand < 0 {
		vs = append(vs, violation.ErrorAt(FieldRatioTargetBand, RatioWindowInvalid{Window: w}))
	}
	return vs
}

// NotFinite: a ratio that is NaN or infinite.
type NotFinite struct{ Value float64 }

func (r NotFinite) Words(at violation.Field, name violation.Names) (string, string) {
	return "Invalid Ratio", fmt.Sprintf("%s is %v: use a finite number", name(at), r.Value)
}

// RatioWindowInvalid: a window whose field at is out of place.
type RatioWindowInvalid struct{ Window RatioWindow }

func (r RatioWindowInvalid) Words(at violation.Field, name violation.Names) (string, string) {
	w := r.Window
	var detail string
	switch at {
	case FieldRatioMin:
		detail = fmt.Sprintf("%s is %.2f; it must be above 0: use 2.0", name(at), w.Min)
	case FieldRatioMax:
		detail = fmt.Sprintf("%s (%.2f) is below %s (%.2f): raise max or lower min", name(at), w.Max, name(FieldRatioMin), w.Min)
	case FieldRatioTarget:
		detail = fmt.Sprintf("%s is %.2f, outside %s..%s (%.2f-%.2f): set it inside the window",
			name(at), w.Target, name(FieldRatioMin), name(FieldRatioMax), w.Min, w.Max)
	default:
		detail = fmt.Sprintf("%s is %.2f; it must be 0 or more: use 0.25", name(at), w.TargetBand)
	}
	return "Invalid Ratio Window", detail
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

// The thresholds' fields, as violations name them.
var (
	FieldECNMin          = violation.At("Thresholds.ECNMinBytes")
	FieldECNMax          = violation.At("Thresholds.ECNMaxBytes")
	FieldPFCPause        = violation.At("Thresholds.PFCPauseBytes")
	FieldMarkProbability = violation.At("Thresholds.MarkProbabilityPercent")
)

// CheckThresholds applies the plan-time ECN/PFC rule: positive thresholds,
// ECN min < ECN max <= PFC pause, pause / ECN min inside the ratio window
// (warning when off target), a marking probability of 1..100 % when given,
// and at 400G an ECN min of 80-120 KB (warning). The window's own violations
// are included; the ratio checks are skipped when the window is invalid.
func CheckThresholds(t Thresholds, w RatioWindow) violation.List {
	windowViolations := w.Validate()
	vs := append(violation.List(nil), windowViolations...)
	vs = append(vs, checkPositive(FieldECNMin, t.ECNMinBytes)...)
	vs = append(vs, checkPositive(FieldECNMax, t.ECNMaxBytes)...)
	vs = append(vs, checkPositive(FieldPFCPause, t.PFCPauseBytes)...)
	if t.MarkProbabilityPercent != 0 {
		vs = append(vs, CheckMarkProbability(t.MarkProbabilityPercent)...)
	}
	vs = append(vs, checkOrder(t)...)
	if !windowViolations.HasErrors() && t.ECNMinBytes > 0 && t.PFCPauseBytes > 0 {
		vs = append(vs, checkRatio(t, w)...)
	}
	vs = append(vs, checkSpeed(t)...)
	return vs
}

// CheckMarkProbability checks an ECN marking probability of 1..100 %, 0 included: for
// callers where the probability is always given (a switch policy), 0 is a value, not "not
// given".
func CheckMarkProbability(percent int) violation.List {
	return checkRange(FieldMarkProbability, "a probability", int64(percent), 1, 100)
}

func checkPositive(at violation.Field, v int64) violation.List {
	if v > 0 {
		return nil
	}
	return violation.List{violation.ErrorAt(at, ThresholdNotPositive{Bytes: v})}
}

func checkOrder(t Thresholds) violation.List {
	var vs violation.List
	if t.ECNMinBytes > 0 && t.ECNMaxBytes > 0 && t.ECNMinBytes >= t.ECNMaxBytes {
		vs = append(vs, violation.ErrorAt(FieldECNMin, ECNOutOfOrder{MinBytes: t.ECNMinBytes, MaxBytes: t.ECNMaxBytes}))
	}
	if t.ECNMaxBytes > 0 && t.PFCPauseBytes > 0 && t.ECNMaxBytes > t.PFCPauseBytes {
		vs = append(vs, violation.ErrorAt(FieldECNMax, ECNAfterPFC{ECNMaxBytes: t.ECNMaxBytes, PauseBytes: t.PFCPauseBytes}))
	}
	return vs
}

func checkRatio(t Thresholds, w RatioWindow) violation.List {
	r := PFCRatio{PauseBytes: t.PFCPauseBytes, ECNMinBytes: t.ECNMinBytes, Window: w}
	ratio := r.ratio()
	if ratio < w.Min || ratio > w.Max {
		return violation.List{violation.ErrorAt(FieldPFCPause, r)}
	}
	if math.Abs(ratio-w.Target) > w.TargetBand {
		r.OffTarget = true
		return violation.List{violation.WarningAt(FieldPFCPause, r)}
	}
	return nil
}

// ThresholdNotPositive: a threshold of 0 bytes or less.
type ThresholdNotPositive struct{ Bytes int64 }

func (r ThresholdNotPositive) Words(at violation.Field, name violation.Names) (string, string) {
	return "Threshold Not Positive", fmt.Sprintf("%s is %d; it must be above 0 bytes: set a byte count", name(at), r.Bytes)
}

// ECNOutOfOrder: ECN marking starts at or above where it reaches its maximum.
type ECNOutOfOrder struct{ MinBytes, MaxBytes int64 }

func (r ECNOutOfOrder) Words(at violation.Field, name violation.Names) (string, string) {
	return "ECN Thresholds Out of Order", fmt.Sprintf("%s (%d) must be below %s (%d): lower the min or raise the max",
		name(at), r.MinBytes, name(FieldECNMax), r.MaxBytes)
}

// ECNAfterPFC: ECN marking still ramps up when PFC already pauses.
type ECNAfterPFC struct{ ECNMaxBytes, PauseBytes int64 }

func (r ECNAfterPFC) Words(at violation.Field, name violation.Names) (string, string) {
	return "ECN Marks After PFC Pauses", fmt.Sprintf("%s (%d) exceeds %s (%d); ECN must act before PFC: set it to at most %d",
		name(at), r.ECNMaxBytes, name(FieldPFCPause), r.PauseBytes, r.PauseBytes)
}

// PFCRatio: the pause threshold outside the ratio window (an error), or inside it but off
// its target (a warning, OffTarget).
type PFCRatio struct {
	PauseBytes, ECNMinBytes int64
	Window                  RatioWindow
	OffTarget               bool
}

func (r PFCRatio) ratio() float64 { return float64(r.PauseBytes) / float64(r.ECNMinBytes) }

func (r PFCRatio) Words(at violation.Field, name violation.Names) (string, string) {
	w := r.Window
	near := int64(math.Round(w.Target * float64(r.ECNMinBytes)))
	head := fmt.Sprintf("%s is %d, %.2f x %s (%d)", name(at), r.PauseBytes, r.ratio(), name(FieldECNMin), r.ECNMinBytes)
	if r.OffTarget {
		return "PFC/ECN Ratio Off Target", fmt.Sprintf("%s; the target is %.2f +/- %.2f x: set it near %d", head, w.Target, w.TargetBand, near)
	}
	return "PFC/ECN Ratio Outside Window", fmt.Sprintf("%s; the allowed window is %.2f-%.2f x (target %.2f): set it near %d",
		head, w.Min, w.Max, w.Target, near)
}

// CheckECNForSpeed returns the speed-dependent ECN warning alone, for callers that learn the
// port speed after the speed-free rules ran (a plan that has just read the switch).
func CheckECNForSpeed(ecnMinBytes int64, speedGbps int) violation.List {
	return checkSpeed(Thresholds{ECNMinBytes: ecnMinBytes, SpeedGbps: speedGbps})
}

func checkSpeed(t Thresholds) violation.List {
	if t.SpeedGbps != 400 || t.ECNMinBytes <= 0 {
		return nil
	}
	if t.ECNMinBytes >= ECNMin400GLowBytes && t.ECNMinBytes <= ECNMin400GHighBytes {
		return nil
	}
	return violation.List{violation.WarningAt(FieldECNMin, ECNUnusualFor400G{Bytes: t.ECNMinBytes})}
}

// ECNUnusualFor400G: an ECN marking start outside the usual 80-120 KB at 400G.
type ECNUnusualFor400G struct{ Bytes int64 }

func (r ECNUnusualFor400G) Words(at violation.Field, name violation.Names) (string, string) {
	return "ECN Threshold Unusual for 400G", fmt.Sprintf(
		"%s is %d; at 400G ECN marking usually starts at 80-120 KB (%d-%d bytes): set it near 100000",
		name(at), r.Bytes, ECNMin400GLowBytes, ECNMin400GHighBytes)
}
