package tasks

import (
	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// rdmaState is what the DCQCN, HostQoS and Persistence plans read of a host:
// the gathered facts plus the views of the RDMA state the plans compare. A
// nil view means "not gathered": a plan that needs it refuses with an error
// naming the missing fact instead of writing blind, because a value it
// cannot read back would never converge. A view that was gathered but could
// not be read (tool missing, not root, lockdown) is empty, and the plans say
// per device what is missing.
//
// rdmaStateOf fills the views from host.Facts. Tests build rdmaState values
// directly.
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

// rdmaStateOf returns the state the plans read from f: each view from its
// fact (host.FactCCParams, FactNVConfig, FactTrafficClass,
// FactCMARoCETos), nil when f was gathered without it.
func rdmaStateOf(f host.Facts) rdmaState {
	st := rdmaState{f: f}
	if f.Gathered.Has(host.FactCCParams) {
		st.cc = nonNil(f.CCParams)
	}
	if f.Gathered.Has(host.FactNVConfig) {
		st.nv = map[string]map[string]int64{}
		for bdf, cfg := range f.NVConfig {
			next := make(map[string]int64, len(cfg))
			for name, p := range cfg {
				// Parameters without a number (arrays) are not DCQCN
				// settings.
				if v, ok := p.NextValue(); ok {
					next[name] = v
				}
			}
			st.nv[bdf] = next
		}
	}
	if f.Gathered.Has(host.FactTrafficClass) {
		st.tc = nonNil(f.TrafficClass)
	}
	if f.Gathered.Has(host.FactCMARoCETos) {
		st.tos = nonNil(f.CMARoCETos)
	}
	return st
}

// nonNil returns m, or an empty map when m is nil (a fact gathered but
// absent).
func nonNil[V any](m map[string]V) map[string]V {
	if m == nil {
		return map[string]V{}
	}
	return m
}

// dcqcnStateNeeds are the facts of the DCQCN paths other than OFED sysfs:
// debugfs cc_params and the NV configuration.
func dcqcnStateNeeds() host.Want {
	return host.WantFacts(host.FactCCParams, host.FactNVConfig)
}

// classStateNeeds are the facts of the traffic class and RDMA-CM ToS a
// HostQoS task sets.
func (t HostQoS) classStateNeeds() host.Want {
	var s host.Want
	if t.TrafficClass >= 0 {
		s = s.Union(host.WantFacts(host.FactTrafficClass))
	}
	if t.CMARoCETos >= 0 {
		s = s.Union(host.WantFacts(host.FactCMARoCETos))
	}
	return s
}

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
		": it was not gathered (the facts given to the plan lack it), and a value that cannot be read back cannot be kept converged; " + e.fix
}
