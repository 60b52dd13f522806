package health

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Counters are named counter values of one object, under the names its
// source uses: SAI stat names for a SONiC switch (SAI_PORT_STAT_PFC_3_RX_PKTS),
// ethtool -S and hw_counters names for a host.
type Counters map[string]uint64

// SwitchPort is one switch port's counters.
type SwitchPort struct {
	// Switch is the switch's address, Port its interface name.
	Switch, Port string
	// Stats are the port's counters (PFC frames per priority).
	Stats Counters
	// Queues are the unicast queues' counters (ECN marks, drops, PFC watchdog) by index.
	Queues map[int]Counters
	// PriorityGroups are the ingress priority groups' counters (drops) by index.
	PriorityGroups map[int]Counters
	// Stormed are the queues the PFC watchdog holds in storm state now.
	Stormed []int
}

// HostPort is one RDMA port of a host and its netdev.
type HostPort struct {
	// Host is the host's address; Device and Port the RDMA port (mlx5_0, 1); Netdev its netdev.
	Host, Device string
	Port         int
	Netdev       string
	// Ethtool is ethtool -S of the netdev (pause frames and storms per priority).
	Ethtool Counters
	// RDMA are the port's hw_counters (CNPs, ECN-marked packets, retransmissions).
	RDMA Counters
	// EthtoolError says why Ethtool could not be read.
	EthtoolError string
}

// Subject names the port in verdicts: "mlx5_0:1 (ens1f0np0)".
func (p HostPort) Subject() string {
	s := fmt.Sprintf("%s:%d", p.Device, p.Port)
	if p.Netdev != "" {
		s += " (" + p.Netdev + ")"
	}
	return s
}

// Sample is one reading of every counter of a fabric.
type Sample struct {
	Taken    time.Time
	Switches []SwitchPort
	Hosts    []HostPort
}

// Delta is what the counters did between two samples: the same shape as a
// Sample, each value the increase.
type Delta struct {
	// Seconds is the time between the samples.
	Seconds float64
	// Switches and Hosts hold the increases, in the order of the later sample.
	Switches []SwitchPort
	Hosts    []HostPort
	// Reset lists the counters that went backwards (a cleared counter, a
	// reboot, a driver reload): their increase is taken as their later value.
	Reset []string
}

// Diff returns the increases from before to after. An object only in after
// counts from zero; one only in before is left out.
func Diff(before, after Sample) Delta {
	d := Delta{Seconds: after.Taken.Sub(before.Taken).Seconds()}
	prevSw := map[string]SwitchPort{}
	for _, p := range before.Switches {
		prevSw[p.Switch+"/"+p.Port] = p
	}
	for _, p := range after.Switches {
		prev := prevSw[p.Switch+"/"+p.Port]
		name := p.Switch + " " + p.Port
		out := SwitchPort{Switch: p.Switch, Port: p.Port, Stats: d.counters(name, prev.Stats, p.Stats), Queues: map[int]Counters{}, Stormed: p.Stormed}
		for q, c := range p.Queues {
			out.Queues[q] = d.counters(fmt.Sprintf("%s queue %d", name, q), prev.Queues[q], c)
		}
		out.PriorityGroups = map[int]Counters{}
		for pg, c := range p.PriorityGroups {
			out.PriorityGroups[pg] = d.counters(fmt.Sprintf("%s priority group %d", name, pg), prev.PriorityGroups[pg], c)
		}
		d.Switches = append(d.Switches, out)
	}
	prevHost := map[string]HostPort{}
	for _, p := range before.Hosts {
		prevHost[p.Host+"/"+p.Subject()] = p
	}
	for _, p := range after.Hosts {
		prev := prevHost[p.Host+"/"+p.Subject()]
		name := p.Host + " " + p.Subject()
		out := p
		out.Ethtool = d.counters(name, prev.Ethtool, p.Ethtool)
		out.RDMA = d.counters(name, prev.RDMA, p.RDMA)
		d.Hosts = append(d.Hosts, out)
	}
	slices.Sort(d.Reset)
	return d
}

func (d *Delta) counters(object string, before, after Counters) Counters {
	out := make(Counters, len(after))
	for k, v := range after {
		b := before[k]
		if v < b {
			d.Reset = append(d.Reset, object+" "+k)
			out[k] = v
			continue
		}
		out[k] = v - b
	}
	return out
}

// Sum adds the named counter over cs.
func Sum(name string, cs ...Counters) uint64 {
	var n uint64
	for _, c := range cs {
		n += c[name]
	}
	return n
}

// describe renders "name=value" pairs of the non-zero counters among names, for details.
func describe(c Counters, names ...string) string {
	var parts []string
	for _, n := range names {
		if v := c[n]; v > 0 {
			parts = append(parts, fmt.Sprintf("%s +%d", n, v))
		}
	}
	return strings.Join(parts, ", ")
}
