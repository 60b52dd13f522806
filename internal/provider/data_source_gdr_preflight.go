package provider

import (
	"context"
	"fmt"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/preflight"
	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

var (
	_ datasource.DataSourceWithConfigure      = (*gdrPreflightDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*gdrPreflightDataSource)(nil)
)

func newGDRPreflightDataSource() datasource.DataSource { return &gdrPreflightDataSource{} }

type gdrPreflightDataSource struct {
	data *providerData
}

type gdrPreflightModel struct {
	Host             types.String        `tfsdk:"host"`
	NCCLLogPath      types.String        `tfsdk:"nccl_log_path"`
	RequireGDR       types.Bool          `tfsdk:"require_gdr"`
	MinBAR1MiB       types.Int64         `tfsdk:"min_bar1_mib"`
	ExpectedGIDIndex types.Int64         `tfsdk:"expected_gid_index"`
	Detail           types.Bool          `tfsdk:"detail"`
	ID               types.String        `tfsdk:"id"`
	Checks           []preflightVerdicts `tfsdk:"checks"`
	Passed           types.Int64         `tfsdk:"passed"`
	Failed           types.Int64         `tfsdk:"failed"`
	OK               types.Bool          `tfsdk:"ok"`
	Failures         []types.String      `tfsdk:"failures"`
}

type preflightVerdicts struct {
	Check   types.String `tfsdk:"check"`
	Subject types.String `tfsdk:"subject"`
	Pass    types.Bool   `tfsdk:"pass"`
	Detail  types.String `tfsdk:"detail"`
	Remedy  types.String `tfsdk:"remedy"`
}

func (d *gdrPreflightDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_gdr_preflight"
}

func (d *gdrPreflightDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "GPUDirect RDMA pre-flight of one GPU host, as verdicts: each GPU has a PIX/PXB NIC, ports active, " +
			"link layer Ethernet, a RoCE v2 GID at the same index on every NIC, peermem or DMA-BUF ready, BAR1, and — given an " +
			"NCCL debug log on the host (`NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET`) — whether NCCL used `IB` or fell back to " +
			"`Socket`, GDR per HCA, GDRDMA channels, and each WARN with its known cause. Every failed check carries a remedy. " +
			"Use `ok` or `failures` in a `check` block or a postcondition.\n\n" +
			"Terraform keeps what a data source reads in the state and copies the whole state after every instance it applies, so " +
			"`checks` holds only the failed verdicts unless `detail = true`: a healthy host's verdict then takes under 1 KiB of state " +
			"instead of about 11 KiB on a host with 8 ports and 8 GPUs. `passed`, `failed`, `ok` and `failures` are the same either way.",
		Attributes: map[string]schema.Attribute{
			"host":          schema.StringAttribute{Required: true, MarkdownDescription: "SSH address of the host."},
			"nccl_log_path": schema.StringAttribute{Optional: true, MarkdownDescription: "Path on the host of an NCCL debug log to judge as well."},
			"require_gdr": schema.BoolAttribute{Optional: true,
				MarkdownDescription: "Fail the GPUDirect checks when neither peermem nor DMA-BUF is ready. Default `true`."},
			"min_bar1_mib": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Smallest acceptable BAR1 per GPU in MiB, 0 or more; unset only reports it."},
			"expected_gid_index": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "GID index every NIC must use, 0-255; unset only requires that they agree."},
			"detail": schema.BoolAttribute{Optional: true,
				MarkdownDescription: "Keep every verdict in `checks`, the passed ones too. Default `false`: `checks` holds the failed verdicts only, which keeps a host's state small."},
			"id":     str("The host address."),
			"passed": schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of passed checks."},
			"failed": schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of failed checks."},
			"ok":     schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether every check passed."},
			"failures": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "One line per failed check: `<check> <subject>: <detail>. Remedy: <remedy>`."},
			"checks": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "The failed verdicts, in a stable order; every verdict with `detail = true`.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"check":   str("Check id, e.g. `gpu_nic_affinity`, `roce_v2_gid`, `nccl_network`."),
					"subject": str("What was checked: `GPU3`, `mlx5_2:1`, or empty for the host."),
					"pass":    schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the check passed."},
					"detail":  str("What was seen."),
					"remedy":  str("What to do; empty when the check passed."),
				}}},
		},
	}
}

func (d *gdrPreflightDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig refuses thresholds no host can meet before anything is read.
func (d *gdrPreflightDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m gdrPreflightModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if v := m.ExpectedGIDIndex; isSet(v) && (v.ValueInt64() < 0 || v.ValueInt64() > maxGIDIndex) {
		resp.Diagnostics.AddAttributeError(path.Root("expected_gid_index"), "Value Out of Range",
			fmt.Sprintf("expected_gid_index is %d; a GID table index is 0..%d (what NCCL_IB_GID_INDEX takes): set the index the NICs should use, or leave it unset to require only that they agree.", v.ValueInt64(), maxGIDIndex))
	}
	if v := m.MinBAR1MiB; isSet(v) && v.ValueInt64() < 0 {
		resp.Diagnostics.AddAttributeError(path.Root("min_bar1_mib"), "Value Out of Range",
			fmt.Sprintf("min_bar1_mib is %d; a BAR1 size in MiB is 0 or more (e.g. 32768 for 32 GiB): set the smallest acceptable size, or leave it unset to only report BAR1.", v.ValueInt64()))
	}
}

// maxGIDIndex is the highest GID table index NCCL_IB_GID_INDEX accepts.
const maxGIDIndex = 255

func (d *gdrPreflightDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m gdrPreflightModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	engine, address, err := d.data.hostEngine(m.Host.ValueString())
	if err != nil {
		addSSHSettingsError(&resp.Diagnostics, address, err)
		return
	}
	f, err := engine.Read(ctx, readFacts)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("host"), "Unable to Read Host Facts", fmt.Sprintf("Reading facts of %s: %v", address, err))
		return
	}
	opts := preflight.DefaultOptions()
	if !m.RequireGDR.IsNull() {
		opts.RequireGDR = m.RequireGDR.ValueBool()
	}
	opts.MinBAR1MiB = m.MinBAR1MiB.ValueInt64()
	if !m.ExpectedGIDIndex.IsNull() {
		opts.ExpectedGIDIndex = int(m.ExpectedGIDIndex.ValueInt64())
	}
	if logPath := m.NCCLLogPath.ValueString(); logPath != "" {
		raw, err := engine.ReadFile(ctx, logPath)
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("nccl_log_path"), "Unable to Read NCCL Log", fmt.Sprintf("Reading %s on %s: %v", logPath, address, err))
			return
		}
		parsed, err := facts.ParseNCCLLog(string(raw))
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("nccl_log_path"), "Unreadable NCCL Log",
				fmt.Sprintf("%s on %s: %v. Capture it with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET.", logPath, address, err))
			return
		}
		opts.NCCLLog = &parsed
	}
	verdicts := preflight.Check(f, opts)
	passed, failed := verdict.Count(verdicts)
	m.ID = types.StringValue(address)
	m.Passed, m.Failed, m.OK = types.Int64Value(int64(passed)), types.Int64Value(int64(failed)), types.BoolValue(failed == 0)
	if !m.Detail.ValueBool() {
		verdicts = slices.DeleteFunc(verdicts, func(v verdict.Verdict) bool { return v.Pass })
	}
	m.Checks, m.Failures = verdictModels(verdicts)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// verdictModels renders verdicts as the checks list and the failures lines of a data source.
func verdictModels(verdicts []verdict.Verdict) ([]preflightVerdicts, []types.String) {
	checks, failures := []preflightVerdicts{}, []types.String{}
	for _, v := range verdicts {
		checks = append(checks, preflightVerdicts{
			Check: types.StringValue(v.Check), Subject: types.StringValue(v.Subject), Pass: types.BoolValue(v.Pass),
			Detail: types.StringValue(v.Detail), Remedy: types.StringValue(v.Remedy),
		})
		if !v.Pass {
			failures = append(failures, types.StringValue(v.Line()))
		}
	}
	return checks, failures
}
