package provider

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
)

// The host resources share one shape: tasks built from the configuration, a plan that reads
// the host once (check mode) and shows its changes, an apply that converges and verifies,
// and a refresh that is the same plan: pending changes mean the host drifted.

// planLines plans the phases in check mode and returns the planned change lines.
func planLines(ctx context.Context, e host.Engine, ps host.Phases) ([]string, error) {
	p, err := e.PlanPhases(ctx, ps)
	if err != nil {
		return nil, err
	}
	return phasedLines(p), nil
}

// phasedLines renders a phased plan: its changes, then a line per task that waits for them.
func phasedLines(p host.PhasedPlan) []string {
	lines := []string{}
	for _, rep := range p.Reports {
		lines = append(lines, changeLines(rep)...)
	}
	for _, name := range p.Waiting {
		lines = append(lines, name+": planned after the changes above are applied")
	}
	return lines
}

// undoPending reports whether undo, the destroy of this resource, would change the host now.
// A create plan on such a host is most often the second half of replacing a tainted resource
// (a failed create), whose destroy runs first and changes what the create will do: its
// changes are then known only at apply.
func undoPending(ctx context.Context, e host.Engine, undo []host.Task) bool {
	if len(undo) == 0 {
		return false
	}
	p, err := e.PlanPhases(ctx, host.Phases{undo})
	return err != nil || p.Changed()
}

// changeLines renders a report's changes: "<task>: <summary> (<before> → <after>)". Changes
// of one task that differ only in their subject (the same DCQCN values on eight netdevs) are
// one line naming every subject, which keeps a plan readable and the state (which holds
// these lines for every host) small.
func changeLines(rep host.Report) []string {
	type group struct {
		first    host.Change
		subjects []string
	}
	var order []string
	groups := map[string]*group{}
	for _, c := range rep.Changes() {
		key := strconv.Itoa(len(order)) // a change without a subject stands alone
		if c.Subject != "" {
			cut := func(s string) string { return strings.ReplaceAll(s, c.Subject, "\x01") }
			key = c.Task + "\x00" + cut(c.Summary) + "\x00" + cut(c.Before) + "\x00" + cut(c.After)
		}
		g, ok := groups[key]
		if !ok {
			g = &group{first: c}
			groups[key] = g
			order = append(order, key)
		}
		if c.Subject != "" {
			g.subjects = append(g.subjects, c.Subject)
		}
	}
	lines := make([]string, 0, len(order))
	for _, key := range order {
		g := groups[key]
		c := g.first
		if len(g.subjects) > 1 {
			all := strings.Join(g.subjects, ", ")
			c.Summary = strings.ReplaceAll(c.Summary, c.Subject, all)
			c.Before = strings.ReplaceAll(c.Before, c.Subject, all)
			c.After = strings.ReplaceAll(c.After, c.Subject, all)
		}
		line := c.Task + ": " + c.Summary
		if c.Before != "" || c.After != "" {
			line += fmt.Sprintf(" (%s → %s)", orDash(c.Before), orDash(c.After))
		}
		lines = append(lines, line)
	}
	return lines
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// addHostError reports a failed plan or apply on a host, naming it and the operation.
func addHostError(diags *diag.Diagnostics, summary, address string, err error) {
	diags.AddAttributeError(path.Root("host"), summary, fmt.Sprintf("%s: %v", address, err))
}

// addSSHSettingsError reports that the provider's SSH settings cannot make a connection to
// address. The cause is the provider block, not the resource, so the error is on neither of
// the resource's attributes.
func addSSHSettingsError(diags *diag.Diagnostics, address string, err error) {
	diags.AddError("Invalid Provider SSH Settings",
		fmt.Sprintf("No connection to %s can be made with the provider's SSH settings: %v. "+
			"Fix the provider's ssh block (or the ROCE_SSH_* environment variables it falls back to); nothing was run on any host.", address, err))
}

func linesValue(ctx context.Context, lines []string) (types.List, diag.Diagnostics) {
	return types.ListValueFrom(ctx, types.StringType, lines)
}

// hostID is the ID and import ID of a host resource: the host address as configured, then
// the keys that tell the resource from others on the same host (a file path), "|"-separated.
func hostID(hostAddr string, keys ...string) string {
	return strings.Join(append([]string{strings.TrimSpace(hostAddr)}, keys...), "|")
}

// isConnectionError reports a host that could not be reached (as opposed to a host that
// answered and refused, or a plan that failed).
func isConnectionError(err error) bool {
	var ce *ssh.ConnectError
	return errors.As(err, &ce)
}

// applyHostPlan is create and update of a host resource, which are the same operation: read
// the plan into a model, converge the host with apply, and save the model as the new state.
// apply reports whether the host may have been changed although it failed: the state is then
// saved anyway, with in_sync false and what apply did not learn left null, so that a failed
// create is tainted (Terraform replaces it, and destroy undoes what it wrote) instead of
// leaving untracked changes on the host.
func applyHostPlan[M any, P interface {
	*M
	markUnsynced()
}](ctx context.Context, p tfsdk.Plan, state *tfsdk.State, diags *diag.Diagnostics,
	apply func(context.Context, *M, *diag.Diagnostics) (changed bool)) {
	var plan M
	diags.Append(p.Get(ctx, &plan)...)
	if diags.HasError() {
		return
	}
	changed := apply(ctx, &plan, diags)
	if !diags.HasError() {
		diags.Append(state.Set(ctx, &plan)...)
		return
	}
	if !changed {
		return
	}
	P(&plan).markUnsynced()
	var d diag.Diagnostics
	if d = state.Set(ctx, &plan); !d.HasError() {
		state.Raw, _ = tftypes.Transform(state.Raw, unknownToNull)
	}
	diags.Append(d...)
}

// unknownToNull replaces an unknown value with null, for a state saved after a failed apply.
func unknownToNull(_ *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
	if !v.IsKnown() {
		return tftypes.NewValue(v.Type(), nil), nil
	}
	return v, nil
}

// mayHaveChanged reports whether a failed engine.Apply may have changed the host: a change
// failed part way, or every change was made and the check after it failed. A failed gather or
// plan changed nothing.
func mayHaveChanged(err error) bool {
	var te *host.TaskError
	var nc *host.NotConvergedError
	return errors.As(err, &te) && te.Op == "apply" || errors.As(err, &nc)
}

// hostPlan is what a host resource's plan learned from its host: the change lines, or null
// when they are known only at apply (the host cannot be read now, or a create follows a
// destroy of the same tasks that would change the host first).
type hostPlan struct{ lines []string }

// changes is the plan's planned_changes value.
func (p hostPlan) changes(ctx context.Context, diags *diag.Diagnostics) types.List {
	if p.lines == nil {
		return types.ListUnknown(types.StringType)
	}
	list, d := linesValue(ctx, p.lines)
	diags.Append(d...)
	return list
}

// planOnHost plans ps on the host of a new or changed host resource, for its ModifyPlan. A
// host that cannot be reached is a warning and leaves the changes to the apply; any other
// failure is an error under summary, on the attribute attrOf names (nil: host), and ok is
// false. undo, for a create, is the resource's destroy: when it would change the host the
// create is most often a replacement, and its changes are known only at apply.
func planOnHost(ctx context.Context, data *providerData, hostAddr string, ps host.Phases, undo []host.Task, summary string,
	attrOf func(error) (path.Path, bool), diags *diag.Diagnostics) (p hostPlan, ok bool) {
	engine, address, err := data.hostEngine(hostAddr)
	if err != nil {
		addSSHSettingsError(diags, address, err)
		return hostPlan{}, false
	}
	lines, err := planLines(ctx, engine, ps)
	if err != nil {
		if attrOf != nil {
			if at, on := attrOf(err); on {
				diags.AddAttributeError(at, summary, address+": "+err.Error())
				return hostPlan{}, false
			}
		}
		if !isConnectionError(err) {
			addHostError(diags, summary, address, err)
			return hostPlan{}, false
		}
		diags.AddAttributeWarning(path.Root("host"), "Unable to Read Host at Plan Time", fmt.Sprintf("%s: %v. Changes are computed at apply.", address, err))
		return hostPlan{}, true
	}
	if undoPending(ctx, engine, undo) {
		return hostPlan{}, true
	}
	return hostPlan{lines: lines}, true
}

// refreshOnHost is a host resource's Read: one gather of what its phases and extra read, an
// optional observe that fills what an import left unset (and may change the phases), then a
// plan of the phases against that gather: any change means the host drifted. It sets
// planned_changes (to the drift, or to an empty list where it was null) and in_sync, and
// returns the facts for the resource's other computed attributes; ok is false when it
// reported an error under summary.
func refreshOnHost(ctx context.Context, data *providerData, hostAddr string, ps host.Phases, extra host.Want,
	observe func(host.Facts) (host.Phases, error), summary string, planned *types.List, inSync *types.Bool, diags *diag.Diagnostics) (host.Facts, bool) {
	engine, address, err := data.hostEngine(hostAddr)
	if err != nil {
		addSSHSettingsError(diags, address, err)
		return host.Facts{}, false
	}
	f, err := engine.Gather(ctx, ps.Needs().Union(extra))
	if err == nil && observe != nil {
		ps, err = observe(f)
	}
	var p host.PhasedPlan
	if err == nil {
		p, err = engine.PlanPhasesFacts(ctx, f, ps)
	}
	if err != nil {
		addHostError(diags, summary, address, err)
		return host.Facts{}, false
	}
	lines := phasedLines(p)
	if len(lines) > 0 || planned.IsNull() {
		list, d := linesValue(ctx, lines)
		diags.Append(d...)
		*planned = list
	}
	*inSync = types.BoolValue(len(lines) == 0)
	return f, true
}
