// Package switchcfg turns a fabric QoS policy into switch configuration and reads it back.
//
// The resource layer speaks to a Backend; the only backend today is SONiC, which writes
// CONFIG_DB through gNMI (package gnmi). A backend for NVIDIA Cumulus (NVUE REST) can be added
// behind the same interface.
package switchcfg

import "context"

// Backend is a switch the provider can configure: one read of everything a plan needs, and
// one transaction to apply a plan. SONiC is the only implementation; Observation and Changes
// carry CONFIG_DB today and would grow a second representation with an NVUE backend.
type Backend interface {
	Observe(ctx context.Context) (Observation, error)
	Apply(ctx context.Context, c *Changes) (warning string, err error)
}

var _ Backend = (*SONiC)(nil)
