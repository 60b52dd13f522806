package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
)

var (
	_ resource.ResourceWithConfigure      = (*switchQoSResource)(nil)
	_ resource.ResourceWithImportState    = (*switchQoSResource)(nil)
	_ resource.ResourceWithValidateConfig = (*switchQoSResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*switchQoSResource)(nil)
)

func newSwitchQoSResource() resource.Resource { return &switchQoSResource{} }

type switchQoSResource struct {
	data *providerData
}

// Private state keys: the values shared fields had before the provider changed them, as
// states written before restore_point kept them, and a marker that the resource was just
// imported.
const (
	privateSnapshot = "snapshot"
	privateImported = "imported"
)

func (r *switchQoSResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_switch_qos"
}

func (r *switchQoSResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = switchDeadlines.withBlock(switchQoSSchema())
}

func (r *switchQoSResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig applies every rule that needs no switch: traffic class, ECN/PFC ratio and
// ordering, schedulers, watchdog, name and port name syntax (the driver's), the port speed
// override, a pinned release and the resource's own login settings.
func (r *switchQoSResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	validateConfig[switchQoSModel](ctx, req, resp)
}

// ModifyPlan reads the switch when something is to change and plans the exact operations,
// refusing what the switch's driver finds it would reject (unknown ports, a reservation beyond
// the buffer pool, what its release refuses).
func (r *switchQoSResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || !req.Config.Raw.IsFullyKnown() || r.data == nil {
		return
	}
	var plan switchQoSModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.warnInsecure(&resp.Diagnostics)
	var prior *switchQoSModel
	if !req.State.Raw.IsNull() {
		prior = &switchQoSModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, prior)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	if !plan.known() {
		plan.setComputedUnknown()
		resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
		return
	}
	policy := plan.policy()
	plan.ID = types.StringValue(switchQoSID(plan.Address.ValueString(), policy.Name, policy.Ports))
	if prior != nil && prior.InSync.ValueBool() && reflect.DeepEqual(prior.policy(), policy) && !prior.Headroom.IsNull() {
		plan.Headroom, plan.PlannedOperations, plan.InSync, plan.RestorePoint = prior.Headroom, prior.PlannedOperations, prior.InSync, prior.RestorePoint
		resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
		return
	}

	drv, _, obs, ok := r.observe(ctx, &plan, &resp.Diagnostics, true)
	if !ok {
		if !resp.Diagnostics.HasError() {
			plan.setComputedUnknown()
			resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
		}
		return
	}
	h, ok := r.checkSwitch(obs, &plan, &resp.Diagnostics)
	if !ok {
		return
	}
	var snap switchcfg.Snapshot
	if prior != nil {
		snap = r.restorePoint(ctx, prior, req.Private, &resp.Diagnostics)
	}
	next := obs.Snapshot(priorPolicy(prior), policy, snap)
	changes, err := obs.PlanUpdate(priorPolicy(prior), policy, next)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("ports"), "Switch Would Reject the Change",
			fmt.Sprintf("Planning QoS for %s: %v. Nothing was sent. %s", plan.Address.ValueString(), err, drv.Remedy(switchcfg.StagePlan, err)))
		return
	}
	resp.Diagnostics.Append(plan.setComputed(ctx, h, changes.Lines(), true)...)
	// The restore point is read again at apply, just before the transaction: it is known now
	// only when this change adds nothing to it.
	plan.RestorePoint = types.MapUnknown(types.StringType)
	if prior != nil && !prior.RestorePoint.IsNull() && reflect.DeepEqual(next, snap) {
		plan.RestorePoint = prior.RestorePoint
	}
	if prior == nil && holds(obs, policy) {
		// A create on a switch that already holds this policy's objects is most often the
		// second half of replacing a tainted resource, whose destroy removes them first: the
		// operations are known only once it has run, at apply.
		plan.PlannedOperations = types.ListUnknown(types.StringType)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// holds reports whether the switch holds any of p's own objects.
func holds(obs switchcfg.Observation, p switchcfg.Policy) bool {
	_, err := obs.Decode(p.Name, p.Ports, p)
	return !errors.Is(err, switchcfg.ErrNotFound)
}

func (r *switchQoSResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	ctx, finish := switchDeadlines.bound(ctx, req.Plan, opCreate, &resp.Diagnostics)
	defer finish()
	if resp.Diagnostics.HasError() {
		return
	}
	var plan switchQoSModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	snap := r.apply(ctx, nil, &plan, nil, plannedLines(ctx, plan.PlannedOperations), &resp.Diagnostics)
	if snap == nil {
		return
	}
	// Saved also when the Set failed but may have reached the switch: Terraform then keeps the
	// resource tainted, and its destroy puts back what the restore point recorded before the
	// Set. The restore point is in the state, not the private state: Terraform hands a
	// tainted object's replacement only the private state planned for the new object.
	plan.setRestorePoint(snap)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	if !resp.Diagnostics.HasError() {
		r.verifyLossless(ctx, &plan, false, &resp.Diagnostics)
	}
}

func (r *switchQoSResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	ctx, finish := switchDeadlines.bound(ctx, req.State, opRead, &resp.Diagnostics)
	defer finish()
	if resp.Diagnostics.HasError() {
		return
	}
	var state switchQoSModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	_, _, obs, ok := r.observe(ctx, &state, &resp.Diagnostics, false)
	if !ok {
		return
	}
	prior := state.policy()
	decoded, err := obs.Decode(prior.Name, prior.Ports, prior)
	if errors.Is(err, switchcfg.ErrNotFound) {
		tflog.Info(ctx, "switch QoS objects are gone; removing the resource from state", map[string]any{"address": state.Address.ValueString()})
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Unable to Read Switch QoS",
			fmt.Sprintf("Reading the QoS objects %q on %s: %v. Fix the switch by hand or apply again.", prior.Name, state.Address.ValueString(), err))
		return
	}
	imported, d := req.Private.GetKey(ctx, privateImported)
	resp.Diagnostics.Append(d...)
	var lines []string
	residual, err := obs.PlanUpdate(nil, decoded, nil)
	inSync := err == nil && residual.Empty()
	if err != nil {
		lines = []string{err.Error()}
	} else {
		lines = residual.Lines()
	}
	if imported == nil {
		inSync = inSync && reflect.DeepEqual(prior, decoded)
	}
	if inSync && !state.PlannedOperations.IsNull() {
		lines = nil // in sync: keep the operations of the last change, so outputs stay stable
	}
	state.setPolicy(decoded)
	speed := int(state.PortSpeedGbps.ValueInt64())
	h := obs.Headroom(decoded, speed)
	state.ID = types.StringValue(switchQoSID(state.Address.ValueString(), prior.Name, prior.Ports))
	resp.Diagnostics.Append(state.setHeadroom(h)...)
	if lines != nil {
		resp.Diagnostics.Append(state.setLines(ctx, lines)...)
	}
	state.InSync = types.BoolValue(inSync)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateImported, nil)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *switchQoSResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	ctx, finish := switchDeadlines.bound(ctx, req.Plan, opUpdate, &resp.Diagnostics)
	defer finish()
	if resp.Diagnostics.HasError() {
		return
	}
	var plan, state switchQoSModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	prior := state.policy()
	// A plan that changes no policy (only timeouts, say) shows the last change's operations,
	// not ones it computed.
	var planned []string
	if !state.InSync.ValueBool() || !reflect.DeepEqual(prior, plan.policy()) {
		planned = plannedLines(ctx, plan.PlannedOperations)
	}
	snap := r.apply(ctx, &prior, &plan, r.restorePoint(ctx, &state, req.Private, &resp.Diagnostics), planned, &resp.Diagnostics)
	if snap == nil {
		return
	}
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateSnapshot, nil)...)
	if resp.Diagnostics.HasError() {
		// A Set that may have reached the switch: the state keeps the prior policy, so the
		// next plan moves prior to plan again (restoring what it drops, such as a removed
		// port, whatever the switch holds by then), with the values recorded for what the
		// plan sets first and in_sync false.
		state.setRestorePoint(snap)
		state.InSync = types.BoolValue(false)
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		return
	}
	plan.setRestorePoint(snap)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	r.verifyLossless(ctx, &plan, false, &resp.Diagnostics)
}

// losslessWait bounds how long an apply waits for the switch to derive its lossless priority
// groups, which a daemon of its own does a moment after the transaction (SONiC's buffermgrd).
const losslessWait = 10 * time.Second

// verifyLossless reads the switch back after an apply and fails, naming the port and the
// cause, when a listed port has no lossless priority group for the RDMA priority; a port whose
// group has another profile draws a warning. The state is already saved: a failed create is
// tainted and the next plan replaces it. After a destroy (destroyed) every problem is a
// warning: the restored cable lengths may not have reached the headroom yet.
func (r *switchQoSResource) verifyLossless(ctx context.Context, plan *switchQoSModel, destroyed bool, diags *diag.Diagnostics) {
	_, backend, obs, ok := r.observe(ctx, plan, diags, false)
	if !ok {
		return
	}
	policy := plan.policy()
	problems := obs.CheckLossless(policy)
	deadline := time.Now().Add(losslessWait)
	for !destroyed && hasFatal(problems) && time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		if obs, err := backend.Observe(ctx); err == nil {
			problems = obs.CheckLossless(policy)
		}
	}
	tflog.Debug(ctx, "read back lossless priority groups", map[string]any{
		"address": plan.Address.ValueString(), "ports": len(policy.Ports), "problems": len(problems)})
	for _, p := range problems {
		when := "After the apply"
		if destroyed {
			when = "After the destroy"
		}
		detail := fmt.Sprintf("%s, switch %s: %s", when, plan.Address.ValueString(), p.Detail)
		if p.Fatal && !destroyed {
			diags.AddAttributeError(path.Root("ports"), "Port Without Lossless Priority Group", detail)
		} else {
			diags.AddAttributeWarning(path.Root("ports"), "Lossless Priority Group Not Updated", detail)
		}
	}
}

func hasFatal(ps []switchcfg.LosslessProblem) bool {
	for _, p := range ps {
		if p.Fatal {
			return true
		}
	}
	return false
}

func (r *switchQoSResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	ctx, finish := switchDeadlines.bound(ctx, req.State, opDelete, &resp.Diagnostics)
	defer finish()
	if resp.Diagnostics.HasError() {
		return
	}
	var state switchQoSModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	drv, backend, obs, ok := r.observe(ctx, &state, &resp.Diagnostics, false)
	if !ok {
		return
	}
	snap := r.restorePoint(ctx, &state, req.Private, &resp.Diagnostics)
	changes, err := obs.Removal(state.policy(), snap)
	if err != nil {
		resp.Diagnostics.AddError("Unable to Delete Switch QoS",
			fmt.Sprintf("Planning the removal on %s: %v. Nothing was sent. %s", state.Address.ValueString(), err, drv.Remedy(switchcfg.StagePlan, err)))
		return
	}
	if sent, _ := r.send(ctx, drv, backend, changes, state.Address.ValueString(), "Delete",
		"The resource stays in state: destroy again to finish the removal.", &resp.Diagnostics); sent {
		r.verifyLossless(ctx, &state, true, &resp.Diagnostics)
	}
}

func (r *switchQoSResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	os, address, name, ports, err := parseSwitchQoSID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid Import ID", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), types.StringValue(req.ID))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("address"), types.StringValue(address))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("os"), types.StringValue(os))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), types.StringValue(name))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("ports"), stringList(ports))...)
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, privateImported, []byte(`true`))...)
}

// apply observes the switch, checks the plan against it and sends one transaction moving it
// from prior (nil for a new resource) to the planned policy; it fills the plan's computed
// attributes and returns the updated restore snapshot. The snapshot is nil when the switch
// is unchanged; it comes with an error in diags, and in_sync false, when the transaction failed but
// may have reached the switch, which the caller must then record. planned are the operations
// the plan showed, nil when it showed none: the switch changed since when they differ from
// what it needs now, and nothing is sent.
func (r *switchQoSResource) apply(ctx context.Context, prior *switchcfg.Policy, plan *switchQoSModel, snap switchcfg.Snapshot, planned []string, diags *diag.Diagnostics) switchcfg.Snapshot {
	drv, backend, obs, ok := r.observe(ctx, plan, diags, false)
	if !ok {
		return nil
	}
	h, ok := r.checkSwitch(obs, plan, diags)
	if !ok {
		return nil
	}
	policy := plan.policy()
	// Values unknown at plan time were not validated then.
	if ps := plan.validate(); ps.hasErrors() {
		ps.report(diags)
		return nil
	}
	snap = obs.Snapshot(prior, policy, snap)
	changes, err := obs.PlanUpdate(prior, policy, snap)
	if err != nil {
		diags.AddError("Unable to Apply Switch QoS", fmt.Sprintf("Planning QoS for %s: %v. Nothing was sent. %s", plan.Address.ValueString(), err, drv.Remedy(switchcfg.StagePlan, err)))
		return nil
	}
	if now := changes.Lines(); planned != nil && !slices.Equal(planned, now) {
		diags.AddAttributeError(path.Root("planned_operations"), "Switch Changed Since the Plan",
			fmt.Sprintf("The plan for %s showed %d operations, computed from the switch as it was then; it now needs these %d:\n\n%s\n\n"+
				"Something changed the switch between plan and apply: another workspace or a person on it. Nothing was sent: plan again and review the operations.",
				plan.Address.ValueString(), len(planned), len(now), strings.Join(now, "\n")))
		return nil
	}
	tflog.Debug(ctx, "applying switch QoS", map[string]any{"address": plan.Address.ValueString(), "operations": changes.Len()})
	ifUnsettled := "The resource is saved as tainted, with the values the switch had before: the next apply replaces it (its destroy puts those values back), and destroy restores them."
	if prior != nil {
		ifUnsettled = "The state keeps the configuration before this change, with in_sync false and the values to restore: the next plan makes the change again from what the switch holds."
	}
	sent, unsettled := r.send(ctx, drv, backend, changes, plan.Address.ValueString(), "Apply", ifUnsettled, diags)
	if !sent && !unsettled {
		return nil
	}
	// Values the plan already showed stay as shown: the state must match the plan.
	if plan.Headroom.IsUnknown() {
		diags.Append(plan.setHeadroom(h)...)
	}
	if plan.PlannedOperations.IsUnknown() {
		diags.Append(plan.setLines(ctx, changes.Lines())...)
	}
	plan.InSync = types.BoolValue(sent)
	plan.ID = types.StringValue(switchQoSID(plan.Address.ValueString(), policy.Name, policy.Ports))
	return snap
}

// send applies changes as one transaction and reports the outcome: sent when the switch
// holds it, unsettled when it failed but the switch may hold some or all of it.
func (r *switchQoSResource) send(ctx context.Context, drv switchcfg.Driver, backend switchcfg.Backend, changes switchcfg.Changes, address, verb, ifUnsettled string, diags *diag.Diagnostics) (sent, unsettled bool) {
	start := time.Now()
	warning, err := backend.Apply(ctx, changes)
	tflog.Debug(ctx, "switch transaction ended", map[string]any{
		"address": address, "operations": changes.Len(), "duration_ms": time.Since(start).Milliseconds(),
		"ok": err == nil, "unsettled": switchcfg.Unsettled(err)})
	if err != nil {
		outcome := "The switch refused the change or never received it: it holds none of it."
		if remedy := drv.Remedy(switchcfg.StageApply, err); remedy != "" {
			outcome += " " + remedy
		}
		if switchcfg.Unsettled(err) {
			outcome = "The switch may hold some or all of the change, now or once it finishes work it had started. " + ifUnsettled
		}
		diags.AddError(fmt.Sprintf("Unable to %s Switch QoS", verb),
			fmt.Sprintf("The transaction of %d operations to %s failed: %v\n\n%s", changes.Len(), address, err, outcome))
		return false, switchcfg.Unsettled(err)
	}
	if warning != "" {
		diags.AddWarning("Switch Applied the Change with a Warning", warning)
	}
	return true, false
}

// observe returns the switch's driver, its backend and one observation of the switch. At plan
// time (planTime) an unreachable switch is a warning, not an error: the operations are then
// computed at apply.
func (r *switchQoSResource) observe(ctx context.Context, m *switchQoSModel, diags *diag.Diagnostics, planTime bool) (switchcfg.Driver, switchcfg.Backend, switchcfg.Observation, bool) {
	if r.data == nil {
		diags.AddError("Provider Not Configured", "The roce provider was not configured before this resource was used. This is a bug in the provider; please report it.")
		return nil, nil, nil, false
	}
	if !m.checkConnection(r.data.settings, diags) {
		return nil, nil, nil, false
	}
	drv, err := switchDriver(m.os())
	if err != nil {
		diags.AddAttributeError(path.Root("os"), "Unknown Switch Operating System", err.Error())
		return nil, nil, nil, false
	}
	backend, err := r.data.switchBackend(drv, m.Address.ValueString(), m.GNMI, m.NVUE, m.SONiCRelease.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("address"), "Invalid Switch Connection Settings",
			fmt.Sprintf("Connecting to %s: %v", m.Address.ValueString(), err))
		return nil, nil, nil, false
	}
	obs, err := backend.Observe(ctx)
	if err != nil {
		summary, detail := "Unable to Read Switch", fmt.Sprintf("%v\n\n%s", err, drv.Remedy(switchcfg.StageRead, err))
		if planTime {
			diags.AddAttributeWarning(path.Root("address"), summary+" at Plan Time", detail+" The operations will be computed at apply.")
		} else {
			diags.AddAttributeError(path.Root("address"), summary, detail)
		}
		return nil, nil, nil, false
	}
	return drv, backend, obs, true
}

// checkSwitch applies the rules that need the switch (switchcfg.Observation.Check) and returns
// the headroom it will reserve.
func (r *switchQoSResource) checkSwitch(obs switchcfg.Observation, m *switchQoSModel, diags *diag.Diagnostics) (fabric.Headroom, bool) {
	h, vs := obs.Check(m.policy(), int(m.PortSpeedGbps.ValueInt64()))
	var ps problems
	ps.add(vs, switchQoSNames)
	ps.report(diags)
	return h, !diags.HasError()
}

// restorePoint returns what destroy puts back: the state's restore_point, or for a state
// written before that attribute existed, the snapshot kept in the private state; nil after
// an import.
func (r *switchQoSResource) restorePoint(ctx context.Context, m *switchQoSModel, private privateReader, diags *diag.Diagnostics) switchcfg.Snapshot {
	if snap := m.restorePoint(); snap != nil {
		return snap
	}
	raw, d := private.GetKey(ctx, privateSnapshot)
	diags.Append(d...)
	if raw == nil {
		return nil
	}
	var snap switchcfg.Snapshot
	if err := json.Unmarshal(raw, &snap); err != nil {
		diags.AddWarning("Unreadable Restore Point", "The saved values to restore on destroy could not be read ("+err.Error()+"); destroy will restore the switch's stock settings instead.")
		return nil
	}
	return snap
}

// plannedLines are the operations a plan showed, computed from the switch as it was then;
// nil when it left them to the apply.
func plannedLines(ctx context.Context, ops types.List) []string {
	if ops.IsUnknown() || ops.IsNull() {
		return nil
	}
	lines := []string{}
	if ops.ElementsAs(ctx, &lines, false).HasError() {
		return nil
	}
	return lines
}

func priorPolicy(m *switchQoSModel) *switchcfg.Policy {
	if m == nil {
		return nil
	}
	p := m.policy()
	return &p
}
