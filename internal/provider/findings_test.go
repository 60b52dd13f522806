package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
)

func TestFindingPath(t *testing.T) {
	tests := map[string]path.Path{
		"ecn.min_threshold_bytes":   path.Root("ecn").AtName("min_threshold_bytes"),
		"rdma.dscp[1]":              path.Root("rdma").AtName("dscp").AtListIndex(1),
		"ports[12]":                 path.Root("ports").AtListIndex(12),
		"pfc.ratio_min":             path.Root("pfc").AtName("ratio_min"),
		`extra["NCCL_IB_TIMEOUT"]`:  path.Root("extra").AtMapKey("NCCL_IB_TIMEOUT"),
		`extra["a.b\"c"]`:           path.Root("extra").AtMapKey(`a.b"c`),
		"extra.NCCL_IB_TIMEOUT":     path.Root("extra"),
		"ofed.packages[0]":          path.Root("ofed").AtName("packages").AtListIndex(0),
		"gnmi.username":             path.Root("gnmi").AtName("username"),
		"dcqcn.ai_rate_mbps":        path.Root("dcqcn").AtName("ai_rate_mbps"),
		"ssh.bastion.private_key":   path.Root("ssh").AtName("bastion").AtName("private_key"),
		"rdma_dscp":                 path.Root("rdma_dscp"),
		"pfc_priorities[1].ignored": path.Root("pfc_priorities").AtListIndex(1).AtName("ignored"),
	}
	for in, want := range tests {
		if got := findingPath(in); !got.Equal(want) {
			t.Errorf("findingPath(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestAddFindingsRenames requires a renamed finding to name the resource's attribute in its
// path and in its text.
func TestAddFindingsRenames(t *testing.T) {
	tests := []struct {
		renames    map[string]string
		finding    fabric.Finding
		wantPath   path.Path
		wantDetail string
	}{
		{switchQoSRenames, fabric.RatioWindow{Min: 2, Max: 3, Target: 3.5}.Validate()[0],
			path.Root("pfc").AtName("ratio_target"), "pfc.ratio_target is 3.50, outside pfc.ratio_min..pfc.ratio_max (2.00-3.00)"},
		{nicDCQCNRenames, fabric.Finding{Path: "rdma.dscp[0]", Detail: "rdma.dscp[0] is 64; a DSCP must be 0..63"},
			path.Root("rdma_dscp"), "rdma_dscp is 64; a DSCP must be 0..63"},
		{nicDCQCNRenames, fabric.Finding{Path: "cnp.priority", Detail: "cnp.priority is 3, the same as rdma.priority: use another"},
			path.Root("cnp").AtName("priority"), "cnp.priority is 3, the same as priority: use another"},
		{nicDCQCNRenames, fabric.Finding{Path: "dcqcn.hyper_increase_mbps", Detail: "dcqcn.hyper_increase_mbps (4) is below dcqcn.additive_increase_mbps (5)"},
			path.Root("dcqcn").AtName("hai_rate_mbps"), "dcqcn.hai_rate_mbps (4) is below dcqcn.ai_rate_mbps (5)"},
	}
	for _, tt := range tests {
		var diags diag.Diagnostics
		addFindings(&diags, fabric.Findings{tt.finding}, tt.renames)
		if len(diags) != 1 {
			t.Fatalf("%s: got %d diagnostics", tt.finding.Path, len(diags))
		}
		got, ok := diags[0].(diag.DiagnosticWithPath)
		if !ok || !got.Path().Equal(tt.wantPath) {
			t.Errorf("%s: diagnostic %v, want it on %s", tt.finding.Path, diags[0], tt.wantPath)
		}
		if !strings.Contains(diags[0].Detail(), tt.wantDetail) {
			t.Errorf("%s: detail %q, want it to contain %q", tt.finding.Path, diags[0].Detail(), tt.wantDetail)
		}
	}
}
