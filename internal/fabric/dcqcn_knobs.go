package fabric

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// Knob is one mlx5 congestion-control firmware value. Name is the OFED
// sysfs file name under /sys/class/net/<if>/ecn/roce_rp or roce_np.
type Knob struct {
	Name  string
	Value int64
}

// DCQCNKnobs are the reaction-point (sender) and notification-point
// (receiver) knobs. RP follows the OFED sysfs order: clamp_tgt_rate,
// clamp_tgt_rate_after_time_inc, rpg_time_reset, rpg_byte_reset,
// rpg_threshold, rpg_max_rate, rpg_ai_rate, rpg_hai_rate, rpg_gd,
// rpg_min_dec_fac, rpg_min_rate, rate_to_set_on_first_cnp, dce_tcp_g,
// dce_tcp_rtt, rate_reduce_monitor_period, initial_alpha_value. NP is
// min_time_between_cnps (the CNP DSCP and priority come from
// TrafficClass.CNPKnobs).
type DCQCNKnobs struct {
	RP []Knob
	NP []Knob
}

// knobSpec ties one integer knob to its field and firmware range.
type knobSpec struct {
	name   string
	at     violation.Field
	lo, hi int64
	get    func(DCQCN) int64
	set    func(*DCQCN, int64)
}

func intKnob(name string, at violation.Field, lo, hi int64, field func(*DCQCN) *int) knobSpec {
	return knobSpec{name: name, at: at, lo: lo, hi: hi,
		get: func(d DCQCN) int64 { return int64(*field(&d)) },
		set: func(d *DCQCN, v int64) { *field(d) = int(v) }}
}

func boolKnob(name string, at violation.Field, field func(*DCQCN) *bool) knobSpec {
	return knobSpec{name: name, at: at, lo: 0, hi: 1,
		get: func(d DCQCN) int64 {
			if *field(&d) {
				return 1
			}
			return 0
		},
		set: func(d *DCQCN, v int64) { *field(d) = v == 1 }}
}

// intKnobs are the knobs whose human value is the knob value; ranges from
// NVIDIA's DCQCN parameter documentation, as prometheus/procfs
// sysfs/net_class_ecn.go also records them (line-rate bounds use
// MaxLineRateMbps).
var intKnobs = []knobSpec{
	intKnob("rpg_time_reset", violation.At("DCQCN.TimeResetUS"), 1, 131071, func(d *DCQCN) *int { return &d.TimeResetUS }),
	intKnob("rpg_byte_reset", violation.At("DCQCN.ByteReset"), 1, 32767, func(d *DCQCN) *int { return &d.ByteReset }),
	intKnob("rpg_threshold", violation.At("DCQCN.Threshold"), 1, 31, func(d *DCQCN) *int { return &d.Threshold }),
	intKnob("rpg_max_rate", violation.At("DCQCN.MaxRateMbps"), 0, MaxLineRateMbps, func(d *DCQCN) *int { return &d.MaxRateMbps }),
	intKnob("rpg_ai_rate", violation.At("DCQCN.AdditiveIncreaseMbps"), 1, MaxLineRateMbps, func(d *DCQCN) *int { return &d.AdditiveIncreaseMbps }),
	intKnob("rpg_hai_rate", violation.At("DCQCN.HyperIncreaseMbps"), 1, MaxLineRateMbps, func(d *DCQCN) *int { return &d.HyperIncreaseMbps }),
	intKnob("rpg_gd", violation.At("DCQCN.DecreaseShift"), 10, 11, func(d *DCQCN) *int { return &d.DecreaseShift }),
	intKnob("rpg_min_dec_fac", violation.At("DCQCN.CutFloorPercent"), 0, 100, func(d *DCQCN) *int { return &d.CutFloorPercent }),
	intKnob("rpg_min_rate", violation.At("DCQCN.MinRateMbps"), 1, MaxLineRateMbps, func(d *DCQCN) *int { return &d.MinRateMbps }),
	intKnob("rate_to_set_on_first_cnp", violation.At("DCQCN.RateOnFirstCNPMbps"), 0, MaxLineRateMbps, func(d *DCQCN) *int { return &d.RateOnFirstCNPMbps }),
	intKnob("dce_tcp_rtt", violation.At("DCQCN.AlphaUpdatePeriodUS"), 1, 131071, func(d *DCQCN) *int { return &d.AlphaUpdatePeriodUS }),
	intKnob("rate_reduce_monitor_period", violation.At("DCQCN.RateReduceMonitorPeriodUS"), 1, math.MaxUint32, func(d *DCQCN) *int { return &d.RateReduceMonitorPeriodUS }),
	intKnob("min_time_between_cnps", violation.At("DCQCN.MinTimeBetweenCNPsUS"), 0, 4095, func(d *DCQCN) *int { return &d.MinTimeBetweenCNPsUS }),
	boolKnob("clamp_tgt_rate", violation.At("DCQCN.ClampTargetRate"), func(d *DCQCN) *bool { return &d.ClampTargetRate }),
	boolKnob("clamp_tgt_rate_after_time_inc", violation.At("DCQCN.ClampTargetRateAfterTimeInc"), func(d *DCQCN) *bool { return &d.ClampTargetRateAfterTimeInc }),
}

// fractionKnobs are the fixed-point knobs (value / 1024).
var fractionKnobs = []knobSpec{
	{name: "dce_tcp_g", at: FieldDCQCNGain, lo: 0, hi: dcqcnFixedPoint - 1,
		get: func(d DCQCN) int64 { return dcqcnFixedPoint - int64(math.Round(d.Gain*dcqcnFixedPoint)) },
		set: func(d *DCQCN, v int64) { d.Gain = float64(dcqcnFixedPoint-v) / dcqcnFixedPoint }},
	{name: "initial_alpha_value", at: FieldDCQCNInitialAlpha, lo: 1, hi: dcqcnFixedPoint - 1,
		get: func(d DCQCN) int64 { return int64(math.Round(d.InitialAlpha * dcqcnFixedPoint)) },
		set: func(d *DCQCN, v int64) { d.InitialAlpha = float64(v) / dcqcnFixedPoint }},
}

var (
	rpKnobOrder = []string{
		"clamp_tgt_rate", "clamp_tgt_rate_after_time_inc", "rpg_time_reset", "rpg_byte_reset",
		"rpg_threshold", "rpg_max_rate", "rpg_ai_rate", "rpg_hai_rate", "rpg_gd", "rpg_min_dec_fac",
		"rpg_min_rate", "rate_to_set_on_first_cnp", "dce_tcp_g", "dce_tcp_rtt",
		"rate_reduce_monitor_period", "initial_alpha_value",
	}
	npKnobOrder = []string{"min_time_between_cnps"}
)

// knobSpecs indexes every knob spec by knob name.
var knobSpecs = func() map[string]knobSpec {
	m := map[string]knobSpec{}
	for _, group := range [][]knobSpec{intKnobs, fractionKnobs} {
		for _, s := range group {
			m[s.name] = s
		}
	}
	return m
}()

// Knobs converts the settings to firmware knobs: dce_tcp_g =
// round(1024 - g*1024), initial_alpha_value = round(alpha*1024), booleans
// as 0/1, everything else unchanged. It fails when Validate reports errors.
func (d DCQCN) Knobs() (DCQCNKnobs, error) {
	if err := d.Validate().Err(); err != nil {
		return DCQCNKnobs{}, fmt.Errorf("invalid dcqcn settings: %w", err)
	}
	return DCQCNKnobs{RP: knobValues(d, rpKnobOrder), NP: knobValues(d, npKnobOrder)}, nil
}

func knobValues(d DCQCN, order []string) []Knob {
	out := make([]Knob, len(order))
	for i, name := range order {
		s := knobSpecs[name]
		out[i] = Knob{Name: name, Value: s.get(d)}
	}
	return out
}

// DCQCNFromKnobs converts firmware knobs back to human units. Every RP and
// NP knob must be present once, in either order, and inside its firmware
// range.
func DCQCNFromKnobs(k DCQCNKnobs) (DCQCN, error) {
	var d DCQCN
	seen := map[string]bool{}
	for _, group := range []struct {
		dir   string
		knobs []Knob
		names []string
	}{{"roce_rp", k.RP, rpKnobOrder}, {"roce_np", k.NP, npKnobOrder}} {
		for _, kn := range group.knobs {
			if err := applyKnob(&d, group.dir, group.names, kn, seen); err != nil {
				return DCQCN{}, err
			}
		}
	}
	for _, name := range slices.Concat(rpKnobOrder, npKnobOrder) {
		if !seen[name] {
			return DCQCN{}, fmt.Errorf("knob %s is missing: read every dcqcn knob before converting", name)
		}
	}
	return d, nil
}

func applyKnob(d *DCQCN, dir string, names []string, kn Knob, seen map[string]bool) error {
	if !slices.Contains(names, kn.Name) {
		return fmt.Errorf("knob %q is not a dcqcn knob under ecn/%s: use one of %s", kn.Name, dir, strings.Join(names, ", "))
	}
	if seen[kn.Name] {
		return fmt.Errorf("knob %s appears twice: give each knob once", kn.Name)
	}
	seen[kn.Name] = true
	s := knobSpecs[kn.Name]
	if kn.Value < s.lo || kn.Value > s.hi {
		return fmt.Errorf("knob %s is %d: the firmware range is %d..%d", kn.Name, kn.Value, s.lo, s.hi)
	}
	s.set(d, kn.Value)
	return nil
}
