package fabric

import (
	"fmt"
	"math"
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

// Validate checks every field against the firmware range of its knob.
// Paths are "dcqcn." plus the snake_case field name, e.g. "dcqcn.gain",
// "dcqcn.alpha_update_period_us", "dcqcn.cut_floor_percent".
func (d DCQCN) Validate() Findings {
	fs := checkFraction("dcqcn.gain", "gain", d.Gain, 1, dcqcnFixedPoint)
	fs = append(fs, checkFraction("dcqcn.initial_alpha", "initial alpha", d.InitialAlpha, 1, dcqcnFixedPoint-1)...)
	for _, s := range intKnobs {
		fs = append(fs, checkRange(s.path, "it", s.get(d), s.lo, s.hi)...)
	}
	if d.MaxRateMbps > 0 && d.MinRateMbps > d.MaxRateMbps {
		fs = append(fs, errorf("dcqcn.min_rate_mbps", "DCQCN Rates Out of Order",
			"dcqcn.min_rate_mbps (%d) exceeds dcqcn.max_rate_mbps (%d): lower the minimum or raise the cap",
			d.MinRateMbps, d.MaxRateMbps))
	}
	if d.HyperIncreaseMbps < d.AdditiveIncreaseMbps {
		fs = append(fs, warnf("dcqcn.hyper_increase_mbps", "Hyper Increase Below Additive Increase",
			"dcqcn.hyper_increase_mbps (%d) is below dcqcn.additive_increase_mbps (%d); hyper increase is the faster step: use at least %d",
			d.HyperIncreaseMbps, d.AdditiveIncreaseMbps, d.AdditiveIncreaseMbps))
	}
	return fs
}

// checkFraction checks that v*1024 rounds into lo..hi and warns when v is
// not a multiple of 1/1024, since the firmware keeps only that precision.
func checkFraction(path, what string, v float64, lo, hi int64) Findings {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Findings{errorf(path, "Value Out of Range", "%s is %v: use a number between %s and %s", path, v, fracString(lo), fracString(hi))}
	}
	scaled := math.Round(v * dcqcnFixedPoint)
	if scaled < float64(lo) || scaled > float64(hi) {
		return Findings{errorf(path, "Value Out of Range",
			"%s is %v; the %s must be between %s and %s (%d/1024..%d/1024): set a value in that range", path, v, what, fracString(lo), fracString(hi), lo, hi)}
	}
	if scaled != v*dcqcnFixedPoint {
		return Findings{warnf(path, "Value Rounded by Firmware",
			"%s is %v, which the firmware stores in 1/1024 steps as %d/1024 = %s: use that value to avoid a permanent diff",
			path, v, int64(scaled), fracString(int64(scaled)))}
	}
	return nil
}

func fracString(n int64) string {
	return fmt.Sprintf("%.6g", float64(n)/dcqcnFixedPoint)
}
