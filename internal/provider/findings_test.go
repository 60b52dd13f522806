package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/ncclprofile"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

func TestFieldNamesPath(t *testing.T) {
	names := fieldNames{
		"Spec.A":    attrPath("a", "b"),
		"Spec.L":    path.Root("l"),
		"Spec.L[0]": path.Root("first"),
		"Spec.M":    path.Root("m"),
	}
	tests := []struct {
		f        violation.Field
		wantPath path.Path
		wantName string
	}{
		{violation.At("Spec.A"), path.Root("a").AtName("b"), "a.b"},
		{violation.At("Spec.L").Elem(2), path.Root("l").AtListIndex(2), "l[2]"},
		{violation.At("Spec.L").Elem(0), path.Root("first"), "first"},
		{violation.At("Spec.M").Entry(`a.b"c`), path.Root("m").AtMapKey(`a.b"c`), `m["a.b\"c"]`},
		{violation.At("Spec.Missing").Elem(1), path.Empty(), "Spec.Missing[1]"},
	}
	for _, tt := range tests {
		if got := names.path(tt.f); !got.Equal(tt.wantPath) {
			t.Errorf("path(%s) = %s, want %s", tt.f, got, tt.wantPath)
		}
		if got := names.name(tt.f); got != tt.wantName {
			t.Errorf("name(%s) = %q, want %q", tt.f, got, tt.wantName)
		}
	}
}

// TestFieldNamesCoverTheRules requires each resource's table to name every field its rules
// can report, so no diagnostic shows a Go name or lands on the resource as a whole.
func TestFieldNamesCoverTheRules(t *testing.T) {
	classFields := []violation.Field{fabric.FieldRDMADSCP, fabric.FieldRDMAPriority, fabric.FieldCNPDSCP,
		fabric.FieldCNPPriority, fabric.FieldECNBits, fabric.FieldTrust}
	dcqcnFields := []violation.Field{fabric.FieldDCQCNGain, fabric.FieldDCQCNInitialAlpha, fabric.FieldDCQCNMinRate,
		fabric.FieldDCQCNMaxRate, fabric.FieldDCQCNAdditiveIncrease, fabric.FieldDCQCNHyperIncrease}
	for _, f := range []string{"TimeResetUS", "ByteReset", "Threshold", "DecreaseShift", "CutFloorPercent",
		"RateOnFirstCNPMbps", "AlphaUpdatePeriodUS", "RateReduceMonitorPeriodUS", "MinTimeBetweenCNPsUS",
		"ClampTargetRate", "ClampTargetRateAfterTimeInc"} {
		dcqcnFields = append(dcqcnFields, violation.At("DCQCN."+f))
	}
	thresholdFields := []violation.Field{fabric.FieldECNMin, fabric.FieldECNMax, fabric.FieldPFCPause,
		fabric.FieldMarkProbability, fabric.FieldRatioMin, fabric.FieldRatioMax, fabric.FieldRatioTarget}
	policyFields := []violation.Field{fabric.FieldPorts, fabric.FieldPerPortReservation, switchcfg.FieldName,
		switchcfg.FieldPorts, switchcfg.FieldCableLength, switchcfg.FieldECN, switchcfg.FieldPFC,
		switchcfg.FieldRDMASchedulerMode, switchcfg.FieldRDMAWeight, switchcfg.FieldCNPSchedulerMode,
		switchcfg.FieldCNPWeight, switchcfg.FieldWatchdog, switchcfg.FieldWatchdogAction,
		switchcfg.FieldWatchdogDetection, switchcfg.FieldWatchdogRestore, switchcfg.FieldOS, switchcfg.FieldSpeedOverride}
	for _, f := range []violation.Field{fabric.FieldClassName, fabric.FieldClassDSCP, fabric.FieldClassDSCP.Elem(1),
		fabric.FieldClassPriority, fabric.FieldECNMin, fabric.FieldECNMax, fabric.FieldPFCPause, fabric.FieldMarkProbability,
		switchcfg.FieldClassMarkProb, switchcfg.FieldClassSchedulerMode, switchcfg.FieldClassWeight} {
		policyFields = append(policyFields, fabric.In(1, f))
	}
	policyFields = append(policyFields, fabric.FieldLossless)
	profileFields := []violation.Field{ncclprofile.FieldHCAs, ncclprofile.FieldRDMADSCP, ncclprofile.FieldGIDIndex,
		ncclprofile.FieldNCCLVersion, ncclprofile.FieldExtra, ncclprofile.FieldSocketIfname,
		ncclprofile.FieldQPsPerConnection, ncclprofile.FieldCrossNIC, ncclprofile.FieldGDRLevel,
		ncclprofile.FieldDebug, ncclprofile.FieldDebugSubsys, ncclprofile.FieldConfPath}
	for _, tt := range []struct {
		table  string
		names  fieldNames
		fields [][]violation.Field
	}{
		{"roce_nic_dcqcn", nicDCQCNNames, [][]violation.Field{classFields, dcqcnFields}},
		{"roce_switch_qos", switchQoSNames, [][]violation.Field{classFields, thresholdFields, policyFields}},
		{"ecn_pfc_findings", thresholdNames, [][]violation.Field{thresholdFields}},
		{"roce_nccl_env_profile", ncclEnvProfileNames, [][]violation.Field{profileFields}},
	} {
		for _, fs := range tt.fields {
			for _, f := range fs {
				if tt.names.path(f).Equal(path.Empty()) {
					t.Errorf("%s names no attribute for %s", tt.table, f)
				}
			}
		}
	}
}

// TestProblemsWordInTheResourcesNames: one rule, worded for two resources, names each one's
// attributes in the path and in the text.
func TestProblemsWordInTheResourcesNames(t *testing.T) {
	hyper := fabric.DefaultDCQCN()
	hyper.HyperIncreaseMbps = 4
	tests := []struct {
		name       string
		vs         violation.List
		names      fieldNames
		wantPath   path.Path
		wantDetail string
	}{
		{"switch ratio window", fabric.RatioWindow{Min: 2, Max: 3, Target: 3.5}.Validate(), switchQoSNames,
			attrPath("pfc", "ratio_target"), "pfc.ratio_target is 3.50, outside pfc.ratio_min..pfc.ratio_max (2.00-3.00)"},
		{"function ratio window", fabric.RatioWindow{Min: 2, Max: 3, Target: 3.5}.Validate(), thresholdNames,
			attrPath("ratio_window", "target"), "ratio_window.target is 3.50, outside ratio_window.min..ratio_window.max (2.00-3.00)"},
		{"nic rdma dscp", fabric.TrafficClass{DSCP: []int{64}, Priority: 3, CNPDSCP: 48, CNPPriority: 6, ECNBits: 2, Trust: "dscp"}.Validate(), nicDCQCNNames,
			path.Root("rdma_dscp"), "rdma_dscp is 64"},
		{"nic cnp priority", fabric.TrafficClass{DSCP: []int{26}, Priority: 3, CNPDSCP: 48, CNPPriority: 3, ECNBits: 2, Trust: "dscp"}.Validate(), nicDCQCNNames,
			attrPath("cnp", "priority"), "cnp.priority is 3, the same as priority"},
		{"nic hyper increase", hyper.Validate(), nicDCQCNNames,
			attrPath("dcqcn", "hai_rate_mbps"), "dcqcn.hai_rate_mbps (4) is below dcqcn.ai_rate_mbps (5)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ps problems
			ps.add(tt.vs, tt.names)
			var diags diag.Diagnostics
			ps.report(&diags)
			if len(diags) == 0 {
				t.Fatal("no diagnostics")
			}
			got, ok := diags[0].(diag.DiagnosticWithPath)
			if !ok || !got.Path().Equal(tt.wantPath) {
				t.Errorf("diagnostic %v, want it on %s", diags[0], tt.wantPath)
			}
			if d := diags[0].Detail(); !strings.Contains(d, tt.wantDetail) {
				t.Errorf("detail %q, want it to contain %q", d, tt.wantDetail)
			}
		})
	}
}
