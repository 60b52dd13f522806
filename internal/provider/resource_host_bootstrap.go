package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/tasks"
)

var (
	_ resource.ResourceWithConfigure      = (*hostBootstrapResource)(nil)
	_ resource.ResourceWithImportState    = (*hostBootstrapResource)(nil)
	_ resource.ResourceWithValidateConfig = (*hostBootstrapResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*hostBootstrapResource)(nil)
)

func newHostBootstrapResource() resource.Resource { return &hostBootstrapResource{} }

type hostBootstrapResource struct {
	data *providerData
}

type hostBootstrapModel struct {
	ID                 types.String   `tfsdk:"id"`
	Host               types.String   `tfsdk:"host"`
	Family             types.String   `tfsdk:"family"`
	OFED               *ofedModel     `tfsdk:"ofed"`
	GPUDirect          types.String   `tfsdk:"gpudirect"`
	OFEDRunningVersion types.String   `tfsdk:"ofed_running_version"`
	GPUDirectMode      types.String   `tfsdk:"gpudirect_mode"`
	RebootRequired     types.Bool     `tfsdk:"reboot_required"`
	PlannedChanges     types.List     `tfsdk:"planned_changes"`
	InSync             types.Bool     `tfsdk:"in_sync"`
	Timeouts           timeouts.Value `tfsdk:"timeouts"`
}

type ofedModel struct {
	Flavor         types.String   `tfsdk:"flavor"`
	Version        types.String   `tfsdk:"version"`
	Constraint     types.String   `tfsdk:"constraint"`
	PackageVersion types.String   `tfsdk:"package_version"`
	RepoURL        types.String   `tfsdk:"repo_url"`
	RepoURLs       types.Map      `tfsdk:"repo_urls"`
	Key            types.String   `tfsdk:"key"`
	Trusted        types.Bool     `tfsdk:"trusted"`
	AllowUnsigned  types.Bool     `tfsdk:"allow_unsigned_remote"`
	Packages       types.List     `tfsdk:"packages"`
	LockTimeout    types.String   `tfsdk:"lock_timeout"`
	RepoAuth       *repoAuthModel `tfsdk:"repo_auth"`
}

type repoAuthModel struct {
	Username          types.String `tfsdk:"username"`
	Password          types.String `tfsdk:"password"`
	PasswordWO        types.String `tfsdk:"password_wo"`
	PasswordWOVersion types.Int64  `tfsdk:"password_wo_version"`
	// writeOnly is password_wo from the configuration, which Terraform sends to plan and
	// apply only and never keeps in the plan or the state (withConfigSecrets).
	writeOnly string
}

// password is the repository's password and whether it is at hand: password, or
// password_wo where the configuration was read (validate, plan, apply), and never during a
// refresh of a write-only one.
func (a *repoAuthModel) password() (string, bool) {
	switch {
	case !a.Password.IsNull():
		return a.Password.ValueString(), true
	case !a.PasswordWO.IsNull():
		return a.PasswordWO.ValueString(), true
	case a.writeOnly != "":
		return a.writeOnly, true
	}
	return "", false
}

func (r *hostBootstrapResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_host_bootstrap"
}

func (r *hostBootstrapResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	opt := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The RDMA software stack of a GPU host: one exact MLNX_OFED or DOCA-OFED version from a versioned " +
			"repository, pinned (apt preferences, priority 1001) and held (`apt-mark hold`; `dnf versionlock` on RHEL), " +
			"checked against the running stack (`ofed_info -s`), and GPUDirect RDMA through `nvidia-peermem` (loaded and " +
			"persisted in `/etc/modules-load.d`, verified in `memory_peers`) or DMA-BUF. A needed reboot is reported in " +
			"`reboot_required`, never performed. Destroying the resource removes the pin, holds, repository and " +
			"boot-time module loading, and leaves the packages installed. An NVIDIA driver built before OFED makes `nvidia-peermem` fail with " +
			"\"Invalid argument\"; the provider says so and names the remedy (rebuild the driver after OFED).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The host address; the import ID.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"host": schema.StringAttribute{Required: true, MarkdownDescription: "SSH address of the host.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"family": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(tasks.FamilyAuto),
				MarkdownDescription: "`auto` (the default: the host's, from `/etc/os-release` — `debian` for Debian and Ubuntu, `rhel` for RHEL, Rocky, Alma, Oracle and CentOS Stream), " +
					"`debian` (apt) or `rhel` (dnf). A set family the host does not have is refused at plan, naming both."},
			"ofed": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: "The OFED stack to install and pin; unset leaves the stack alone.",
				Attributes: map[string]schema.Attribute{
					"flavor":          schema.StringAttribute{Required: true, MarkdownDescription: "`doca` (DOCA-OFED) or `mlnx` (MLNX_OFED)."},
					"version":         opt("Exact version as `ofed_info -n` prints it (`25.10-1.7.1`). Needed to install."),
					"constraint":      opt("go-version constraint the running stack must meet (`~> 25.10.0`); alone, it only checks."),
					"package_version": opt("Package version to pin when the repository's differs from `version`."),
					"repo_url":        opt("The versioned repository directory you mirror or trust; URLs containing `latest` are refused."),
					"repo_urls": schema.MapAttribute{Optional: true, ElementType: types.StringType,
						MarkdownDescription: "Instead of `repo_url`, for a fleet of both package families: the repository of each, keyed `debian` and `rhel`. " +
							"The host's family (as `family` or `/etc/os-release` gives it) picks its entry at plan; a host whose family has none is refused."},
					"key": opt("Signing keyring (`signed-by`) on Debian, `gpgkey` URL on RHEL."),
					"trusted": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
						MarkdownDescription: "Skip signature checks (`trusted=yes` on Debian, `gpgcheck=0` on RHEL), for local test repositories only: every plan warns while it is set, and a remote (`http`/`https`) `repo_url` also needs `allow_unsigned_remote`."},
					"allow_unsigned_remote": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
						MarkdownDescription: "Let `trusted` apply to an `http` or `https` repository. Whoever controls that mirror or the network path to it can then install kernel modules as root; set `key` instead wherever the repository is signed."},
					"packages": schema.ListAttribute{Optional: true, ElementType: types.StringType,
						MarkdownDescription: "Packages to install, pin and hold; default the flavor's metapackage (`doca-ofed`, `mlnx-ofed-all`)."},
					"lock_timeout": opt("How long apt waits for a dpkg lock, or dnf for its locks, held by another process, as a Go duration. Default `2m`."),
					"repo_auth": schema.SingleNestedAttribute{Optional: true,
						MarkdownDescription: "The login of an `http`/`https` repository behind basic authentication, written mode 0600 where each family reads it: " +
							"`/etc/apt/auth.conf.d/roce-ofed.conf` on Debian, the `.repo` file on RHEL; never in `repo_url` (a login there is refused), " +
							"the world-readable apt source or the plan's lines.",
						Attributes: map[string]schema.Attribute{
							"username": schema.StringAttribute{Required: true, MarkdownDescription: "User name; no blanks."},
							"password": schema.StringAttribute{Optional: true, Sensitive: true,
								MarkdownDescription: "Password; no blanks (and no `$` on RHEL, where dnf would substitute it). Kept in the state: prefer `password_wo`. Set this or `password_wo`."},
							"password_wo": schema.StringAttribute{Optional: true, Sensitive: true, WriteOnly: true,
								MarkdownDescription: "The password as a write-only argument (Terraform 1.11 and later, OpenTofu 1.11 and later), with the rules of `password`: " +
									"never kept in the plan or the state. A plan compares the host's files with it; a refresh, which does not have it, " +
									"checks their mode and owner only. Change `password_wo_version` to make an apply write a new one."},
							"password_wo_version": schema.Int64Attribute{Optional: true,
								MarkdownDescription: "Any number, changed to tell Terraform that `password_wo` changed, since Terraform keeps no trace of a write-only value."},
						}},
				}},
			"gpudirect": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(tasks.GPUDirectAuto),
				MarkdownDescription: "`auto` (DMA-BUF when the host can: kernel ≥ 5.12 and open GPU kernel modules; else peermem), `peermem`, `dmabuf`, or `none`."},
			"ofed_running_version": schema.StringAttribute{Computed: true, MarkdownDescription: "The stack `ofed_info -s` reports."},
			"gpudirect_mode":       schema.StringAttribute{Computed: true, MarkdownDescription: "The GPUDirect mode in use: `peermem`, `dmabuf` or `none`."},
			"reboot_required": schema.BoolAttribute{Computed: true,
				MarkdownDescription: "Whether the installed stack differs from the running one: reboot (or restart openibd) to load it."},
			"planned_changes": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "What the change being planned does on the host; once applied, the last change; after a refresh that found drift, what would put it back."},
			"in_sync": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the host held exactly this configuration at the last refresh."},
		},
	}
	resp.Schema = hostDeadlines.withBlock(resp.Schema)
}

func (r *hostBootstrapResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig applies every rule that needs no host: the GPUDirect mode and the OFED pin
// (flavor, version and constraint, package version, family, repository, key, packages, lock
// timeout), each on its own attribute.
func (r *hostBootstrapResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	validateConfig[hostBootstrapModel](ctx, req, resp)
}

func (r *hostBootstrapResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || !req.Config.Raw.IsFullyKnown() || r.data == nil {
		return
	}
	var plan hostBootstrapModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || !plan.known() {
		return
	}
	// The configuration as the state can hold it, without write-only values, is what an
	// earlier apply is compared with.
	stored, _ := plan.phases()
	if resp.Diagnostics.Append(plan.withConfigSecrets(ctx, req.Config)...); resp.Diagnostics.HasError() {
		return
	}
	phases, ok := plan.validPhases(&resp.Diagnostics)
	if !ok {
		return
	}
	plan.ID = plan.id()
	var state *hostBootstrapModel
	if !req.State.Raw.IsNull() {
		state = &hostBootstrapModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, state)...)
		if prior, err := state.phases(); err != nil || !state.InSync.ValueBool() || !plan.Host.Equal(state.Host) || !reflect.DeepEqual(prior, stored) {
			state = nil
		}
	}
	// unchanged keeps the state's computed values: the host holds what it held.
	unchanged := func() {
		plan.OFEDRunningVersion, plan.GPUDirectMode, plan.RebootRequired = state.OFEDRunningVersion, state.GPUDirectMode, state.RebootRequired
		plan.PlannedChanges, plan.InSync = state.PlannedChanges, state.InSync
		resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
	}
	if state != nil && !plan.writeOnlySecret() {
		unchanged()
		return
	}
	// A write-only secret is compared here, where the configuration is at hand, since the
	// refresh could not.
	var undo []host.Task
	if req.State.Raw.IsNull() {
		undo = phases.Undo()
	}
	planned, ok := planOnHost(ctx, r.data, plan.Host.ValueString(), phases, undo, "Cannot Plan Host Bootstrap", ofedAttribute, &resp.Diagnostics)
	if !ok {
		return
	}
	if state != nil && planned.lines != nil && len(planned.lines) == 0 {
		unchanged()
		return
	}
	plan.PlannedChanges = planned.changes(ctx, &resp.Diagnostics)
	plan.OFEDRunningVersion, plan.GPUDirectMode, plan.RebootRequired = types.StringUnknown(), types.StringUnknown(), types.BoolUnknown()
	plan.InSync = types.BoolValue(true)
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

func (r *hostBootstrapResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	ctx, finish := hostDeadlines.bound(ctx, req.Plan, opCreate, &resp.Diagnostics)
	defer finish()
	if resp.Diagnostics.HasError() {
		return
	}
	applyHostPlan(ctx, req.Plan, &resp.State, &resp.Diagnostics, r.applyWith(req.Config))
}

func (r *hostBootstrapResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	ctx, finish := hostDeadlines.bound(ctx, req.Plan, opUpdate, &resp.Diagnostics)
	defer finish()
	if resp.Diagnostics.HasError() {
		return
	}
	applyHostPlan(ctx, req.Plan, &resp.State, &resp.Diagnostics, r.applyWith(req.Config))
}

// applyWith is apply with the write-only values of config, which the plan lacks.
func (r *hostBootstrapResource) applyWith(config tfsdk.Config) func(context.Context, *hostBootstrapModel, *diag.Diagnostics) bool {
	return func(ctx context.Context, plan *hostBootstrapModel, diags *diag.Diagnostics) bool {
		if diags.Append(plan.withConfigSecrets(ctx, config)...); diags.HasError() {
			return false
		}
		return r.apply(ctx, plan, diags)
	}
}

// repoPasswordWO is the path of ofed.repo_auth.password_wo.
var repoPasswordWO = path.Root("ofed").AtName("repo_auth").AtName("password_wo")

// withConfigSecrets copies the write-only values of config into m, a plan.
func (m *hostBootstrapModel) withConfigSecrets(ctx context.Context, config tfsdk.Config) diag.Diagnostics {
	if m.OFED == nil || m.OFED.RepoAuth == nil {
		return nil
	}
	var wo types.String
	diags := config.GetAttribute(ctx, repoPasswordWO, &wo)
	m.OFED.RepoAuth.writeOnly = wo.ValueString()
	return diags
}

// writeOnlySecret reports whether m's configuration holds a write-only secret.
func (m *hostBootstrapModel) writeOnlySecret() bool {
	return m.OFED != nil && m.OFED.RepoAuth != nil && m.OFED.RepoAuth.Password.IsNull()
}

func (r *hostBootstrapResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	ctx, finish := hostDeadlines.bound(ctx, req.State, opRead, &resp.Diagnostics)
	defer finish()
	if resp.Diagnostics.HasError() {
		return
	}
	var state hostBootstrapModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	phases, ok := state.statePhases(&resp.Diagnostics)
	if !ok {
		return
	}
	// One read serves the drift check and the computed status.
	f, ok := refreshOnHost(ctx, r.data, state.Host.ValueString(), phases, statusNeeds, nil,
		"Unable to Read Host Bootstrap", &state.PlannedChanges, &state.InSync, &resp.Diagnostics)
	if !ok {
		return
	}
	state.ID = state.id()
	state.setStatus(f, phases)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Delete takes away what keeps the stack in place (apt source, pin and holds, or the dnf
// repository and version locks) and the boot-time loading of nvidia-peermem, as one engine
// apply of undo tasks: planned from what the host holds, applied and verified. The packages
// stay installed and the module loaded: removing the RDMA stack of a GPU node is a decision
// for a person, and a warning says so.
func (r *hostBootstrapResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	ctx, finish := hostDeadlines.bound(ctx, req.State, opDelete, &resp.Diagnostics)
	defer finish()
	if resp.Diagnostics.HasError() {
		return
	}
	var state hostBootstrapModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	phases, ok := state.statePhases(&resp.Diagnostics)
	if !ok {
		return
	}
	undo := phases.Undo()
	if len(undo) == 0 {
		return
	}
	engine, address, err := r.data.hostEngine(state.Host.ValueString())
	if err != nil {
		addSSHSettingsError(&resp.Diagnostics, address, err)
		return
	}
	if _, err := engine.Apply(ctx, undo); err != nil {
		addHostError(&resp.Diagnostics, "Unable to Delete Host Bootstrap", address, err)
		return
	}
	resp.Diagnostics.AddWarning("Host Stack Left Installed",
		"The OFED pin, holds and repository and the boot-time loading of nvidia-peermem were removed from "+address+
			"; the installed packages and the loaded module stay until removed by hand.")
}

func (r *hostBootstrapResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), types.StringValue(req.ID))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("host"), types.StringValue(req.ID))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("family"), types.StringValue(tasks.FamilyAuto))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("gpudirect"), types.StringValue(tasks.GPUDirectAuto))...)
}

// apply runs the phases in order, each converged and verified before the next: GPUDirect
// depends on the stack the OFED phase installs.
func (r *hostBootstrapResource) apply(ctx context.Context, plan *hostBootstrapModel, diags *diag.Diagnostics) (changed bool) {
	phases, ok := plan.validPhases(diags)
	if !ok {
		return false
	}
	engine, address, err := r.data.hostEngine(plan.Host.ValueString())
	if err != nil {
		addSSHSettingsError(diags, address, err)
		return false
	}
	reps, err := engine.ApplyPhases(ctx, phases)
	var lines []string
	for _, rep := range reps {
		lines = append(lines, changeLines(rep)...)
	}
	if err != nil {
		addHostError(diags, "Unable to Apply Host Bootstrap", address, err)
		return len(lines) > 0 || mayHaveChanged(err)
	}
	if plan.PlannedChanges.IsUnknown() {
		list, d := linesValue(ctx, lines)
		diags.Append(d...)
		plan.PlannedChanges = list
	}
	plan.InSync = types.BoolValue(true)
	plan.ID = plan.id()
	diags.Append(r.status(ctx, engine, plan, phases)...)
	return true
}

// id is the resource's ID: the host.
func (m *hostBootstrapModel) id() types.String {
	return types.StringValue(hostID(m.Host.ValueString()))
}

// markUnsynced marks a state saved after a failed apply: the next refresh reads the host.
func (m *hostBootstrapModel) markUnsynced() {
	m.InSync = types.BoolValue(false)
	m.ID = m.id()
}

// hostBootstrapNeeds is what the phases and their undo read with the default settings: a pin
// of either package family, and GPUDirect.
func hostBootstrapNeeds() host.Want {
	ps := host.Phases{{tasks.OFEDPin{Version: "primed"}}, {tasks.GPUDirect{}}}
	return ps.Needs().Union(host.Phases{ps.Undo()}.Needs()).Union(statusNeeds)
}

// statusNeeds are the facts behind the computed status attributes.
var statusNeeds = host.WantFacts(host.FactOFED, host.FactKernel, host.FactNVIDIA, host.FactModules)

// status fills the computed facts of the stack in one more read.
func (r *hostBootstrapResource) status(ctx context.Context, engine host.Engine, m *hostBootstrapModel, phases host.Phases) diag.Diagnostics {
	var diags diag.Diagnostics
	f, err := engine.Gather(ctx, phases.Needs().Union(statusNeeds))
	if err != nil {
		diags.AddAttributeError(path.Root("host"), "Unable to Read Host Bootstrap", err.Error())
		return diags
	}
	m.setStatus(f, phases)
	return diags
}

// setStatus fills the computed status attributes from facts gathered with statusNeeds and
// the phases' needs.
func (m *hostBootstrapModel) setStatus(f host.Facts, phases host.Phases) {
	m.OFEDRunningVersion = types.StringValue(f.OFED.Version)
	m.RebootRequired = types.BoolValue(false)
	m.GPUDirectMode = types.StringValue("none")
	for _, phase := range phases {
		for _, t := range phase {
			switch t := t.(type) {
			case tasks.OFEDPin:
				if st, err := t.Status(f); err == nil {
					m.RebootRequired = types.BoolValue(st.RebootRequired)
				}
			case tasks.GPUDirect:
				if mode, _, err := t.Choose(f); err == nil {
					m.GPUDirectMode = types.StringValue(mode)
				}
			}
		}
	}
}

// phases are the task groups applied in order.
// validPhases checks m (validate: each finding on its attribute) and returns its phases;
// false when it added an error.
func (m *hostBootstrapModel) validPhases(diags *diag.Diagnostics) (host.Phases, bool) {
	if ps := m.validate(); ps.hasErrors() {
		ps.report(diags)
		return nil, false
	}
	phases, err := m.phases()
	if err != nil { // validate refuses everything phases refuses; this names the gap if not
		diags.AddError("Invalid Host Bootstrap Settings", err.Error())
		return nil, false
	}
	return phases, true
}

// statePhases returns the phases of a model read from state, which an earlier apply
// validated: the rules are not checked again, so that a stricter rule of a newer provider
// never stops a refresh or a destroy; false when the state cannot give phases.
func (m *hostBootstrapModel) statePhases(diags *diag.Diagnostics) (host.Phases, bool) {
	phases, err := m.phases()
	if err != nil {
		at, _ := ofedAttribute(err)
		diags.AddAttributeError(at, "Invalid Host Bootstrap Settings", err.Error())
		return nil, false
	}
	return phases, true
}

func (m *hostBootstrapModel) phases() (host.Phases, error) {
	var out host.Phases
	if m.OFED != nil {
		pin, err := m.ofedPin()
		if err != nil {
			return nil, err
		}
		out = append(out, []host.Task{pin})
	}
	switch mode := m.GPUDirect.ValueString(); mode {
	case gpuDirectNone:
	case "", tasks.GPUDirectAuto, tasks.GPUDirectPeermem, tasks.GPUDirectDMABUF:
		out = append(out, []host.Task{tasks.GPUDirect{Mode: mode}})
	default:
		return nil, &tasks.FieldError{Field: "gpudirect", Err: fmt.Errorf("gpudirect is %q; use auto, peermem, dmabuf or none", mode)}
	}
	return out, nil
}

// gpuDirectNone turns the GPUDirect phase off.
const gpuDirectNone = "none"

// ofedPin is the OFED task of the ofed attribute, which must be set.
func (m *hostBootstrapModel) ofedPin() (tasks.OFEDPin, error) {
	o := m.OFED
	pin := tasks.OFEDPin{
		Flavor: o.Flavor.ValueString(), Version: o.Version.ValueString(), Constraint: o.Constraint.ValueString(),
		PackageVersion: o.PackageVersion.ValueString(), RepoURL: o.RepoURL.ValueString(), RepoURLs: stringMapOf(o.RepoURLs), Key: o.Key.ValueString(),
		Trusted: o.Trusted.ValueBool(), AllowUnsignedRemote: o.AllowUnsigned.ValueBool(), Packages: stringsOf(o.Packages), Family: m.Family.ValueString(),
	}
	if a := o.RepoAuth; a != nil {
		password, ok := a.password()
		pin.RepoAuth = &tasks.RepoAuth{Username: a.Username.ValueString(), Password: password, PasswordWithheld: !ok}
	}
	if s := o.LockTimeout.ValueString(); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return pin, &tasks.FieldError{Field: "lock_timeout", Err: fmt.Errorf("ofed.lock_timeout is %q; use a positive Go duration such as \"2m\"", s)}
		}
		pin.LockTimeout = d
	}
	return pin, nil
}

// validate applies the rules that need no host, each finding on the attribute at fault.
func (m *hostBootstrapModel) validate() problems {
	var ps problems
	switch mode := m.GPUDirect.ValueString(); mode {
	case "", tasks.GPUDirectAuto, tasks.GPUDirectPeermem, tasks.GPUDirectDMABUF, gpuDirectNone:
	default:
		ps.errorAt(path.Root("gpudirect"), "Invalid GPUDirect Mode", fmt.Sprintf("gpudirect is %q; use auto, peermem, dmabuf or none.", mode))
	}
	if m.OFED == nil {
		return ps
	}
	if a := m.OFED.RepoAuth; a != nil {
		if p, bad := a.passwordRule(); bad {
			return append(ps, p)
		}
	}
	pin, err := m.ofedPin()
	if err == nil {
		err = pin.Validate()
	}
	if err != nil {
		at, _ := ofedAttribute(err)
		detail := err.Error()
		if !strings.HasPrefix(detail, at.String()+" ") {
			detail = at.String() + ": " + detail
		}
		ps.errorAt(at, "Invalid OFED Settings", detail)
	}
	return append(ps, m.trustWarnings()...)
}

// passwordRule refuses a login with both or neither of password and password_wo.
func (a *repoAuthModel) passwordRule() (problem, bool) {
	wo := !a.PasswordWO.IsNull() || a.writeOnly != ""
	switch {
	case !a.Password.IsNull() && wo:
		return problem{at: attrPath("ofed", "repo_auth", "password_wo"), summary: "Two Repository Passwords",
			detail: "ofed.repo_auth sets both password and password_wo; keep password_wo, which stays out of the state, and remove password."}, true
	case a.Password.IsNull() && !wo:
		return problem{at: attrPath("ofed", "repo_auth"), summary: "Repository Password Missing",
			detail: "ofed.repo_auth has a username but no password: set password_wo (Terraform 1.11 or later; never kept in the state) or password."}, true
	}
	return problem{}, false
}

// trustWarnings are the OFED settings that weaken what protects the host, warned on every plan.
func (m *hostBootstrapModel) trustWarnings() problems {
	var ps problems
	o, host := m.OFED, m.Host.ValueString()
	repos := o.repos()
	if o.Trusted.ValueBool() {
		ps.warningAt(attrPath("ofed", "trusted"), "OFED Packages Not Verified", fmt.Sprintf("ofed.trusted is true for %s: the package manager installs %s without checking its signature, and its kernel modules load as root. Set key to the repository's signing key outside test rigs.", host, strings.Join(repos, " or ")))
	}
	for _, u := range repos {
		if o.RepoAuth != nil && strings.HasPrefix(strings.ToLower(u), "http://") {
			ps.warningAt(attrPath("ofed", "repo_auth"), "Repository Password Without TLS", fmt.Sprintf("ofed.repo_auth is sent to %s over plain http from %s: anyone on the path can read the password. Use an https repository.", u, host))
		}
	}
	return ps
}

// repos are the repository URLs the block names: repo_url, or each of repo_urls by family.
func (o *ofedModel) repos() []string {
	byFamily := stringMapOf(o.RepoURLs)
	if len(byFamily) == 0 {
		return []string{o.RepoURL.ValueString()}
	}
	var out []string
	for _, fam := range slices.Sorted(maps.Keys(byFamily)) {
		out = append(out, byFamily[fam])
	}
	return out
}

// ofedAttribute is the attribute a *tasks.FieldError in err names: ofed.<field>, or
// family or gpudirect, resource attributes beside ofed; ofed and false without one.
func ofedAttribute(err error) (path.Path, bool) {
	var fe *tasks.FieldError
	switch {
	case !errors.As(err, &fe):
		return path.Root("ofed"), false
	case fe.Field == "family", fe.Field == "gpudirect":
		return path.Root(fe.Field), true
	}
	at := path.Root("ofed")
	for _, step := range strings.Split(fe.Field, ".") {
		name, index, isElem := strings.Cut(strings.TrimSuffix(step, "]"), "[")
		at = at.AtName(name)
		if i, err := strconv.Atoi(index); isElem && err == nil {
			at = at.AtListIndex(i)
		} else if isElem {
			at = at.AtMapKey(index)
		}
	}
	return at, true
}

func (m *hostBootstrapModel) known() bool {
	vals := []attr.Value{m.Host, m.Family, m.GPUDirect}
	if o := m.OFED; o != nil {
		vals = append(vals, o.Flavor, o.Version, o.Constraint, o.PackageVersion, o.RepoURL, o.RepoURLs, o.Key, o.Trusted, o.AllowUnsigned, o.Packages, o.LockTimeout)
		if a := o.RepoAuth; a != nil {
			vals = append(vals, a.Username, a.Password, a.PasswordWO, a.PasswordWOVersion)
		}
	}
	return !anyUnknown(vals...)
}
