package fabric

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// testAttrs names the rules' fields the way a resource schema would, so these tests read the
// texts users see. A field not listed keeps its Go name (tests pass their own, e.g. "hcas").
var testAttrs = map[string]string{
	"Capacity.Ports":                    "ports",
	"Capacity.PerPortReservationBytes":  "per_port_reservation_bytes",
	"TrafficClass.DSCP":                 "rdma.dscp",
	"TrafficClass.Priority":             "rdma.priority",
	"TrafficClass.CNPDSCP":              "cnp.dscp",
	"TrafficClass.CNPPriority":          "cnp.priority",
	"TrafficClass.ECNBits":              "rdma.ecn_bits",
	"TrafficClass.Trust":                "trust",
	"RatioWindow.Min":                   "ratio_window.min",
	"RatioWindow.Max":                   "ratio_window.max",
	"RatioWindow.Target":                "ratio_window.target",
	"RatioWindow.TargetBand":            "ratio_window.target_band",
	"Thresholds.ECNMinBytes":            "ecn.min_threshold_bytes",
	"Thresholds.ECNMaxBytes":            "ecn.max_threshold_bytes",
	"Thresholds.PFCPauseBytes":          "pfc.pause_threshold_bytes",
	"Thresholds.MarkProbabilityPercent": "ecn.mark_probability_percent",
	"Lossless":                          "lossless_classes",
	"LosslessClass.Name":                "name",
	"LosslessClass.DSCP":                "dscp",
	"LosslessClass.Priority":            "priority",
	"DCQCN.Gain":                        "dcqcn.gain",
	"DCQCN.InitialAlpha":                "dcqcn.initial_alpha",
	"DCQCN.TimeResetUS":                 "dcqcn.time_reset_us",
	"DCQCN.ByteReset":                   "dcqcn.byte_reset",
	"DCQCN.Threshold":                   "dcqcn.threshold",
	"DCQCN.MaxRateMbps":                 "dcqcn.max_rate_mbps",
	"DCQCN.AdditiveIncreaseMbps":        "dcqcn.additive_increase_mbps",
	"DCQCN.HyperIncreaseMbps":           "dcqcn.hyper_increase_mbps",
	"DCQCN.DecreaseShift":               "dcqcn.decrease_shift",
	"DCQCN.CutFloorPercent":             "dcqcn.cut_floor_percent",
	"DCQCN.MinRateMbps":                 "dcqcn.min_rate_mbps",
	"DCQCN.RateOnFirstCNPMbps":          "dcqcn.rate_on_first_cnp_mbps",
	"DCQCN.AlphaUpdatePeriodUS":         "dcqcn.alpha_update_period_us",
	"DCQCN.RateReduceMonitorPeriodUS":   "dcqcn.rate_reduce_monitor_period_us",
	"DCQCN.MinTimeBetweenCNPsUS":        "dcqcn.min_time_between_cnps_us",
	"DCQCN.ClampTargetRate":             "dcqcn.clamp_target_rate",
	"DCQCN.ClampTargetRateAfterTimeInc": "dcqcn.clamp_target_rate_after_time_inc",
}

func testName(f violation.Field) string {
	s, ok := testAttrs[f.Name]
	if !ok {
		s = f.Name
	}
	if p := f.Parent(); p != nil {
		s = testName(*p) + "." + s
	}
	if f.Index >= 0 {
		s += "[" + strconv.Itoa(f.Index) + "]"
	}
	if f.Key != "" {
		s += "[" + strconv.Quote(f.Key) + "]"
	}
	return s
}

// found is a violation as a user reads it.
type found struct {
	Severity              violation.Severity
	Path, Summary, Detail string
}

func render(vs violation.List) []found {
	var out []found
	for _, v := range vs {
		summary, detail := v.Words(testName)
		out = append(out, found{v.Severity, testName(v.At), summary, detail})
	}
	return out
}

// TestTestAttrsNameEveryField keeps the table above complete: every field a rule in this
// package declares must have a name, or its texts would be tested in Go names.
func TestTestAttrsNameEveryField(t *testing.T) {
	fields := []violation.Field{FieldPorts, FieldPerPortReservation, FieldRDMADSCP, FieldRDMAPriority,
		FieldCNPDSCP, FieldCNPPriority, FieldECNBits, FieldTrust, FieldRatioMin, FieldRatioMax,
		FieldRatioTarget, FieldRatioTargetBand, FieldECNMin, FieldECNMax, FieldPFCPause, FieldMarkProbability,
		FieldDCQCNGain, FieldDCQCNInitialAlpha, FieldDCQCNMinRate, FieldDCQCNMaxRate,
		FieldDCQCNAdditiveIncrease, FieldDCQCNHyperIncrease, FieldLossless, FieldClassName, FieldClassDSCP, FieldClassPriority}
	for _, k := range intKnobs {
		fields = append(fields, k.at)
	}
	for _, f := range fields {
		if _, ok := testAttrs[f.Name]; !ok {
			t.Errorf("field %s has no test name", f)
		}
	}
}

// paths returns "severity path" for each violation, the shape most rule tests compare.
func paths(vs violation.List) []string {
	var out []string
	for _, f := range render(vs) {
		out = append(out, f.Severity.String()+" "+f.Path)
	}
	return out
}

// checkFindings compares violations by severity and path, and requires every violation to
// word itself with a summary and a detail.
func checkFindings(t *testing.T, want []string, got violation.List) {
	t.Helper()
	if diff := cmp.Diff(want, paths(got), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("violations mismatch (-want +got):\n%s\ngot: %v", diff, render(got))
	}
	for _, f := range render(got) {
		if f.Path == "" || f.Summary == "" || f.Detail == "" {
			t.Errorf("violation lacks path, summary or detail: %#v", f)
		}
	}
}
