package nccltest

import (
	"fmt"
	"strings"
)

// DefaultEfficiency is the share of a rail's line rate that all_reduce_perf's bus bandwidth
// reaches on a healthy RoCE rail. RoCEv2 framing at a 4096-byte RDMA MTU (preamble and
// inter-frame gap 20, Ethernet 14 + FCS 4, IPv4 20, UDP 8, BTH 12, ICRC 4: 82 bytes a
// packet) leaves 4096/4178 = 98% of the line for payload, and a 400G ConnectX-7 rail tops out
// near 48 GB/s of bus bandwidth, 0.96 of its 50 GB/s (NVIDIA/nccl-tests issue #290, a
// maintainer: "For NDR @ 400Gbps you should see 46-48GB/s per NIC").
const DefaultEfficiency = 0.96

// Topology is what the bus bandwidth of an all-reduce across hosts is bounded by: the hosts'
// network. nccl-tests defines busbw = algbw x 2(n-1)/n for all-reduce so that it compares with
// the bandwidth each rank has to the outside world (NVIDIA/nccl-tests doc/PERFORMANCE.md at
// v2.13.13, "Bus bandwidth"). For a ring across nodes every ring leaves and enters each node
// once, through one NIC, and each of the ring's edges carries 2(n-1)/n x S: with a ring per
// rail the busbw is the node's network bandwidth, rails x line rate, whatever the node
// count. Trees and NVLS move less than that over the network on few nodes (the intra-node
// part goes over NVLink), so their busbw can pass the NICs' limit on 2 nodes: an acceptance
// gate should run NCCL_ALGO=Ring (NVIDIA/nccl-tests issues #196 and #290, NVIDIA/nccl issue
// #837: the maintainers' advice for benchmarking the network on two nodes).
type Topology struct {
	// Nodes is the hosts of the run; the expected bandwidth is derived for 2 or more.
	Nodes int
	// Rails is the RDMA NICs (ports) each node gives NCCL.
	Rails int
	// RailGbps is each rail's line rate in Gb/s (400 for a 400GbE ConnectX-7 port).
	RailGbps float64
	// Efficiency is the share of the line rate the bus bandwidth can reach; 0 means
	// DefaultEfficiency.
	Efficiency float64
	// Source says where Rails and RailGbps came from, for the verdict's detail.
	Source string
}

// ExpectedBusBW returns the bus bandwidth in GB/s a Ring all-reduce across the nodes should
// reach: rails x line rate / 8 x efficiency. ok is false when it cannot be derived: one node
// (NVLink bounds it, not the rails), or no rails or line rate known.
func (t Topology) ExpectedBusBW() (gbps float64, ok bool) {
	if t.Nodes < 2 || t.Rails < 1 || t.RailGbps <= 0 {
		return 0, false
	}
	eff := t.Efficiency
	if eff <= 0 {
		eff = DefaultEfficiency
	}
	return float64(t.Rails) * t.RailGbps / 8 * eff, true
}

// describe is the derivation, for a verdict's detail.
func (t Topology) describe() string {
	eff := t.Efficiency
	if eff <= 0 {
		eff = DefaultEfficiency
	}
	s := fmt.Sprintf("%d rails x %g Gb/s x %g", t.Rails, t.RailGbps, eff)
	if t.Source != "" {
		s += " (" + t.Source + ")"
	}
	return s
}

// whyUnknown says why ExpectedBusBW has no value.
func (t Topology) whyUnknown() (detail, remedy string) {
	if t.Nodes < 2 {
		return "one host's all-reduce runs over NVLink, not the rails, so no expected bandwidth is derived",
			"run across two or more hosts, or set min_busbw_gbps for a single host"
	}
	var missing []string
	if t.Rails < 1 {
		missing = append(missing, "the rails per host")
	}
	if t.RailGbps <= 0 {
		missing = append(missing, "the rails' line rate")
	}
	return "the expected bandwidth is unknown: " + strings.Join(missing, " and ") + " could not be read from the hosts",
		"set rails and rail_gbps (e.g. 8 and 400 for eight 400GbE ConnectX-7 rails), or make ibv_devinfo -v work on the hosts"
}

// Ratio returns measured / expected, or ok false when there is no expected bandwidth.
func (t Topology) Ratio(measured float64) (ratio float64, ok bool) {
	exp, ok := t.ExpectedBusBW()
	if !ok || exp == 0 {
		return 0, false
	}
	return measured / exp, true
}

// IsRing reports whether an NCCL_ALGO value makes NCCL use the ring alone: the name in any
// case ("Ring", "ring"). Unset (empty) is not: NCCL then picks by its tuning model, Tree or
// NVLS included. A list ("Tree,Ring") or an exclusion ("^Tree") is not either: the plain name
// is what a gate should set.
func IsRing(algo string) bool { return strings.EqualFold(strings.TrimSpace(algo), "ring") }
