package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
)

var _ function.Function = (*ecnPFCFindingsFunction)(nil)

func newECNPFCFindingsFunction() function.Function { return &ecnPFCFindingsFunction{} }

type ecnPFCFindingsFunction struct{}

func (f *ecnPFCFindingsFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "ecn_pfc_findings"
}

func (f *ecnPFCFindingsFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Problems with a set of ECN and PFC thresholds",
		MarkdownDescription: "Checks ECN marking and PFC pause thresholds with the same rules `roce_switch_qos` " +
			"applies at plan time: ECN min < ECN max ≤ PFC pause, and the pause threshold between 2.0 and 3.0 " +
			"times the ECN min threshold (target 2.5). Returns one line per finding, each starting with " +
			"`error:` or `warning:` and naming the threshold it concerns; an empty list means the thresholds " +
			"are sound. Use it in a `precondition` or a `check` block to stop a plan early.",
		Parameters: []function.Parameter{
			function.Int64Parameter{Name: "ecn_min_bytes", MarkdownDescription: "ECN marking starts at this queue depth, in bytes."},
			function.Int64Parameter{Name: "ecn_max_bytes", MarkdownDescription: "ECN marks every packet from this queue depth, in bytes."},
			function.Int64Parameter{Name: "pfc_pause_bytes", MarkdownDescription: "PFC pause threshold, in bytes."},
		},
		Return: function.ListReturn{ElementType: types.StringType},
	}
}

func (f *ecnPFCFindingsFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var ecnMin, ecnMax, pause int64
	resp.Error = req.Arguments.Get(ctx, &ecnMin, &ecnMax, &pause)
	if resp.Error != nil {
		return
	}
	findings := fabric.CheckThresholds(
		fabric.Thresholds{ECNMinBytes: ecnMin, ECNMaxBytes: ecnMax, PFCPauseBytes: pause},
		fabric.DefaultRatioWindow(),
	)
	lines := make([]string, 0, len(findings))
	for _, finding := range findings {
		lines = append(lines, finding.Line(thresholdNames.name))
	}
	resp.Error = resp.Result.Set(ctx, lines)
}
