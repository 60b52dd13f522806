package tasks

import (
	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// rdmaState is what the DCQCN, HostQoS and Persistence plans read of a host:
// the gathered facts plus the views of state that host.Facts does not carry
// (yet). A nil view means "not gathered": a plan that needs it refuses with
// an error naming the missing fact instead of writing blind, because a value
// it cannot read back would never converge.
//
// rdmaStateOf fills the views from host.Facts; it is the one place to change
// when the engine gathers them. Tests build rdmaState values directly.
type rdmaState struct {
	f host.Facts
	// cc is the upstream debugfs cc_params by PCI address.
	cc map[string]facts.CCParams
	// nv is the next-boot mlxconfig configuration by PCI address, by
	// parameter name with its port suffix (e.g. "CNP_DSCP_P1").
	nv map[string]map[string]int64
	// tc is the OFED tc/1/traffic_class of each RDMA device; -1 when no
	// global class is set.
	tc map[string]int
	// tos is the RDMA-CM default ToS of port 1 of each RDMA device.
	tos map[string]int
}

// rdmaStateOf returns the state the plans read from f. The engine gathers no
// debugfs cc_params, mlxconfig, traffic_class or cma_roce_tos fact today, so
// those views stay nil (see unreadFactError).
func rdmaStateOf(f host.Facts) rdmaState { return rdmaState{f: f} }

// unreadFactError is the error of a plan that needs a view rdmaState lacks.
type unreadFactError struct {
	// fact is what could not be read, e.g. "debugfs cc_params".
	fact string
	// object is what it was needed for, e.g. "netdev ens1f0np0 (0000:17:00.0)".
	object string
	// fix says how to get on without it.
	fix string
}

func (e *unreadFactError) Error() string {
	return "cannot read the " + e.fact + " of " + e.object +
		": the engine does not gather this fact yet, and a value that cannot be read back cannot be kept converged; " + e.fix
}
