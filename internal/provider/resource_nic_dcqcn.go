package provider

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/tasks"
)

var (
	_ resource.ResourceWithConfigure      = (*nicDCQCNResource)(nil)
	_ resource.ResourceWithImportState    = (*nicDCQCNResource)(nil)
	_ resource.ResourceWithValidateConfig = (*nicDCQCNResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*nicDCQCNResource)(nil)
)

func newNICDCQCNResource() resource.Resource { return &nicDCQCNResource{} }

type nicDCQCNResource struct {
	data *providerData
}

type nicDCQCNModel struct {
	ID             types.String   `tfsdk:"id"`
	Host           types.String   `tfsdk:"host"`
	Devices        types.List     `tfsdk:"devices"`
	Priority       types.Int64    `tfsdk:"priority"`
	RDMADSCP       types.Int64    `tfsdk:"rdma_dscp"`
	CNP            *cnpClassModel `tfsdk:"cnp"`
	DCQCN          *dcqcnModel    `tfsdk:"dcqcn"`
	PFCPriorities  types.List     `tfsdk:"pfc_priorities"`
	TrafficClass   types.Bool     `tfsdk:"set_traffic_class"`
	CMARoCETos     types.Int64    `tfsdk:"cma_roce_tos"`
	Persist        types.Bool     `tfsdk:"persist"`
	RebootRequired types.Bool     `tfsdk:"reboot_required"`
	PlannedChanges types.List     `tfsdk:"planned_changes"`
	InSync         types.Bool     `tfsdk:"in_sync"`
	Timeouts       timeouts.Value `tfsdk:"timeouts"`
}

type dcqcnModel struct {
	Gain                     types.Float64 `tfsdk:"gain"`
	AlphaUpdatePeriodUS      types.Int64   `tfsdk:"alpha_update_period_us"`
	InitialAlpha             types.Float64 `tfsdk:"initial_alpha"`
	AdditiveIncreaseMbps     types.Int64   `tfsdk:"ai_rate_mbps"`
	HyperIncreaseMbps        types.Int64   `tfsdk:"hai_rate_mbps"`
	TimeResetUS              types.Int64   `tfsdk:"time_reset_us"`
	ByteReset                types.Int64   `tfsdk:"byte_reset"`
	MinRateMbps              types.Int64   `tfsdk:"min_rate_mbps"`
	CutFloorPercent          types.Int64   `tfsdk:"cut_floor_percent"`
	MinDecreaseFactorPercent types.Int64   `tfsdk:"min_decrease_factor_percent"` // deprecated name of cut_floor_percent
	MinTimeBetweenCNPsUS     types.Int64   `tfsdk:"min_time_between_cnps_us"`
}

func (r *nicDCQCNResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_nic_dcqcn"
}

func (r *nicDCQCNResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = hostDeadlines.withBlock(nicDCQCNSchema())
}

func (r *nicDCQCNResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *nicDCQCNResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	validateConfig[nicDCQCNModel](ctx, req, resp)
}

// nicDCQCNNames are the resource's attributes of the traffic class's and DCQCN's fields: one
// RDMA DSCP, a scalar, and the dcqcn block.
var nicDCQCNNames = fieldNames{
	fabric.FieldRDMAPriority.Name:         path.Root("priority"),
	fabric.FieldRDMADSCP.Name:             path.Root("rdma_dscp"),
	fabric.FieldRDMADSCP.Elem(0).String(): path.Root("rdma_dscp"),
	fabric.FieldCNPDSCP.Name:              attrPath("cnp", "dscp"),
	fabric.FieldCNPPriority.Name:          attrPath("cnp", "priority"),
	fabric.FieldECNBits.Name:              attrPath("rdma", "ecn_bits"),
	fabric.FieldTrust.Name:                path.Root("trust"),
}.with(dcqcnNames)

// dcqcnNames are the dcqcn block's attributes of the DCQCN fields.
var dcqcnNames = func() fieldNames {
	t := fieldNames{}
	for field, name := range map[string]string{
		"AdditiveIncreaseMbps": "ai_rate_mbps", "HyperIncreaseMbps": "hai_rate_mbps", "Gain": "gain", "InitialAlpha": "initial_alpha", "TimeResetUS": "time_reset_us", "ByteReset": "byte_reset",
		"Threshold": "threshold", "MaxRateMbps": "max_rate_mbps", "DecreaseShift": "decrease_shift",
		"CutFloorPercent": "cut_floor_percent", "MinRateMbps": "min_rate_mbps", "RateOnFirstCNPMbps": "rate_on_first_cnp_mbps",
		"AlphaUpdatePeriodUS": "alpha_update_period_us", "RateReduceMonitorPeriodUS": "rate_reduce_monitor_period_us",
		"MinTimeBetweenCNPsUS": "min_time_between_cnps_us", "ClampTargetRate": "clamp_target_rate",
		"ClampTargetRateAfterTimeInc": "clamp_target_rate_after_time_inc",
	} {
		t["DCQCN."+field] = attrPath("dcqcn", name)
	}
	return t
}()

// ModifyPlan reads the host (one round trip) when the configuration changed or the last
// refresh found drift, and shows the exact changes.
func (r *nicDCQCNResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || !req.Config.Raw.IsFullyKnown() || r.data == nil {
		return
	}
	var plan nicDCQCNModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || !plan.known() {
		return
	}
	plan.ID = plan.id()
	if !req.State.Raw.IsNull() {
		var state nicDCQCNModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if state.InSync.ValueBool() && sameNICDCQCN(&state, &plan) {
			plan.RebootRequired, plan.PlannedChanges, plan.InSync = state.RebootRequired, state.PlannedChanges, state.InSync
			resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
			return
		}
	}
	var undo []host.Task
	if req.State.Raw.IsNull() && plan.Persist.ValueBool() {
		undo = []host.Task{plan.persistence().Undo()}
	}
	planned, ok := planOnHost(ctx, r.data, plan.Host.ValueString(), host.Phases{plan.tasks()}, undo, "Cannot Plan NIC DCQCN", nil, &resp.Diagnostics)
	if !ok {
		return
	}
	plan.PlannedChanges, plan.InSync = planned.changes(ctx, &resp.Diagnostics), types.BoolValue(true)
	plan.RebootRequired = types.BoolUnknown()
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

func (r *nicDCQCNResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	ctx, finish := hostDeadlines.bound(ctx, req.Plan, opCreate, &resp.Diagnostics)
	defer finish()
	if resp.Diagnostics.HasError() {
		return
	}
	applyHostPlan(ctx, req.Plan, &resp.State, &resp.Diagnostics, r.apply)
}

func (r *nicDCQCNResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	ctx, finish := hostDeadlines.bound(ctx, req.Plan, opUpdate, &resp.Diagnostics)
	defer finish()
	if resp.Diagnostics.HasError() {
		return
	}
	applyHostPlan(ctx, req.Plan, &resp.State, &resp.Diagnostics, r.apply)
}

// Read plans the configured tasks against the host: any change means the host drifted (for
// example values reset by a reboot without the persistence unit). After an import, which
// leaves dcqcn and cnp unset, it first reads them and the host QoS back from the host.
func (r *nicDCQCNResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	ctx, finish := hostDeadlines.bound(ctx, req.State, opRead, &resp.Diagnostics)
	defer finish()
	if resp.Diagnostics.HasError() {
		return
	}
	var state nicDCQCNModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var extra host.Want
	var observe func(host.Facts) (host.Phases, error)
	if state.DCQCN == nil || state.CNP == nil { // imported
		extra = state.persistence().Needs() // whether the unit is there decides persist
		observe = func(f host.Facts) (host.Phases, error) {
			err := state.observe(f)
			return host.Phases{state.tasks()}, err
		}
	}
	f, ok := refreshOnHost(ctx, r.data, state.Host.ValueString(), host.Phases{state.tasks()}, extra, observe,
		"Unable to Read NIC DCQCN", &state.PlannedChanges, &state.InSync, &resp.Diagnostics)
	if !ok {
		return
	}
	state.ID = state.id()
	if d := state.DCQCN; d != nil && d.CutFloorPercent.IsNull() {
		d.CutFloorPercent = d.MinDecreaseFactorPercent // state written before the rename
	}
	state.RebootRequired = types.BoolValue(state.dcqcnTask().RebootRequired(f))
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// observe fills dcqcn and cnp with the values the host holds (tasks.DCQCN.Observed), as
// read from the first configured netdev.
func (m *nicDCQCNModel) observe(f host.Facts) error {
	got, err := m.dcqcnTask().Observed(f)
	if err != nil {
		return fmt.Errorf("read back DCQCN: %w", err)
	}
	p := got.Params
	cutFloor := types.Int64Value(int64(p.CutFloorPercent))
	m.DCQCN = &dcqcnModel{
		Gain: types.Float64Value(p.Gain), AlphaUpdatePeriodUS: types.Int64Value(int64(p.AlphaUpdatePeriodUS)),
		InitialAlpha: types.Float64Value(p.InitialAlpha), AdditiveIncreaseMbps: types.Int64Value(int64(p.AdditiveIncreaseMbps)),
		HyperIncreaseMbps: types.Int64Value(int64(p.HyperIncreaseMbps)), TimeResetUS: types.Int64Value(int64(p.TimeResetUS)),
		ByteReset: types.Int64Value(int64(p.ByteReset)), MinRateMbps: types.Int64Value(int64(p.MinRateMbps)),
		CutFloorPercent: cutFloor, MinDecreaseFactorPercent: cutFloor,
		MinTimeBetweenCNPsUS: types.Int64Value(int64(p.MinTimeBetweenCNPsUS)),
	}
	m.CNP = &cnpClassModel{DSCP: types.Int64Value(int64(got.CNPDSCP)), Priority: types.Int64Value(int64(got.CNPPriority))}
	return m.observeQoS(f)
}

// observeQoS fills pfc_priorities, set_traffic_class, rdma_dscp and persist with what the host
// holds, as the inverse of qosTask and persistence. priority is not read: the firmware enables
// DCQCN on every priority by default, so the enable bits cannot tell which one was configured,
// and it stays at what ImportState set.
func (m *nicDCQCNModel) observeQoS(f host.Facts) error {
	q, err := m.qosTask().Observed(f)
	if err != nil {
		return fmt.Errorf("read back host QoS: %w", err)
	}
	// Unset means [priority]; PFC off everywhere cannot be configured (an empty list is
	// refused), so it too is left unset and shows as drift to [priority].
	prio := intOr(m.Priority, fabric.DefaultRDMAPriority)
	m.PFCPriorities = types.ListNull(types.Int64Type)
	if len(q.PFCPriorities) > 0 && !slices.Equal(q.PFCPriorities, []int{prio}) {
		elems := make([]attr.Value, len(q.PFCPriorities))
		for i, p := range q.PFCPriorities {
			elems[i] = types.Int64Value(int64(p))
		}
		m.PFCPriorities = types.ListValueMust(types.Int64Type, elems)
	}
	// A forced class is rdma_dscp << 2 | ECT(0); other ECN bits show as drift. With none
	// forced, rdma_dscp is not on the host and stays at what ImportState set.
	m.TrafficClass = types.BoolValue(q.TrafficClass >= 0)
	if q.TrafficClass >= 0 {
		m.RDMADSCP = types.Int64Value(int64(q.TrafficClass >> 2))
	}
	m.Persist = types.BoolValue(m.persistence().Installed(f))
	return nil
}

// Delete removes the boot-time persistence (unit, script, udev rule) as one engine apply of
// its undo task, and says what stays: the values in effect until the next reboot or driver
// reload, and values written to NV config (the mlxconfig path), which survive reboots.
func (r *nicDCQCNResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	ctx, finish := hostDeadlines.bound(ctx, req.State, opDelete, &resp.Diagnostics)
	defer finish()
	if resp.Diagnostics.HasError() {
		return
	}
	var state nicDCQCNModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	left := func(removed string) {
		resp.Diagnostics.AddWarning("NIC Settings Left in Place",
			removed+" The DCQCN, trust, PFC and traffic class values in effect on "+state.Host.ValueString()+" stay until the next reboot or "+
				"driver reload. Values this resource wrote to NV config with mlxconfig (hosts without OFED sysfs or debugfs cc_params) stay "+
				"across reboots: set each back with `mlxconfig -d <pci address> set <PARAM>=<value>` (`mlxconfig -d <pci address> query` "+
				"shows them; `reset` would return every NV setting, not only these, to its default).")
	}
	if !state.Persist.ValueBool() {
		left("Destroy changed nothing on the host (persist = false).")
		return
	}
	engine, address, err := r.data.hostEngine(state.Host.ValueString())
	if err != nil {
		addSSHSettingsError(&resp.Diagnostics, address, err)
		return
	}
	if _, err := engine.Apply(ctx, []host.Task{state.persistence().Undo()}); err != nil {
		addHostError(&resp.Diagnostics, "Unable to Delete NIC DCQCN", address, err)
		return
	}
	left("Destroy removed the boot-time unit and udev rule.")
}

// ImportState takes the host address. dcqcn and cnp are left unset for Read to read back
// from the host, with pfc_priorities, set_traffic_class, rdma_dscp and persist. priority
// starts at its default: the host cannot tell it (see observeQoS).
func (r *nicDCQCNResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	set := func(name string, v attr.Value) {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(name), v)...)
	}
	set("id", types.StringValue(req.ID))
	set("host", types.StringValue(req.ID))
	set("priority", types.Int64Value(fabric.DefaultRDMAPriority))
	set("rdma_dscp", types.Int64Value(fabric.DefaultRDMADSCP))
	set("set_traffic_class", types.BoolValue(true))
	set("persist", types.BoolValue(true))
}

// apply converges the host and fills the computed attributes.
func (r *nicDCQCNResource) apply(ctx context.Context, plan *nicDCQCNModel, diags *diag.Diagnostics) (changed bool) {
	engine, address, err := r.data.hostEngine(plan.Host.ValueString())
	if err != nil {
		addSSHSettingsError(diags, address, err)
		return false
	}
	rep, err := engine.Apply(ctx, plan.tasks())
	if err != nil {
		addHostError(diags, "Unable to Apply NIC DCQCN", address, err)
		return mayHaveChanged(err)
	}
	if plan.PlannedChanges.IsUnknown() {
		list, d := linesValue(ctx, changeLines(rep))
		diags.Append(d...)
		plan.PlannedChanges = list
	}
	// The report carries no facts; one more read tells whether NV config needs a reboot.
	d := plan.dcqcnTask()
	f, err := engine.Read(ctx, d.Needs())
	if err != nil {
		addHostError(diags, "Unable to Read NIC DCQCN", address, err)
		return true
	}
	plan.RebootRequired = types.BoolValue(d.RebootRequired(f))
	plan.InSync = types.BoolValue(true)
	plan.ID = plan.id()
	return true
}

// id is the resource's ID: the host.
func (m *nicDCQCNModel) id() types.String { return types.StringValue(hostID(m.Host.ValueString())) }

// markUnsynced marks a state saved after a failed apply: the next refresh reads the host.
func (m *nicDCQCNModel) markUnsynced() {
	m.InSync = types.BoolValue(false)
	m.ID = m.id()
}

// tasks builds the host tasks of the configuration.
func (m *nicDCQCNModel) tasks() []host.Task {
	d := m.dcqcnTask()
	q := m.qosTask()
	todo := []host.Task{d, q}
	if m.Persist.ValueBool() {
		todo = append(todo, m.persistence())
	}
	return todo
}

func (m *nicDCQCNModel) persistence() tasks.Persistence {
	return dcqcnPersistence(m.dcqcnTask(), m.qosTask())
}

// dcqcnPersistence is the boot-time unit and udev rule that reapply d and q.
// nicDCQCNNeeds is what the tasks and their undo read with the default settings.
func nicDCQCNNeeds() host.Want {
	p := dcqcnPersistence(tasks.DCQCN{}, tasks.HostQoS{})
	return host.Phases{{tasks.DCQCN{}, tasks.HostQoS{}, p}, {p.Undo()}}.Needs()
}

func dcqcnPersistence(d tasks.DCQCN, q tasks.HostQoS) tasks.Persistence {
	return tasks.Persistence{ID: "dcqcn", DCQCN: &d, QoS: &q}
}

func (m *nicDCQCNModel) dcqcnTask() tasks.DCQCN {
	cnpDSCP, cnpPrio := fabric.DefaultCNPDSCP, fabric.DefaultCNPPriority
	if m.CNP != nil {
		cnpDSCP, cnpPrio = intOr(m.CNP.DSCP, cnpDSCP), intOr(m.CNP.Priority, cnpPrio)
	}
	// Every PFC priority is lossless and gets DCQCN's points; unset pfc_priorities means
	// [priority], the task's own.
	return tasks.DCQCN{
		Netdevs: stringsOf(m.Devices), Priority: intOr(m.Priority, fabric.DefaultRDMAPriority), Lossless: intsOf(m.PFCPriorities),
		Params: m.params(), CNPDSCP: cnpDSCP, CNPPriority: cnpPrio,
	}
}

func (m *nicDCQCNModel) qosTask() tasks.HostQoS {
	q := tasks.HostQoS{Netdevs: stringsOf(m.Devices), Trust: fabric.TrustDSCP, PFCPriorities: intsOf(m.PFCPriorities), TrafficClass: -1, CMARoCETos: -1}
	if q.PFCPriorities == nil {
		q.PFCPriorities = []int{intOr(m.Priority, fabric.DefaultRDMAPriority)}
	}
	if m.TrafficClass.IsNull() || m.TrafficClass.ValueBool() {
		tos, _ := fabric.ToS(intOr(m.RDMADSCP, fabric.DefaultRDMADSCP), fabric.ECNBitsECT0)
		q.TrafficClass = tos
	}
	if !m.CMARoCETos.IsNull() {
		q.CMARoCETos = int(m.CMARoCETos.ValueInt64())
	}
	return q
}

func (m *nicDCQCNModel) params() fabric.DCQCN {
	p := fabric.DefaultDCQCN()
	d := m.DCQCN
	if d == nil {
		return p
	}
	setFloat := func(dst *float64, v types.Float64) {
		if !v.IsNull() && !v.IsUnknown() {
			*dst = v.ValueFloat64()
		}
	}
	setInt := func(dst *int, v types.Int64) {
		if !v.IsNull() && !v.IsUnknown() {
			*dst = int(v.ValueInt64())
		}
	}
	setFloat(&p.Gain, d.Gain)
	setInt(&p.AlphaUpdatePeriodUS, d.AlphaUpdatePeriodUS)
	setFloat(&p.InitialAlpha, d.InitialAlpha)
	setInt(&p.AdditiveIncreaseMbps, d.AdditiveIncreaseMbps)
	setInt(&p.HyperIncreaseMbps, d.HyperIncreaseMbps)
	setInt(&p.TimeResetUS, d.TimeResetUS)
	setInt(&p.ByteReset, d.ByteReset)
	setInt(&p.MinRateMbps, d.MinRateMbps)
	setInt(&p.CutFloorPercent, d.MinDecreaseFactorPercent)
	setInt(&p.CutFloorPercent, d.CutFloorPercent)
	setInt(&p.MinTimeBetweenCNPsUS, d.MinTimeBetweenCNPsUS)
	return p
}

// validNetdevs checks device names as the kernel's dev_valid_name does (1 to 15 bytes, not
// "." or "..", no '/', ':' or white space) and refuses a name given twice.
func validNetdevs(l types.List) problems {
	var ps problems
	seen := map[string]bool{}
	for i, name := range stringsOf(l) {
		at := path.Root("devices").AtListIndex(i)
		switch {
		case name == "" || len(name) > 15 || name == "." || name == ".." || strings.ContainsAny(name, "/: \t\n\r\v\f"):
			ps.errorAt(at, "Invalid Device Name", fmt.Sprintf("%s is %q, which cannot be a network interface name (1 to 15 characters, no '/', ':' or spaces). "+
				"Use the netdev names `ibdev2netdev` or `ip link` show, such as ens1f0np0.", at, name))
		case seen[name]:
			ps.errorAt(at, "Repeated Device", fmt.Sprintf("%s repeats %q; list each device once.", at, name))
		}
		seen[name] = true
	}
	return ps
}

// validate applies the fabric rules to the NIC side of the contract.
func (m *nicDCQCNModel) validate() problems {
	class := fabric.DefaultTrafficClass()
	class.Priority = intOr(m.Priority, fabric.DefaultRDMAPriority)
	class.DSCP = []int{intOr(m.RDMADSCP, fabric.DefaultRDMADSCP)}
	if m.CNP != nil {
		class.CNPDSCP, class.CNPPriority = intOr(m.CNP.DSCP, fabric.DefaultCNPDSCP), intOr(m.CNP.Priority, fabric.DefaultCNPPriority)
	}
	var ps problems
	ps.add(class.Validate(), nicDCQCNNames)
	ps.add(m.params().Validate(), nicDCQCNNames)
	ps = append(ps, validNetdevs(m.Devices)...)
	if d := m.DCQCN; d != nil && isSet(d.CutFloorPercent) && isSet(d.MinDecreaseFactorPercent) && !d.CutFloorPercent.Equal(d.MinDecreaseFactorPercent) {
		ps.errorAt(attrPath("dcqcn", dcqcnCutFloorOld), "Conflicting DCQCN Settings",
			fmt.Sprintf("dcqcn.%s is %d and dcqcn.cut_floor_percent is %d, two names of one knob (rpg_min_dec_fac): set only cut_floor_percent.",
				dcqcnCutFloorOld, d.MinDecreaseFactorPercent.ValueInt64(), d.CutFloorPercent.ValueInt64()))
	}
	if isSet(m.PFCPriorities) && len(m.PFCPriorities.Elements()) == 0 {
		ps.errorAt(path.Root("pfc_priorities"), "No PFC Priority",
			fmt.Sprintf("pfc_priorities is empty, which would turn PFC off on every priority and leave RoCE lossy. "+
				"List the lossless priorities (normally [%d], the RDMA priority), or leave it unset for [priority].", class.Priority))
	}
	// The CNP priority is known unless cnp or its priority is still unknown; unset, it is the
	// firmware default.
	cnpKnown := m.CNP == nil || !m.CNP.Priority.IsUnknown()
	seen := map[int]bool{}
	for i, p := range intsOf(m.PFCPriorities) {
		at := path.Root("pfc_priorities").AtListIndex(i)
		switch {
		case p < 0 || p > 7:
			ps.errorAt(at, "Priority Out of Range", fmt.Sprintf("%s is %d; priorities are 0 to 7.", at, p))
		case seen[p]:
			ps.errorAt(at, "Repeated PFC Priority", fmt.Sprintf("%s repeats priority %d; list each priority once.", at, p))
		case cnpKnown && p == class.CNPPriority:
			ps.errorAt(at, "PFC on the CNP Priority", fmt.Sprintf("%s is %d, the CNP priority (cnp.priority): every PFC priority is a lossless "+
				"class whose DCQCN reacts to CNPs, and CNPs queued behind paused data arrive too late to slow it. Remove %d from pfc_priorities, "+
				"or move the CNPs to a priority of their own (cnp.priority, firmware default %d).", at, p, p, fabric.DefaultCNPPriority))
		}
		seen[p] = true
	}
	if v := m.CMARoCETos; isSet(v) && (v.ValueInt64() < 0 || v.ValueInt64() > 255) {
		ps.errorAt(path.Root("cma_roce_tos"), "Value Out of Range", fmt.Sprintf("cma_roce_tos is %d; a ToS byte is 0..255 (DSCP << 2 | ECN bits, e.g. 106 for DSCP 26 with ECT(0)): set a value in that range, or leave it unset.", v.ValueInt64()))
	}
	return ps
}

func (m *nicDCQCNModel) known() bool {
	vals := []attr.Value{m.Host, m.Devices, m.Priority, m.RDMADSCP, m.PFCPriorities, m.TrafficClass, m.CMARoCETos, m.Persist}
	if m.CNP != nil {
		vals = append(vals, m.CNP.DSCP, m.CNP.Priority)
	}
	if d := m.DCQCN; d != nil {
		vals = append(vals, d.Gain, d.AlphaUpdatePeriodUS, d.InitialAlpha, d.AdditiveIncreaseMbps, d.HyperIncreaseMbps,
			d.TimeResetUS, d.ByteReset, d.MinRateMbps, d.CutFloorPercent, d.MinDecreaseFactorPercent, d.MinTimeBetweenCNPsUS)
	}
	return !anyUnknown(vals...)
}

// sameNICDCQCN reports whether two models ask the host for the same thing.
func sameNICDCQCN(a, b *nicDCQCNModel) bool {
	return a.Host.Equal(b.Host) && reflect.DeepEqual(a.tasks(), b.tasks())
}
