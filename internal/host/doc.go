// Package host is the bootstrapper engine of the provider's host resources:
// gather facts, plan changes, apply them, verify.
//
// The engine follows pyinfra and Ansible. A fact is a command plus a pure
// parser (package facts); [Gather] runs every fact a caller wants in one
// remote command and returns them as a typed [Facts]. A [Task] compares facts
// with the state it wants and yields [Change] values, each with the [Step]
// that makes it; a task that yields nothing is unchanged and says why. An
// [Engine] plans in memory (check mode stops there), applies the changes in
// order, then gathers again and plans again: a task that still yields a
// change after its apply has not converged, which is an error.
//
// Round trips are kept to a minimum: one gather, at most one remote command
// or file write per change (consecutive command steps of a task run as one
// script; a file write creates its missing directories in the same command),
// and one gather to verify.
//
// Some facts can be read by root only: the debugfs cc_params, cma_roce_tos
// and mlxconfig. Engine runs the gather through sudo when Engine.Sudo is set;
// a gather that is not root records them in Facts.Absent with the reason.
package host
