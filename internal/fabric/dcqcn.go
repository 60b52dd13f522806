package fabric

import (
	"fmt"
	"math"

	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// DCQCN is the mlx5 congestion-control configuration in human units (units
// and ranges from NVIDIA's DCQCN parameter documentation, symbols from Zhu et
// al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015).
// Knobs converts it to the fixed-point firmware values.
type DCQCN struct {
	Gain                        float64 // g, unitless EWMA gain of alpha; dce_tcp_g = 1024 - g*1024
	AlphaUpdatePeriodUS         int     // dce_tcp_rtt
	InitialAlpha                float64 // initial_alpha_value / 1024
	AdditiveIncreaseMbps        int     // rpg_ai_rate
	HyperIncreaseMbps           int     // rpg_hai_rate
	TimeResetUS                 int     // rpg_time_reset
	ByteReset                   int     // rpg_byte_reset
	Threshold                   int     // rpg_threshold, fast-recovery stages
	MinRateMbps                 int     // rpg_min_rate
	CutFloorPercent             int     // rpg_min_dec_fac: % of the rate one cut keeps at least (100: no cuts)
	RateReduceMonitorPeriodUS   int     // rate_reduce_monitor_period
	MinTimeBetweenCNPsUS        int     // np min_time_between_cnps
	DecreaseShift               int     // rpg_gd, log2 shift of alpha in the rate cut (not the gain)
	ClampTargetRate             bool    // clamp_tgt_rate
	ClampTargetRateAfterTimeInc bool    // clamp_tgt_rate_after_time_inc
	RateOnFirstCNPMbps          int     // rate_to_set_on_first_cnp, 0 = off
	MaxRateMbps                 int     // rpg_max_rate, 0 = no cap
}

// Firmware fixed-point scale and the highest line rate a knob may name.
const (
	dcqcnFixedPoint  = 1024
	MaxLineRateMbps  = 800_000 // ConnectX-8 800G
	defaultDceTcpG   = 1019
	defaultAlphaFrac = 1023
)

// DefaultDCQCN returns the ConnectX firmware defaults: g = 5/1024 (about
// 1/205), alpha updated every 1 µs starting at 1023/1024, AI 5 Mb/s,
// HAI 50 Mb/s, time reset 300 µs, byte reset 32767, threshold 1, min rate
// 1 Mb/s, min decrease 50 %, monitor period 4 µs, 4 µs between CNPs, gd 11.
func DefaultDCQCN() DCQCN {
	return DCQCN{
		Gain:                        float64(dcqcnFixedPoint-defaultDceTcpG) / dcqcnFixedPoint,
		AlphaUpdatePeriodUS:         1,
		InitialAlpha:                float64(defaultAlphaFrac) / dcqcnFixedPoint,
		AdditiveIncreaseMbps:        5,
		HyperIncreaseMbps:           50,
		TimeResetUS:                 300,
		ByteReset:                   32767,
		Threshold:                   1,
		MinRateMbps:                 1,
		CutFloorPercent:             50,
		RateReduceMonitorPeriodUS:   4,
		MinTimeBetweenCNPsUS:        4,
		DecreaseShift:               11,
		ClampTargetRateAfterTimeInc: true,
	}
}

// DCQCN fields that rules other than a knob's range name.
var (
	FieldDCQCNGain             = violation.At("DCQCN.Gain")
	FieldDCQCNInitialAlpha     = violation.At("DCQCN.InitialAlpha")
	FieldDCQCNMinRate          = violation.At("DCQCN.MinRateMbps")
	FieldDCQCNMaxRate          = violation.At("DCQCN.MaxRateMbps")
	FieldDCQCNAdditiveIncrease = violation.At("DCQCN.AdditiveIncreaseMbps")
	FieldDCQCNHyperIncrease    = violation.At("DCQCN.HyperIncreaseMbps")
)

// Validate checks every field against the firmware range of its knob; fields are named
// "DCQCN." plus the Go field name.
func (d DCQCN) Validate() violation.List {
	vs := checkFraction(FieldDCQCNGain, "gain", d.Gain, 1, dcqcnFixedPoint)
	vs = append(vs, checkFraction(FieldDCQCNInitialAlpha, "initial alpha", d.InitialAlpha, 1, dcqcnFixedPoint-1)...)
	for _, s := range intKnobs {
		vs = append(vs, checkRange(s.at, "it", s.get(d), s.lo, s.hi)...)
	}
	if d.MaxRateMbps > 0 && d.MinRateMbps > d.MaxRateMbps {
		vs = append(vs, violation.ErrorAt(FieldDCQCNMinRate, RatesOutOfOrder{MinMbps: d.MinRateMbps, MaxMbps: d.MaxRateMbps}))
	}
	if d.HyperIncreaseMbps < d.AdditiveIncreaseMbps {
		vs = append(vs, violation.WarningAt(FieldDCQCNHyperIncrease, HyperBelowAdditive{HyperMbps: d.HyperIncreaseMbps, AdditiveMbps: d.AdditiveIncreaseMbps}))
	}
	return vs
}

// checkFraction checks that v*1024 rounds into lo..hi and warns when v is
// not a multiple of 1/1024, since the firmware keeps only that precision.
func checkFraction(at violation.Field, what string, v float64, lo, hi int64) violation.List {
	r := Fraction{What: what, Value: v, Lo: lo, Hi: hi}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return violation.List{violation.ErrorAt(at, r)}
	}
	scaled := math.Round(v * dcqcnFixedPoint)
	if scaled < float64(lo) || scaled > float64(hi) {
		return violation.List{violation.ErrorAt(at, r)}
	}
	if scaled != v*dcqcnFixedPoint {
		r.Stored = int64(scaled)
		return violation.List{violation.WarningAt(at, r)}
	}
	return nil
}

// Fraction: a fixed-point knob (n/1024) that is not a finite number, is outside lo/1024 ..
// hi/1024, or (Stored > 0, a warning) is no multiple of 1/1024 and is stored rounded.
type Fraction struct {
	What   string
	Value  float64
	Lo, Hi int64
	Stored int64
}

func (r Fraction) Words(at violation.Field, name violation.Names) (string, string) {
	switch {
	case r.Stored > 0:
		return "Value Rounded by Firmware", fmt.Sprintf(
			"%s is %v, which the firmware stores in 1/1024 steps as %d/1024 = %s: use that value to avoid a permanent diff",
			name(at), r.Value, r.Stored, fracString(r.Stored))
	case math.IsNaN(r.Value) || math.IsInf(r.Value, 0):
		return "Value Out of Range", fmt.Sprintf("%s is %v: use a number between %s and %s", name(at), r.Value, fracString(r.Lo), fracString(r.Hi))
	}
	return "Value Out of Range", fmt.Sprintf("%s is %v; the %s must be between %s and %s (%d/1024..%d/1024): set a value in that range",
		name(at), r.Value, r.What, fracString(r.Lo), fracString(r.Hi), r.Lo, r.Hi)
}

// RatesOutOfOrder: a minimum rate above the cap.
type RatesOutOfOrder struct{ MinMbps, MaxMbps int }

func (r RatesOutOfOrder) Words(at violation.Field, name violation.Names) (string, string) {
	return "DCQCN Rates Out of Order", fmt.Sprintf("%s (%d) exceeds %s (%d): lower the minimum or raise the cap",
		name(at), r.MinMbps, name(FieldDCQCNMaxRate), r.MaxMbps)
}

// HyperBelowAdditive: the fast increase step below the slow one.
type HyperBelowAdditive struct{ HyperMbps, AdditiveMbps int }

func (r HyperBelowAdditive) Words(at violation.Field, name violation.Names) (string, string) {
	return "Hyper Increase Below Additive Increase", fmt.Sprintf(
		"%s (%d) is below %s (%d); hyper increase is the faster step: use at least %d",
		name(at), r.HyperMbps, name(FieldDCQCNAdditiveIncrease), r.AdditiveMbps, r.AdditiveMbps)
}

func fracString(n int64) string {
	return fmt.Sprintf("%.6g", float64(n)/dcqcnFixedPoint)
}
