package health

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Counters are named counter values of one object: a switch's under the vendor-neutral names
// of switch.go (its reader translates them), a host's under its driver's ethtool -S and
// hw_counters names.
type Counters map[string]uint64

// SwitchPort is one switch port's counters.
type SwitchPort struct {
	// Switch is the switch's address, Port its interface name.
	Switch, Port string
	// Advice is the switch operating system's advice, which remedies quote; nil gives
	// generic advice.
	Advice SwitchAdvice
	// Stats are the port's counters (PFC frames per priority, a port-wide ECN count).
	Stats Counters
	// Queues are the unicast egress queues' counters (ECN marks, drops, PFC watchdog) by
	// queue (traffic class).
	Queues map[int]Counters
	// PriorityGroups are the ingress priority groups' counters (drops) by index.
	PriorityGroups map[int]Counters
	// QueueOf maps a switch priority to its egress queue; a priority it lacks (or a nil map)
	// has the queue of its own index.
	QueueOf map[int]int
	// PriorityGroupOf maps a switch priority to its ingress priority group. Nil means each
	// priority has the group of its own index; a priority a non-nil map lacks is in no
	// priority group the switch reports, so its ingress drops are not judged.
	PriorityGroupOf map[int]int
	// Stormed are the queues the PFC watchdog holds in storm state now.
	Stormed []int
	// Lossless are the priorities the port has PFC on (as the switch's configuration says), each
	// judged as lossless; empty means only the options' priority.
	Lossless []int
	// NoCounters says why the switch keeps no queue or priority group counters for the port
	// (a spare port without buffer configuration): its Queues and PriorityGroups are empty,
	// and only its port counters are judged.
	NoCounters string
}

// losslessPriorities are the priorities judged lossless on p: its own, else prio.
func (p SwitchPort) losslessPriorities(prio int) []int {
	if len(p.Lossless) == 0 {
		return []int{prio}
	}
	return p.Lossless
}

// HostPort is one RDMA port of a host and its netdev, or a RoCE LAG device (mlx5_bond_0) and
// each of its physical ports.
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
	// Bonded are a LAG device's other physical ports: each counts its own pauses and drops.
	Bonded []Link
}

// Link is one physical port's netdev and its ethtool -S.
type Link struct {
	Netdev       string
	Ethtool      Counters
	EthtoolError string
}

// Links returns the port's netdev, then a LAG device's others.
func (p HostPort) Links() []Link {
	return append([]Link{{Netdev: p.Netdev, Ethtool: p.Ethtool, EthtoolError: p.EthtoolError}}, p.Bonded...)
}

// Subject names the port in verdicts: "mlx5_0:1 (ens1f0np0)", "mlx5_bond_0:1 (ens1f0np0+ens1f1np1)".
func (p HostPort) Subject() string {
	return p.subject(strings.Join(p.netdevs(), "+"))
}

// linkSubject names one physical port of p: "mlx5_bond_0:1 (ens1f1np1)".
func (p HostPort) linkSubject(l Link) string { return p.subject(l.Netdev) }

func (p HostPort) subject(netdevs string) string {
	s := fmt.Sprintf("%s:%d", p.Device, p.Port)
	if netdevs != "" {
		s += " (" + netdevs + ")"
	}
	return s
}

// netdevs are the names of p's netdevs.
func (p HostPort) netdevs() []string {
	var out []string
	for _, l := range p.Links() {
		if l.Netdev != "" {
			out = append(out, l.Netdev)
		}
	}
	return out
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

// Diff returns the increases from before to after, of the counters both samples hold. A
// counter or an object only in after is left out rather than counted from zero: mlx5 lists a
// priority's pause counters only while PFC is on for it, with their whole history, so one that
// appears between the samples has no increase to tell. A 32-bit counter (mlx5's Q counters,
// drivers/infiniband/hw/mlx5/counters.c) that went from its upper half to below its earlier
// value wrapped; any other that went backwards was cleared (see Reset).
func Diff(before, after Sample) Delta {
	d := Delta{Seconds: after.Taken.Sub(before.Taken).Seconds()}
	prevSw := map[string]SwitchPort{}
	for _, p := range before.Switches {
		prevSw[p.Switch+"/"+p.Port] = p
	}
	for _, p := range after.Switches {
		prev, ok := prevSw[p.Switch+"/"+p.Port]
		if !ok {
			continue
		}
		name := p.Switch + " " + p.Port
		out := p
		out.Stats, out.Queues = d.counters(name, prev.Stats, p.Stats), map[int]Counters{}
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
		prev, ok := prevHost[p.Host+"/"+p.Subject()]
		if !ok {
			continue
		}
		name := p.Host + " " + p.Subject()
		out := p
		out.Ethtool = d.counters(p.Host+" "+p.linkSubject(p.Links()[0]), prev.Ethtool, p.Ethtool)
		out.RDMA = d.counters(name, prev.RDMA, p.RDMA)
		out.Bonded = nil
		for _, l := range p.Bonded {
			i := slices.IndexFunc(prev.Bonded, func(b Link) bool { return b.Netdev == l.Netdev })
			if i < 0 {
				continue
			}
			l.Ethtool = d.counters(p.Host+" "+p.linkSubject(l), prev.Bonded[i].Ethtool, l.Ethtool)
			out.Bonded = append(out.Bonded, l)
		}
		d.Hosts = append(d.Hosts, out)
	}
	slices.Sort(d.Reset)
	return d
}

func (d *Delta) counters(object string, before, after Counters) Counters {
	out := make(Counters, len(after))
	for k, v := range after {
		b, ok := before[k]
		switch {
		case !ok:
		case v >= b:
			out[k] = v - b
		case counters32[k] && b >= 1<<31 && b < 1<<32:
			out[k] = v + 1<<32 - b
		default:
			d.Reset = append(d.Reset, object+" "+k)
			out[k] = v
		}
	}
	return out
}

// counters32 are the hw_counters mlx5 reads as Q counters, which wrap at 32 bits: the
// basic_q_cnts, out_of_seq_q_cnts, retrans_q_cnts, extended_err_cnts and roce_accl_cnts of
// drivers/infiniband/hw/mlx5/counters.c (torvalds/linux 10d4de4189533840f296ce7e48eac05b985d96bc),
// which mlx5_ib_query_q_counters and mlx5_ib_query_q_counters_vport copy as be32 fields of
// QUERY_Q_COUNTER; a switchdev representor's port names them with a "vport_" prefix. The
// congestion counters (cong_cnts: np_cnp_sent, rp_cnp_handled, ...) and rx_icrc_encapsulated
// are 64 bits, so one that went backwards was cleared.
var counters32 = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range []string{
		"rx_write_requests", "rx_read_requests", "rx_atomic_requests", "rx_dct_connect", "out_of_buffer",
		"out_of_sequence",
		"duplicate_request", "rnr_nak_retry_err", "packet_seq_err", "implied_nak_seq_err", "local_ack_timeout_err",
		"resp_local_length_error", "resp_cqe_error", "req_cqe_error", "req_remote_invalid_request", "req_remote_access_errors",
		"resp_remote_access_errors", "resp_cqe_flush_error", "req_cqe_flush_error", "req_transport_retries_exceeded",
		"req_rnr_retries_exceeded",
		"roce_adp_retrans", "roce_adp_retrans_to", "roce_slow_restart", "roce_slow_restart_cnps", "roce_slow_restart_trans",
	} {
		m[n], m["vport_"+n] = true, true
	}
	return m
}()

// Sum adds the named counter over cs.
func Sum(name string, cs ...Counters) uint64 {
	var n uint64
	for _, c := range cs {
		n += c[name]
	}
	return n
}

// describe renders "name +value" pairs of the non-zero counters among names, for details.
func describe(c Counters, names ...string) string {
	var parts []string
	for _, n := range names {
		if v := c[n]; v > 0 {
			parts = append(parts, fmt.Sprintf("%s +%d", n, v))
		}
	}
	return strings.Join(parts, ", ")
}
