package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/tasks"
	"github.com/clusterbid/terraform-provider-roce/internal/ncclprofile"
)

var (
	_ resource.ResourceWithConfigure      = (*ncclEnvProfileResource)(nil)
	_ resource.ResourceWithImportState    = (*ncclEnvProfileResource)(nil)
	_ resource.ResourceWithValidateConfig = (*ncclEnvProfileResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*ncclEnvProfileResource)(nil)
)

func newNCCLEnvProfileResource() resource.Resource { return &ncclEnvProfileResource{} }

type ncclEnvProfileResource struct {
	data *providerData
}

type ncclEnvProfileModel struct {
	ID                types.String   `tfsdk:"id"`
	Host              types.String   `tfsdk:"host"`
	Path              types.String   `tfsdk:"path"`
	ProfileScriptPath types.String   `tfsdk:"profile_script_path"`
	HCAs              types.List     `tfsdk:"hcas"`
	SocketIfname      types.String   `tfsdk:"socket_ifname"`
	RDMADSCP          types.Int64    `tfsdk:"rdma_dscp"`
	GIDIndex          types.String   `tfsdk:"gid_index"`
	QPsPerConnection  types.Int64    `tfsdk:"qps_per_connection"`
	CrossNIC          types.Int64    `tfsdk:"cross_nic"`
	GDRLevel          types.String   `tfsdk:"gdr_level"`
	Debug             types.String   `tfsdk:"debug"`
	DebugSubsys       types.String   `tfsdk:"debug_subsys"`
	NCCLVersion       types.String   `tfsdk:"nccl_version"`
	Extra             types.Map      `tfsdk:"extra"`
	IBTC              types.Int64    `tfsdk:"ib_tc"`
	Rendered          types.String   `tfsdk:"rendered"`
	Notes             types.List     `tfsdk:"notes"`
	InSync            types.Bool     `tfsdk:"in_sync"`
	Timeouts          timeouts.Value `tfsdk:"timeouts"`
}

const defaultNCCLConfPath = "/etc/nccl.conf"

func (r *ncclEnvProfileResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_nccl_env_profile"
}

func (r *ncclEnvProfileResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	opt := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The NCCL environment of one GPU host, written to `/etc/nccl.conf` exactly as NCCL parses it " +
			"(`KEY=value`, no quotes, no `export`; `#` comments only for NCCL ≥ 2.26). NCCL reads the file inside every " +
			"process, so slurm, mpirun and torchrun jobs all see it (containers only when it is mounted). `NCCL_IB_TC` is " +
			"derived from the fabric's RDMA DSCP, so it cannot disagree with the switches and NICs.\n\n" +
			"A file that was at `path` (or `profile_script_path`) before is kept, content, mode and owner, as `<path>.roce-orig` " +
			"and put back on destroy; without one, destroy removes the file.\n\n" +
			"One resource per host, with `for_each` over the inventory: each host keeps its own state, a failed host does " +
			"not block the others, and at 1 000 hosts Terraform plans 1 000 small instances in well under a second.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "`<host>|<path>`, the import ID.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"host": schema.StringAttribute{Required: true, MarkdownDescription: "SSH address of the host, `address` or `address:port`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"path": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(defaultNCCLConfPath),
				MarkdownDescription: "Where NCCL reads the file: `/etc/nccl.conf` (lowest precedence: the process environment and `NCCL_CONF_FILE`/`~/.nccl.conf` win).",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"profile_script_path": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Also write the same variables as `export` lines for interactive shells, e.g. `/etc/profile.d/nccl.sh`."},
			"hcas": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "RDMA devices NCCL may use, by exact name (`mlx5_0`); written as `NCCL_IB_HCA==mlx5_0,...` so `mlx5_1` cannot also match `mlx5_10`. Unset: all."},
			"socket_ifname": opt("`NCCL_SOCKET_IFNAME`: interface(s) for bootstrap traffic (prefix list, `=` exact, `^` exclude)."),
			"rdma_dscp": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(fabric.DefaultRDMADSCP),
				MarkdownDescription: "DSCP of RoCE data on the fabric; `NCCL_IB_TC` is `rdma_dscp << 2 | 2` (ECT(0)): 106 for DSCP 26."},
			"gid_index": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(ncclprofile.GIDAuto),
				MarkdownDescription: "`auto`: for NCCL ≥ 2.21 leave `NCCL_IB_GID_INDEX` unset (NCCL picks the RoCE v2 entry per HCA); for older NCCL, whose default is index 0 (normally RoCE v1 link-local), write the host's RoCE v2 IPv4 index, read at plan time (`notes` says which applied). " +
					"The NCCL version is `nccl_version`, else the host's installed NCCL. `detect`: always write the RoCE v2 IPv4 index, failing when the HCAs disagree. Or a number."},
			"qps_per_connection": schema.Int64Attribute{Optional: true, MarkdownDescription: "`NCCL_IB_QPS_PER_CONNECTION`, 1-128 (NCCL's default is 1)."},
			"cross_nic":          schema.Int64Attribute{Optional: true, MarkdownDescription: "`NCCL_CROSS_NIC`: 0 for rail-optimised fabrics, 1 allow, 2 prefer same NIC (NCCL's default)."},
			"gdr_level":          opt("`NCCL_NET_GDR_LEVEL`: `LOC`, `PIX`, `PXB`, `PHB` or `SYS`."),
			"debug":              opt("`NCCL_DEBUG`: `VERSION`, `WARN`, `INFO` or `TRACE`."),
			"debug_subsys":       opt("`NCCL_DEBUG_SUBSYS`, e.g. `INIT,NET`."),
			"nccl_version": opt("NCCL version the jobs run (`2.26.2`). Unset: the host's installed NCCL (`libnccl2`/`libnccl` package, else the linker cache), read at plan time. " +
				"It decides `gid_index = \"auto\"`, which variables and values are accepted (one the version does not read is refused), and whether the file may carry a `#` comment (NCCL before 2.26 reads it as a variable). Set it when jobs bring their own NCCL (containers)."),
			"extra": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Further `NCCL_*` variables; known ones are checked against NCCL's ranges, unknown ones draw a warning."},
			"ib_tc": schema.Int64Attribute{Computed: true, MarkdownDescription: "The `NCCL_IB_TC` written."},
			"rendered": schema.StringAttribute{Computed: true,
				MarkdownDescription: "The file's content, visible in the plan; after a refresh, what the host holds."},
			"notes": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Why the file holds what it holds where that depends on the NCCL version, e.g. the GID index written for NCCL before 2.21."},
			"in_sync": schema.BoolAttribute{Computed: true,
				MarkdownDescription: "Whether the host's files held exactly this profile at the last refresh."},
		},
	}
	resp.Schema = hostDeadlines.withBlock(resp.Schema)
}

func (r *ncclEnvProfileResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *ncclEnvProfileResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	validateConfig[ncclEnvProfileModel](ctx, req, resp)
}

// ModifyPlan renders the file into the plan. Only gid_index = "detect" reads the host (one
// round trip for its GID table).
func (r *ncclEnvProfileResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || !req.Config.Raw.IsFullyKnown() || r.data == nil {
		return
	}
	var plan ncclEnvProfileModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || !plan.known() {
		return
	}
	p := plan.profile()
	plan.ID = plan.id()
	plan.IBTC = types.Int64Value(int64(p.TrafficClass()))
	plan.InSync = types.BoolValue(true)
	out, err := r.render(ctx, &plan)
	switch {
	case err == nil:
		out.problems.report(&resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		plan.Rendered = types.StringValue(out.conf)
		plan.Notes = stringList(out.notes)
	case isReachError(err):
		resp.Diagnostics.AddAttributeWarning(path.Root("host"), "Unable to Read Host at Plan Time",
			fmt.Sprintf("The profile depends on the host (its installed NCCL when nccl_version is unset, its GID table for gid_index = %q): %v. The file is rendered at apply.", plan.GIDIndex.ValueString(), err))
		plan.Rendered = types.StringUnknown()
		plan.Notes = types.ListUnknown(types.StringType)
	default:
		resp.Diagnostics.AddAttributeError(path.Root("gid_index"), "Cannot Render NCCL Profile", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// Create writes the files; a create that wrote part of them before it failed is saved
// tainted (applyHostPlan), so its destroy restores what it kept.
func (r *ncclEnvProfileResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	ctx, finish := hostDeadlines.bound(ctx, req.Plan, opCreate, &resp.Diagnostics)
	defer finish()
	if resp.Diagnostics.HasError() {
		return
	}
	applyHostPlan(ctx, req.Plan, &resp.State, &resp.Diagnostics, func(ctx context.Context, plan *ncclEnvProfileModel, diags *diag.Diagnostics) bool {
		return r.write(ctx, plan, nil, diags)
	})
}

func (r *ncclEnvProfileResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	ctx, finish := hostDeadlines.bound(ctx, req.Plan, opUpdate, &resp.Diagnostics)
	defer finish()
	if resp.Diagnostics.HasError() {
		return
	}
	var plan, state ncclEnvProfileModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.write(ctx, &plan, state.paths(), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if old := state.ProfileScriptPath.ValueString(); old != "" && old != plan.ProfileScriptPath.ValueString() {
		r.remove(ctx, &state, []string{old}, &resp.Diagnostics)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *ncclEnvProfileResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	ctx, finish := hostDeadlines.bound(ctx, req.State, opRead, &resp.Diagnostics)
	defer finish()
	if resp.Diagnostics.HasError() {
		return
	}
	var state ncclEnvProfileModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	engine, address, err := r.engine(state.Host.ValueString())
	if err != nil {
		addSSHSettingsError(&resp.Diagnostics, address, err)
		return
	}
	f, err := engine.Read(ctx, state.profile().hostFacts().WithFiles(state.paths()...))
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("host"), "Unable to Read NCCL Profile", fmt.Sprintf("Reading %s: %v", address, err))
		return
	}
	conf, ok := f.File(state.Path.ValueString())
	if !ok || !conf.Exists {
		resp.State.RemoveResource(ctx)
		return
	}
	if state.Rendered.IsNull() { // imported: nothing but the import ID is known yet
		state.readBack(string(conf.Content), f, &resp.Diagnostics)
	}
	// Drift is what writing the files again would change (content, mode, owner), as an apply
	// plans it.
	p := state.profile().withHost(f)
	wantConf, wantScript, err := p.Render(f.GIDs)
	var rep host.Report
	if err == nil {
		rep, err = engine.PlanFacts(ctx, f, state.fileTasks(wantConf, wantScript, state.paths()))
	}
	inSync := err == nil && !rep.Changed()
	state.Notes = stringList(p.Notes(f.GIDs))
	state.Rendered = types.StringValue(string(conf.Content))
	state.InSync = types.BoolValue(inSync)
	state.IBTC = types.Int64Value(int64(state.profile().TrafficClass()))
	state.ID = state.id()
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *ncclEnvProfileResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	ctx, finish := hostDeadlines.bound(ctx, req.State, opDelete, &resp.Diagnostics)
	defer finish()
	if resp.Diagnostics.HasError() {
		return
	}
	var state ncclEnvProfileModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.remove(ctx, &state, state.paths(), &resp.Diagnostics)
}

// ImportState takes <host>|<path>, or <host>|<path>|<profile_script_path> when the profile
// also has a profile.d script: nothing in the file names the script, so the ID must. Read then
// reads the variables back from the file.
func (r *ncclEnvProfileResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	parts := strings.Split(req.ID, "|")
	relative := func(p string) bool { return !strings.HasPrefix(p, "/") }
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || slices.ContainsFunc(parts[1:], relative) {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf("import ID %q: want <host>|<absolute path>[|<absolute profile_script_path>], "+
			"e.g. 10.0.1.11|/etc/nccl.conf or 10.0.1.11|/etc/nccl.conf|/etc/profile.d/nccl.sh", req.ID))
		return
	}
	hostAddr, p := parts[0], parts[1]
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), types.StringValue(hostID(hostAddr, p)))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("host"), types.StringValue(hostAddr))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("path"), types.StringValue(p))...)
	if len(parts) == 3 {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("profile_script_path"), types.StringValue(parts[2]))...)
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("rdma_dscp"), types.Int64Value(fabric.DefaultRDMADSCP))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("gid_index"), types.StringValue(ncclprofile.GIDAuto))...)
}

// readBack sets the profile's attributes from the file the host holds (ncclprofile.FromConf)
// and warns about the variables no attribute can hold as written, which the next apply
// rewrites. A GID index written in the file stays gid_index = "auto" when auto writes that
// index on this host (NCCL before 2.21); "detect" cannot be told from a number. nccl_version
// stays unset: the file does not say which NCCL the jobs run.
func (m *ncclEnvProfileModel) readBack(conf string, f host.Facts, diags *diag.Diagnostics) {
	p, unheld := ncclprofile.FromConf(conf)
	if p.GIDIndex != ncclprofile.GIDAuto {
		auto := ncclProfile{p}
		auto.GIDIndex = ncclprofile.GIDAuto
		if s, err := auto.withHost(f).Settings(f.GIDs); err == nil && slices.Contains(s, fabric.NCCLSetting{Name: "NCCL_IB_GID_INDEX", Value: p.GIDIndex}) {
			p.GIDIndex = ncclprofile.GIDAuto
		}
	}
	str := func(v string) types.String {
		if v == "" {
			return types.StringNull()
		}
		return types.StringValue(v)
	}
	num := func(v *int) types.Int64 {
		if v == nil {
			return types.Int64Null()
		}
		return types.Int64Value(int64(*v))
	}
	m.HCAs = types.ListNull(types.StringType)
	if p.HCAs != nil {
		m.HCAs = stringList(p.HCAs)
	}
	m.Extra = types.MapNull(types.StringType)
	if p.Extra != nil {
		m.Extra = stringMap(p.Extra)
	}
	m.SocketIfname, m.GDRLevel, m.Debug, m.DebugSubsys = str(p.SocketIfname), str(p.GDRLevel), str(p.Debug), str(p.DebugSubsys)
	m.RDMADSCP, m.GIDIndex = types.Int64Value(int64(p.RDMADSCP)), types.StringValue(p.GIDIndex)
	m.QPsPerConnection, m.CrossNIC = num(p.QPsPerConnection), num(p.CrossNIC)
	if len(unheld) > 0 {
		lines := make([]string, len(unheld))
		for i, s := range unheld {
			lines[i] = fmt.Sprintf("%q", s.Name+"="+s.Value)
		}
		diags.AddAttributeWarning(path.Root("path"), "Imported NCCL Profile Has Lines No Attribute Holds",
			fmt.Sprintf("%s on %s has %s, which no attribute of this resource can hold as written (an HCA list without the exact-match '=', "+
				"an NCCL_IB_TC with other ECN bits than ECT(0), a non-integer count, an empty value, a name that is not NCCL_*): "+
				"the next apply rewrites them as the configuration says.", m.Path.ValueString(), m.Host.ValueString(), strings.Join(lines, ", ")))
	}
}

// write renders the profile (reading the GID table when it must) and writes the files in one
// engine apply: atomic writes, then a verify gather. A file the resource did not write before
// (not in owned) is kept first (tasks.Kept), to be put back on destroy.
func (r *ncclEnvProfileResource) write(ctx context.Context, plan *ncclEnvProfileModel, owned []string, diags *diag.Diagnostics) (changed bool) {
	engine, address, err := r.engine(plan.Host.ValueString())
	if err != nil {
		addSSHSettingsError(diags, address, err)
		return false
	}
	out, err := r.render(ctx, plan)
	if err != nil {
		diags.AddAttributeError(path.Root("host"), "Cannot Render NCCL Profile", fmt.Sprintf("%s: %v", address, err))
		return false
	}
	out.problems.report(diags)
	if diags.HasError() {
		return false
	}
	conf, script := out.conf, out.script
	if !plan.Rendered.IsUnknown() && plan.Rendered.ValueString() != conf {
		diags.AddError("NCCL Profile Changed Since Plan",
			fmt.Sprintf("The installed NCCL or the GID table of %s changed between plan and apply, so the file differs from the plan. Run plan again.", address))
		return false
	}
	plan.Notes = stringList(out.notes)
	if _, err := engine.Apply(ctx, plan.fileTasks(conf, script, owned)); err != nil {
		diags.AddAttributeError(path.Root("host"), "Unable to Write NCCL Profile", fmt.Sprintf("%s: %v", address, err))
		return mayHaveChanged(err)
	}
	plan.Rendered = types.StringValue(conf)
	plan.IBTC = types.Int64Value(int64(plan.profile().TrafficClass()))
	plan.InSync = types.BoolValue(true)
	plan.ID = plan.id()
	return true
}

// fileTasks write the profile's files, conf at path and script at profile_script_path when
// set, each kept first (tasks.Kept) unless owned lists it: a path an earlier apply wrote.
func (m *ncclEnvProfileModel) fileTasks(conf, script string, owned []string) []host.Task {
	var todo []host.Task
	add := func(p, content string) {
		if !slices.Contains(owned, p) {
			todo = append(todo, tasks.Kept{Path: p, Content: content})
		}
		todo = append(todo, tasks.File{Path: p, Content: content, Mode: 0o644, Owner: "root:root"})
	}
	add(m.Path.ValueString(), conf)
	if s := m.ProfileScriptPath.ValueString(); s != "" {
		add(s, script)
	}
	return todo
}

// id is the resource's ID: the host and the file's path.
func (m *ncclEnvProfileModel) id() types.String {
	return types.StringValue(hostID(m.Host.ValueString(), m.Path.ValueString()))
}

// markUnsynced marks a state saved after a failed write: the next refresh reads the host.
func (m *ncclEnvProfileModel) markUnsynced() {
	m.InSync = types.BoolValue(false)
	m.ID = m.id()
}

func (r *ncclEnvProfileResource) remove(ctx context.Context, m *ncclEnvProfileModel, paths []string, diags *diag.Diagnostics) {
	engine, address, err := r.engine(m.Host.ValueString())
	if err != nil {
		addSSHSettingsError(diags, address, err)
		return
	}
	undo := make([]host.Task, len(paths))
	for i, p := range paths {
		undo[i] = tasks.Restored{Path: p, Mark: ncclprofile.ScriptMark}
		if p == m.Path.ValueString() {
			undo[i] = tasks.Restored{Path: p, Written: m.Rendered.ValueString()}
		}
	}
	if _, err := engine.Apply(ctx, undo); err != nil {
		addHostError(diags, "Unable to Delete NCCL Profile", address, fmt.Errorf("removing %s: %w", strings.Join(paths, ", "), err))
	}
}

// rendered is a profile rendered for its host.
type rendered struct {
	conf, script string
	notes        []string
	// problems are the profile's rules checked against the host's NCCL version.
	problems problems
}

// render returns the files' content, reading the host's installed NCCL (nccl_version unset)
// and GID table (gid_index "detect", or "auto" on NCCL before 2.21) when the profile needs them.
func (r *ncclEnvProfileResource) render(ctx context.Context, m *ncclEnvProfileModel) (rendered, error) {
	p := m.profile()
	var f host.Facts
	if want := p.hostFacts(); !want.Empty() {
		engine, _, err := r.engine(m.Host.ValueString())
		if err != nil {
			return rendered{}, err
		}
		if f, err = engine.Read(ctx, want); err != nil {
			return rendered{}, reachError{err}
		}
		p = p.withHost(f)
	}
	out := rendered{notes: p.Notes(f.GIDs)}
	if p.Installed != "" {
		if errs := p.Validate().Errors(); errs != nil {
			out.problems.add(errs, ncclEnvProfileNames)
			return out, nil
		}
	}
	var err error
	out.conf, out.script, err = p.Render(f.GIDs)
	return out, err
}

func (r *ncclEnvProfileResource) engine(hostAddr string) (host.Engine, string, error) {
	return r.data.hostEngine(hostAddr)
}

// ncclEnvProfileNames are the resource's attributes of the profile's fields.
var ncclEnvProfileNames = fieldNames{
	ncclprofile.FieldHCAs.Name:             path.Root("hcas"),
	ncclprofile.FieldSocketIfname.Name:     path.Root("socket_ifname"),
	ncclprofile.FieldRDMADSCP.Name:         path.Root("rdma_dscp"),
	ncclprofile.FieldGIDIndex.Name:         path.Root("gid_index"),
	ncclprofile.FieldQPsPerConnection.Name: path.Root("qps_per_connection"),
	ncclprofile.FieldCrossNIC.Name:         path.Root("cross_nic"),
	ncclprofile.FieldGDRLevel.Name:         path.Root("gdr_level"),
	ncclprofile.FieldDebug.Name:            path.Root("debug"),
	ncclprofile.FieldDebugSubsys.Name:      path.Root("debug_subsys"),
	ncclprofile.FieldNCCLVersion.Name:      path.Root("nccl_version"),
	ncclprofile.FieldExtra.Name:            path.Root("extra"),
	ncclprofile.FieldConfPath.Name:         path.Root("path"),
}

// validate applies every rule that needs no host: the profile's, and absolute file paths.
func (m *ncclEnvProfileModel) validate() problems {
	var ps problems
	ps.add(m.profile().Validate(), ncclEnvProfileNames)
	for _, a := range []struct {
		name, example string
		v             types.String
	}{{"path", defaultNCCLConfPath, m.Path}, {"profile_script_path", "/etc/profile.d/nccl.sh", m.ProfileScriptPath}} {
		// profile_script_path = "" is no script, as when it is unset.
		if isSet(a.v) && !strings.HasPrefix(a.v.ValueString(), "/") && (a.name == "path" || a.v.ValueString() != "") {
			ps.errorAt(path.Root(a.name), "Relative Path",
				fmt.Sprintf("%s is %q; the provider writes the file on the host and needs an absolute path, such as %s.", a.name, a.v.ValueString(), a.example))
		}
	}
	return ps
}

// ncclEnvProfileNeeds is what the resource reads with its default settings: the file, and
// the installed NCCL and the GID table that gid_index = "auto" and an unset nccl_version read.
func ncclEnvProfileNeeds() host.Want {
	return host.WantFacts(host.FactNCCL, host.FactGIDs).WithFiles(defaultNCCLConfPath)
}

// hostFacts are the facts the profile needs from its host (none when it needs none).
func (p ncclProfile) hostFacts() host.Want {
	nccl, gids := p.NeedsHost()
	var want []host.FactID
	if nccl {
		want = append(want, host.FactNCCL)
	}
	if gids {
		want = append(want, host.FactGIDs)
	}
	return host.WantFacts(want...)
}

// withHost is p with the host's installed NCCL.
func (p ncclProfile) withHost(f host.Facts) ncclProfile {
	p.Installed, p.InstalledFrom = f.NCCL.Version, f.NCCL.Source
	return p
}

// ncclProfile is the profile of a resource model, with the host-dependent helpers above.
type ncclProfile struct{ ncclprofile.Profile }

func (m *ncclEnvProfileModel) paths() []string {
	ps := []string{m.Path.ValueString()}
	if s := m.ProfileScriptPath.ValueString(); s != "" {
		ps = append(ps, s)
	}
	return ps
}

func (m *ncclEnvProfileModel) known() bool {
	return !anyUnknown(m.Host, m.Path, m.ProfileScriptPath, m.HCAs, m.SocketIfname, m.RDMADSCP, m.GIDIndex,
		m.QPsPerConnection, m.CrossNIC, m.GDRLevel, m.Debug, m.DebugSubsys, m.NCCLVersion, m.Extra)
}

func (m *ncclEnvProfileModel) profile() ncclProfile {
	p := ncclprofile.Profile{
		SocketIfname: m.SocketIfname.ValueString(),
		RDMADSCP:     int(m.RDMADSCP.ValueInt64()),
		GIDIndex:     m.GIDIndex.ValueString(),
		GDRLevel:     m.GDRLevel.ValueString(),
		Debug:        m.Debug.ValueString(),
		DebugSubsys:  m.DebugSubsys.ValueString(),
		NCCLVersion:  m.NCCLVersion.ValueString(),
		Extra:        stringMapOf(m.Extra),
	}
	if m.RDMADSCP.IsNull() {
		p.RDMADSCP = fabric.DefaultRDMADSCP
	}
	if p.GIDIndex == "" {
		p.GIDIndex = ncclprofile.GIDAuto
	}
	p.HCAs = stringsOf(m.HCAs)
	if !m.QPsPerConnection.IsNull() {
		v := int(m.QPsPerConnection.ValueInt64())
		p.QPsPerConnection = &v
	}
	if !m.CrossNIC.IsNull() {
		v := int(m.CrossNIC.ValueInt64())
		p.CrossNIC = &v
	}
	return ncclProfile{p}
}
