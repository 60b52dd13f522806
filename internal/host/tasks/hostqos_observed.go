package tasks

import (
	"errors"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// Observed returns t with PFCPriorities and TrafficClass replaced by what
// the host holds on the first netdev t selects: the priorities mlnx_qos
// shows with PFC on (sorted; empty, not nil, when PFC is off everywhere)
// and the OFED tc/1/traffic_class of its RDMA device, -1 when none is
// forced (also where the stack has no such file: then nothing forces a
// class). Trust, CMARoCETos and Netdevs stay as given. Netdevs that hold
// other values than the first show up when t's result is planned against f.
//
// f must hold t.Needs() of a t that sets PFC and a traffic class. It is
// what an import reads a host back with.
func (t HostQoS) Observed(f host.Facts) (HostQoS, error) {
	nds, _, err := selectRoCENetdevs(f, t.Netdevs, vfQoS)
	if err != nil {
		return HostQoS{}, err
	}
	if len(nds) == 0 {
		return HostQoS{}, errors.New("no ConnectX physical function with an Ethernet RDMA port to read host QoS from")
	}
	n := nds[0]
	cur, err := mlnxQoSState(f, n)
	if err != nil {
		return HostQoS{}, err
	}
	tc := rdmaStateOf(f).tc
	if tc == nil {
		return HostQoS{}, &unreadFactError{
			fact:   "OFED traffic_class",
			object: "RDMA device " + n.RDMADevice + " (netdev " + n.Name + ", " + trafficClassFile(n.RDMADevice) + ")",
			fix:    "gather the traffic_class fact before reading host QoS back",
		}
	}
	out := t
	out.PFCPriorities = append([]int{}, pfcEnabled(cur.PFC)...)
	out.TrafficClass = facts.NoTrafficClass
	if v, ok := tc[n.RDMADevice]; ok {
		out.TrafficClass = v
	}
	return out, nil
}

// Installed reports whether any of p's files (apply script, systemd unit,
// udev rule) is on the host: a partial install is planned as the files
// still to write. f must hold p.Needs().
func (p Persistence) Installed(f host.Facts) bool {
	for _, path := range []string{p.ScriptPath(), p.UnitPath(), p.RulePath()} {
		if fi, ok := f.File(path); ok && fi.Exists {
			return true
		}
	}
	return false
}
