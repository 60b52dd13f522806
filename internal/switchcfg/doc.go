// Package switchcfg turns a fabric QoS policy into switch configuration and reads it back.
//
// The resource layer speaks to a Backend and to the Observation and Changes it returns, which
// say nothing of the transport: a provider renders their lines, violations and problems as they
// are. There are two backends: SONiC, which writes CONFIG_DB through gNMI (package sonicdb)
// and reads its buffer manager's results back, and NVIDIA Cumulus, which stages and applies
// an NVUE revision over REST (package nvue).
package switchcfg

import (
	"context"
	"errors"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// Backend is a switch the provider can configure: one read of everything a plan needs, and
// one transaction to apply a plan.
type Backend interface {
	Observe(ctx context.Context) (Observation, error)
	// Apply sends c, which an Observation of this backend planned, as one transaction. A
	// warning reports a failure after which the switch holds all of c anyway.
	Apply(ctx context.Context, c Changes) (warning string, err error)
}

// Observation is one refresh of a switch: what it runs and holds, and everything a plan needs.
type Observation interface {
	// Describe names what the switch runs, for logs: "SONiC 202411, Mellanox-SN5600-O128".
	Describe() string
	// Check applies to p the rules that need the switch (ports, release, buffer model) and
	// returns the lossless headroom the switch will reserve for p's fastest port.
	// speedOverride, when positive, replaces the port speeds the switch reports.
	Check(p Policy, speedOverride int) (fabric.Headroom, violation.List)
	// Headroom is Check's headroom without the violations, for a refresh.
	Headroom(p Policy, speedOverride int) fabric.Headroom
	// PlanUpdate returns the transaction that moves the switch from policy prior (nil when there
	// is none) to p, restoring from snap what prior set and p no longer does. Empty Changes mean
	// the switch already holds p.
	PlanUpdate(prior *Policy, p Policy, snap Snapshot) (Changes, error)
	// Snapshot returns snap plus the current values of the shared settings p is about to change
	// for the first time, to restore on destroy.
	Snapshot(prior *Policy, p Policy, snap Snapshot) Snapshot
	// Removal returns the transaction that removes p's objects and restores snap (the switch's
	// stock settings when snap is nil, after an import).
	Removal(p Policy, snap Snapshot) (Changes, error)
	// Decode reads back the policy called name on ports; ErrNotFound when it is gone.
	Decode(name string, ports []string, prior Policy) (Policy, error)
	// CheckLossless reads whether every port of p holds the lossless buffer its RDMA priority
	// needs, as the switch derived it.
	CheckLossless(p Policy) []LosslessProblem
}

// Changes is one planned transaction.
type Changes interface {
	// Lines are the readable operations, for planned_operations.
	Lines() []string
	// Len is the number of operations.
	Len() int
	// Empty reports whether there is nothing to send.
	Empty() bool
}

// ApplyError is a failed Backend.Apply. Unsettled reports that the switch may hold some or
// all of the change, now or once work it had already started ends (a Set the client stopped
// waiting for, a lost connection, a revision still applying): the caller must then keep
// track of what it may have changed. When Unsettled is false the switch refused the change
// or never received it.
type ApplyError struct {
	Err       error
	Unsettled bool
}

func (e *ApplyError) Error() string { return e.Err.Error() }

func (e *ApplyError) Unwrap() error { return e.Err }

// Unsettled reports whether err, from Backend.Apply, leaves the switch possibly changed.
func Unsettled(err error) bool {
	var ae *ApplyError
	return errors.As(err, &ae) && ae.Unsettled
}
