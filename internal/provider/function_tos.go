package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
)

var _ function.Function = (*tosFunction)(nil)

func newToSFunction() function.Function { return &tosFunction{} }

type tosFunction struct{}

func (f *tosFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "tos"
}

func (f *tosFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "ToS / traffic class byte of a DSCP and ECN codepoint",
		MarkdownDescription: "Returns the IPv4 ToS (IPv6 traffic class) byte `dscp << 2 | ecn_bits`: the value " +
			"`NCCL_IB_TC`, OFED's `tc/1/traffic_class` and `cma_roce_tos` expect. `tos(26, 2)` is 106, the " +
			"conventional RoCE data class (DSCP 26, ECT(0)).",
		Parameters: []function.Parameter{
			function.Int64Parameter{Name: "dscp", MarkdownDescription: "DSCP, 0 to 63."},
			function.Int64Parameter{Name: "ecn_bits", MarkdownDescription: "ECN field, 0 to 3 (2 = ECT(0), what RoCE NICs send)."},
		},
		Return: function.Int64Return{},
	}
}

func (f *tosFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var dscp, ecn int64
	resp.Error = req.Arguments.Get(ctx, &dscp, &ecn)
	if resp.Error != nil {
		return
	}
	tos, err := fabric.ToS(int(dscp), int(ecn))
	if err != nil {
		resp.Error = function.NewFuncError(err.Error())
		return
	}
	resp.Error = resp.Result.Set(ctx, int64(tos))
}
