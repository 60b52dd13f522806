package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
)

// The host resources share one shape: tasks built from the configuration, a plan that reads
// the host once (check mode) and shows its changes, an apply that converges and verifies,
// and a refresh that is the same plan: pending changes mean the host drifted.

// hostPlan runs the tasks in check mode and returns the planned change lines.
func hostPlan(ctx context.Context, e host.Engine, todo []host.Task) ([]string, error) {
	rep, err := e.Plan(ctx, todo)
	if err != nil {
		return nil, err
	}
	return changeLines(rep), nil
}

// changeLines renders a report's changes: "<task>: <summary> (<before> → <after>)".
func changeLines(rep host.Report) []string {
	lines := []string{}
	for _, c := range rep.Changes() {
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

// hostID is the ID and import ID of a per-host resource: the host address as configured.
func hostID(hostAddr string) string { return strings.TrimSpace(hostAddr) }

// isConnectionError reports a host that could not be reached (as opposed to a host that
// answered and refused, or a plan that failed).
func isConnectionError(err error) bool {
	var ce *ssh.ConnectError
	return errors.As(err, &ce)
}

// applyHostPlan is create and update of a host resource, which are the same operation: read
// the plan into a model, converge the host with apply, and save the model as the new state.
func applyHostPlan[M any](ctx context.Context, p tfsdk.Plan, state *tfsdk.State, diags *diag.Diagnostics,
	apply func(context.Context, *M, *diag.Diagnostics)) {
	var plan M
	diags.Append(p.Get(ctx, &plan)...)
	if diags.HasError() {
		return
	}
	apply(ctx, &plan, diags)
	if !diags.HasError() {
		diags.Append(state.Set(ctx, &plan)...)
	}
}
