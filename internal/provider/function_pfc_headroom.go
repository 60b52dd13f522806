package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
)

var _ function.Function = (*pfcHeadroomFunction)(nil)

func newPFCHeadroomFunction() function.Function { return &pfcHeadroomFunction{} }

type pfcHeadroomFunction struct{}

var headroomAttrTypes = map[string]attr.Type{
	"xon_bytes":  types.Int64Type,
	"xoff_bytes": types.Int64Type,
	"size_bytes": types.Int64Type,
}

func (f *pfcHeadroomFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "pfc_headroom"
}

func (f *pfcHeadroomFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Lossless headroom of a Spectrum-4 port",
		MarkdownDescription: "Computes the PFC headroom a Spectrum-4 lossless priority group needs, with SONiC's " +
			"Mellanox formula (`buffer_headroom_mellanox.lua`) and the worst-case small-packet pattern, so it " +
			"reproduces the SN5600 lookup table (400 Gb/s, 5 m, MTU 9100: xoff 231 424 bytes). `xoff_bytes` is " +
			"what is still in flight after PAUSE is sent; `xon_bytes` the resume hysteresis; `size_bytes` the " +
			"reservation per port and priority. 800 Gb/s ports are taken as 8-lane ports.",
		Parameters: []function.Parameter{
			function.Int64Parameter{Name: "speed_gbps", MarkdownDescription: "Port speed in Gb/s: 10, 25, 40, 50, 100, 200, 400 or 800."},
			function.Float64Parameter{Name: "cable_length_m", MarkdownDescription: "Cable length in metres (0 or more)."},
			function.Int64Parameter{Name: "mtu", MarkdownDescription: "Port MTU in bytes (SONiC's default is 9100)."},
		},
		Return: function.ObjectReturn{AttributeTypes: headroomAttrTypes},
	}
}

func (f *pfcHeadroomFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var speed, mtu int64
	var cable float64
	resp.Error = req.Arguments.Get(ctx, &speed, &cable, &mtu)
	if resp.Error != nil {
		return
	}
	h, err := fabric.ComputeHeadroom(
		fabric.Port{SpeedGbps: int(speed), CableLengthM: cable, MTU: int(mtu)},
		fabric.WorstCasePattern(), fabric.HeadroomModel{},
	)
	if err != nil {
		resp.Error = function.NewFuncError(err.Error())
		return
	}
	obj, diags := types.ObjectValue(headroomAttrTypes, map[string]attr.Value{
		"xon_bytes":  types.Int64Value(h.XonBytes),
		"xoff_bytes": types.Int64Value(h.XoffBytes),
		"size_bytes": types.Int64Value(h.SizeBytes),
	})
	resp.Error = function.FuncErrorFromDiags(ctx, diags)
	if resp.Error != nil {
		return
	}
	resp.Error = resp.Result.Set(ctx, obj)
}
