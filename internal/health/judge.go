package health

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

// Host counter names are the mlx5 driver's (kernel
// Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst,
// drivers/infiniband/hw/mlx5/counters.c); switch counter names are switch.go's.
const (
	PauseStormWarnings  = "tx_pause_storm_warning_events"
	PauseStormErrors    = "tx_pause_storm_error_events"
	CNPSent             = "np_cnp_sent"
	ECNMarkedReceived   = "np_ecn_marked_roce_packets"
	CNPHandled          = "rp_cnp_handled"
	CNPIgnored          = "rp_cnp_ignored"
	OutOfSequence       = "out_of_sequence"
	PacketSeqErr        = "packet_seq_err"
	LocalAckTimeoutErr  = "local_ack_timeout_err"
	RNRNakRetryErr      = "rnr_nak_retry_err"
	ImpliedNakSeqErr    = "implied_nak_seq_err"
	numPriorities       = 8
	globalPauseRx       = "rx_global_pause"
	globalPauseTx       = "tx_global_pause"
	linkPauseRx         = "rx_pause_ctrl_phy"
	linkPauseTx         = "tx_pause_ctrl_phy"
	portDiscards        = "rx_discards_phy"
	checkReadable       = "counters_read"
	checkTraffic        = "traffic"
	checkLosslessDrops  = "lossless_drops"
	checkPFCPriority    = "pfc_priority"
	checkPFCWatchdog    = "pfc_watchdog"
	checkECNToCNP       = "ecn_cnp"
	checkCNPHandled     = "cnp_handled"
	checkRetransmission = "retransmissions"
)

// HostPauseRx is the pause frames a NIC received for prio.
func HostPauseRx(prio int) string { return fmt.Sprintf("rx_prio%d_pause", prio) }

// HostPauseTx is the pause frames a NIC sent for prio.
func HostPauseTx(prio int) string { return fmt.Sprintf("tx_prio%d_pause", prio) }

// HostPackets are the packets a NIC received on prio.
func HostPackets(prio int) string { return fmt.Sprintf("rx_prio%d_packets", prio) }

// HostDiscards are the packets a NIC dropped on receive for prio, for want of buffer.
func HostDiscards(prio int) string { return fmt.Sprintf("rx_prio%d_discards", prio) }

// retransmissionCounters rise when the network lost or reordered RDMA packets, or (rnr_nak_retry_err)
// when a receiver had no receive posted, which the verdict tells apart.
var retransmissionCounters = []string{OutOfSequence, PacketSeqErr, LocalAckTimeoutErr, ImpliedNakSeqErr, RNRNakRetryErr}

// Options say what the fabric should be.
type Options struct {
	// Priority is the lossless (RDMA) priority and queue.
	Priority int
	// Classes name the lossless classes: each class's priority is judged lossless beside
	// Priority (drops, pauses, ECN marks and CNPs), and its verdicts name the class
	// ("priority 4 (storage)"). A class on Priority names the default class.
	Classes []Class
	// RequireTraffic fails the traffic check when nothing moved on the
	// priority: idle counters prove nothing.
	RequireTraffic bool
	// Cables are the links whose two ends are known: their PFC counts are compared
	// (pfc_agreement, only when there are some).
	Cables []Cable
}

// Judge returns the verdicts on d: one passing verdict per check that found
// nothing, else one failing verdict per port that shows the fault, in a
// stable order.
func Judge(d Delta, o Options) []verdict.Verdict {
	j := judge{d: d, o: o}
	j.readable()
	j.traffic()
	j.losslessDrops()
	j.pfcPriority()
	j.pfcAgreement()
	j.watchdog()
	j.ecnToCNP()
	j.cnpHandled()
	j.retransmissions()
	return j.out
}

type judge struct {
	d   Delta
	o   Options
	out []verdict.Verdict
}

// report adds fails, or one pass with passDetail when there are none.
func (j *judge) report(check string, fails []verdict.Verdict, passDetail string) {
	if len(fails) == 0 {
		j.out = append(j.out, verdict.Verdict{Check: check, Pass: true, Detail: passDetail})
		return
	}
	for i := range fails {
		fails[i].Check = check
	}
	slices.SortStableFunc(fails, func(a, b verdict.Verdict) int {
		return strings.Compare(a.Target+" "+a.Subject, b.Target+" "+b.Subject)
	})
	j.out = append(j.out, fails...)
}

func (j *judge) rate(n uint64) string {
	if j.d.Seconds <= 0 {
		return fmt.Sprintf("+%d", n)
	}
	return fmt.Sprintf("+%d in %.0fs (%.1f/s)", n, j.d.Seconds, float64(n)/j.d.Seconds)
}

func (j *judge) hostCounters(pick func(HostPort) Counters) []Counters {
	var cs []Counters
	for _, h := range j.d.Hosts {
		cs = append(cs, pick(h))
	}
	return cs
}

// linkCounters are the ethtool -S of every physical port of every host port.
func (j *judge) linkCounters() []Counters {
	var cs []Counters
	for _, h := range j.d.Hosts {
		for _, l := range h.Links() {
			cs = append(cs, l.Ethtool)
		}
	}
	return cs
}

// ecnEnable names the files that enable DCQCN's point (roce_np, roce_rp) on prio at each of
// h's netdevs.
func ecnEnable(h HostPort, point string, prio int) string {
	var files []string
	for _, nd := range h.netdevs() {
		files = append(files, fmt.Sprintf("/sys/class/net/%s/ecn/%s/enable/%d", nd, point, prio))
	}
	return strings.Join(files, " and ")
}

// discards returns a port's receive drops for want of buffer on priority p and the counter
// they come from: rx_prio<p>_discards, or rx_discards_phy (every priority's drops) where the
// driver predates the per-priority counter (en_stats.c pport_per_prio_traffic_stats_desc,
// patch "net/mlx5e: Add discard counters per priority", netdev, 2020-01-17). ok is false when
// the port lists neither.
func discards(c Counters, p int) (uint64, string, bool) {
	for _, name := range []string{HostDiscards(p), portDiscards} {
		if n, ok := c[name]; ok {
			return n, name, true
		}
	}
	return 0, "", false
}

// globalPause returns the names of a port's received and sent link-level pause counters:
// rx_global_pause and tx_global_pause, which mlx5 lists only while global pause is on
// (Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst), else
// rx_pause_ctrl_phy and tx_pause_ctrl_phy, always listed: IEEE 802.3 aPAUSEMACCtrlFrames,
// which mlx5e_stats_pause_get reports as the standard 802.3x pause statistics (en_stats.c).
func globalPause(c Counters) (rx, tx string) {
	rx, tx = globalPauseRx, globalPauseTx
	if _, ok := c[rx]; !ok {
		rx = linkPauseRx
	}
	if _, ok := c[tx]; !ok {
		tx = linkPauseTx
	}
	return rx, tx
}

// readable fails the ports whose ethtool counters could not be read: their pause checks would
// pass on nothing.
func (j *judge) readable() {
	var fails []verdict.Verdict
	for _, h := range j.d.Hosts {
		for _, l := range h.Links() {
			if l.EthtoolError != "" {
				fails = append(fails, verdict.Verdict{Target: h.Host, Subject: h.linkSubject(l), Detail: l.EthtoolError,
					Remedy: "install ethtool on the host (package ethtool) so its pause and pause-storm counters can be read"})
			}
		}
	}
	detail := fmt.Sprintf("read %d switch ports and %d NIC ports", len(j.d.Switches), len(j.linkCounters()))
	var bare []string
	for _, sp := range j.d.Switches {
		if sp.NoCounters != "" {
			bare = append(bare, sp.Switch+" "+sp.Port)
		}
	}
	if len(bare) > 0 {
		detail += fmt.Sprintf("; %d switch ports have no queue counters (%s): %s, so only their PFC frames are judged",
			len(bare), firstOf(bare, 6), j.d.Switches[slices.IndexFunc(j.d.Switches, func(sp SwitchPort) bool { return sp.NoCounters != "" })].NoCounters)
	}
	j.report(checkReadable, fails, detail)
}

// firstOf joins the first n of names, and says how many more there are.
func firstOf(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// fabricLossless are the priorities some switch port has PFC on, the options' priority among
// them: what a NIC may pause on.
func (j *judge) fabricLossless() []int {
	out := j.judged()
	for _, sp := range j.d.Switches {
		for _, p := range sp.losslessPriorities(j.o.Priority) {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out
}

func (j *judge) traffic() {
	p := j.o.Priority
	var sw uint64
	for _, sp := range j.d.Switches {
		sw += sp.Queues[sp.queueOf(p)][TxPackets]
	}
	nic := Sum(HostPackets(p), j.linkCounters()...)
	detail := fmt.Sprintf("priority %d: switch queue packets %s, NIC packets %s", p, j.rate(sw), j.rate(nic))
	if len(j.o.Classes) > 0 {
		// Each class's own counts; only the default class must move (a storage class may
		// rightly idle while NCCL runs).
		var parts []string
		for _, cp := range j.judged() {
			var csw uint64
			for _, sp := range j.d.Switches {
				csw += sp.Queues[sp.queueOf(cp)][TxPackets]
			}
			parts = append(parts, fmt.Sprintf("%s: switch queue packets %s, NIC packets %s", j.label(cp), j.rate(csw), j.rate(Sum(HostPackets(cp), j.linkCounters()...))))
		}
		detail = strings.Join(parts, "; ")
	}
	if sw+nic > 0 || !j.o.RequireTraffic {
		j.report(checkTraffic, nil, detail)
		return
	}
	j.report(checkTraffic, []verdict.Verdict{{Detail: detail + ": nothing moved on the lossless priority, so no counter can prove it lossless",
		Remedy: fmt.Sprintf("sample while RDMA traffic runs (a roce_nccl_test, all_reduce_perf) and check that it uses priority %d (NCCL_IB_TC, trust dscp, the DSCP-to-priority map)", p)}}, "")
}

func (j *judge) losslessDrops() {
	p := j.o.Priority
	var fails []verdict.Verdict
	var unjudged []string
	for _, sp := range j.d.Switches {
		v, un := j.switchDrops(sp)
		fails, unjudged = append(fails, v...), append(unjudged, un...)
	}
	perPort := 0
	for _, h := range j.d.Hosts {
		for _, l := range h.Links() {
			v, counter := j.nicDrops(h, l)
			if counter == portDiscards {
				perPort++
			}
			fails = append(fails, v...)
		}
	}
	pass := fmt.Sprintf("no drops on priority %d at %d switch ports and %d NIC ports", p, len(j.d.Switches), len(j.linkCounters()))
	if len(j.o.Classes) > 0 {
		pass = fmt.Sprintf("no drops on %s at %d switch ports and %d NIC ports", j.losslessList(), len(j.d.Switches), len(j.linkCounters()))
	}
	if perPort > 0 {
		pass += fmt.Sprintf(" (%d of them counted by %s, every priority's drops: their driver has no %s)", perPort, portDiscards, HostDiscards(p))
	}
	if len(unjudged) > 0 {
		pass += fmt.Sprintf("; ingress drops not judged on %d switch port priorities (%s): none of them has a priority group of lossless priorities only", len(unjudged), firstOf(unjudged, 6))
	}
	j.report(checkLosslessDrops, fails, pass)
}

// nicDrops are one NIC port's receive drops on each judged priority, and the counter the
// port counts them with (portDiscards: every priority's, judged once).
func (j *judge) nicDrops(h HostPort, l Link) ([]verdict.Verdict, string) {
	var fails []verdict.Verdict
	fix := j.nicPFCFix("enable PFC on", l.Netdev)
	var counter string
	for _, p := range j.judged() {
		n, c, ok := discards(l.Ethtool, p)
		counter = c
		if c == portDiscards {
			p = j.o.Priority
		}
		if ok && n > 0 {
			v := verdict.Verdict{Target: h.Host, Subject: h.linkSubject(l),
				Detail: fmt.Sprintf("the NIC dropped %d received packets on the lossless %s (%s)", n, j.label(p), c),
				Remedy: fmt.Sprintf("the NIC does not pause the switch on %s: %s", j.label(p), fix)}
			if c == portDiscards {
				v.Detail = fmt.Sprintf("the NIC dropped %d received packets for want of buffer (%s, every priority's: its driver has no %s)", n, c, HostDiscards(p))
				v.Remedy = fmt.Sprintf("if the drops are on %s (RDMA retransmissions rise with them), the NIC does not pause the switch on it: %s; "+
					"a newer mlx5 driver counts them per priority (%s)", j.losslessList(), fix, HostDiscards(p))
			}
			fails = append(fails, v)
		}
		if c == portDiscards {
			break
		}
	}
	return fails, counter
}

// switchDrops are sp's drops on its lossless priorities, each queue and priority group judged
// once, and the priorities whose ingress drops it cannot tell apart ("swp1 priority 3").
func (j *judge) switchDrops(sp SwitchPort) (fails []verdict.Verdict, unjudged []string) {
	adv, lossless := sp.advice(), sp.losslessPriorities(j.o.Priority)
	seenQ, seenPG := map[int]bool{}, map[int]bool{}
	for _, lp := range lossless {
		if sp.NoCounters != "" {
			break
		}
		if pg, ok := sp.losslessPriorityGroup(lp, lossless); !ok {
			unjudged = append(unjudged, fmt.Sprintf("%s %s priority %d", sp.Switch, sp.Port, lp))
		} else if c := sp.PriorityGroups[pg]; !seenPG[pg] && c[DroppedPackets]+c[DroppedBytes] > 0 {
			seenPG[pg] = true
			fails = append(fails, verdict.Verdict{Target: sp.Switch, Subject: fmt.Sprintf("%s priority group %d", sp.Port, pg),
				Detail: fmt.Sprintf("the lossless priority group%s dropped %s on ingress: %s", j.of(lp), droppedWhat(c, DroppedPackets, DroppedBytes), describe(c, DroppedPackets, DroppedBytes)),
				Remedy: fmt.Sprintf("%s does not pause its sender on priority %d: %s, and enable PFC on %d at the NIC behind it (mlnx_qos --pfc)", sp.Port, lp, adv.PausesOn(sp.Port, lp), lp)})
		}
		q := sp.queueOf(lp)
		if seenQ[q] {
			continue
		}
		seenQ[q] = true
		c := sp.Queues[q]
		if c[DroppedPackets]+c[DroppedBytes]+c[WREDDroppedPackets] > 0 {
			fails = append(fails, verdict.Verdict{Target: sp.Switch, Subject: queueSubject(sp.Port, q, lp),
				Detail: fmt.Sprintf("the lossless queue%s dropped %s: %s", j.of(lp), droppedWhat(c, DroppedPackets, DroppedBytes, WREDDroppedPackets), describe(c, DroppedPackets, DroppedBytes, WREDDroppedPackets)),
				Remedy: fmt.Sprintf("the egress queue %d of %s overflowed or WRED dropped on it: keep WRED's drop off on this queue (ECN marking only), and check that the NIC behind %s has PFC on %d", q, sp.Port, sp.Port, lp)})
		}
		if c[WatchdogTxDropped]+c[WatchdogRxDropped] > 0 {
			fails = append(fails, verdict.Verdict{Target: sp.Switch, Subject: queueSubject(sp.Port, q, lp),
				Detail: fmt.Sprintf("the PFC watchdog dropped the lossless queue's packets%s while it was stormed: %s", j.of(lp), describe(c, WatchdogTxDropped, WatchdogRxDropped)),
				Remedy: fmt.Sprintf("a device behind %s paused queue %d without draining it and the watchdog's drop action threw its traffic away: find the stuck NIC or host on this port (%s)", sp.Port, q, adv.ShowWatchdog(sp.Port))})
		}
	}
	return fails, unjudged
}

func (j *judge) pfcPriority() {
	lossless := j.fabricLossless()
	var fails []verdict.Verdict
	for _, sp := range j.d.Switches {
		for prio := range numPriorities {
			if slices.Contains(sp.losslessPriorities(j.o.Priority), prio) {
				continue
			}
			if n := sp.Stats[PFCRxFrames(prio)] + sp.Stats[PFCTxFrames(prio)]; n > 0 {
				fails = append(fails, verdict.Verdict{Target: sp.Switch, Subject: fmt.Sprintf("%s priority %d", sp.Port, prio),
					Detail: fmt.Sprintf("PFC frames on %s, which is not %s: %s", j.label(prio), j.losslessText(), describe(sp.Stats, PFCRxFrames(prio), PFCTxFrames(prio))),
					Remedy: fmt.Sprintf("enable PFC on %s only, on the switch (pfc_enable) and on every NIC (mlnx_qos --pfc), or make priority %d lossless end to end", j.losslessList(), prio)})
			}
		}
		for _, cp := range j.classesNotLossless(sp) {
			fails = append(fails, verdict.Verdict{Target: sp.Switch, Subject: fmt.Sprintf("%s priority %d", sp.Port, cp),
				Detail: fmt.Sprintf("%s is a lossless class, but the port has PFC on %s only: the class's traffic is dropped instead of paused when its queue fills", j.label(cp), joinInts(sp.Lossless)),
				Remedy: fmt.Sprintf("make %s lossless on %s (roce_switch_qos lossless_classes; %s), or take it out of classes if it is meant to be lossy", j.label(cp), sp.Port, sp.advice().PausesOn(sp.Port, cp))})
		}
	}
	for _, h := range j.d.Hosts {
		for _, l := range h.Links() {
			fails = append(fails, j.hostPauses(h, l, lossless)...)
		}
	}
	pass := fmt.Sprintf("PFC frames only on the lossless priorities %s", joinInts(lossless))
	if len(j.o.Classes) > 0 {
		pass = "PFC frames only on " + "lossless " + j.losslessList() + ", each lossless on every switch port that lists its lossless priorities"
	}
	j.report(checkPFCPriority, fails, pass)
}

// hostPauses are the pause frames of one NIC port outside the lossless priority.
func (j *judge) hostPauses(h HostPort, l Link, lossless []int) []verdict.Verdict {
	prios := j.losslessList()
	var fails []verdict.Verdict
	rx, tx := globalPause(l.Ethtool)
	if n := l.Ethtool[rx] + l.Ethtool[tx]; n > 0 {
		v := verdict.Verdict{Target: h.Host, Subject: h.linkSubject(l) + " global",
			Detail: fmt.Sprintf("link-level (global) pause frames: %s; they stop every priority, not just the lossless one", describe(l.Ethtool, rx, tx)),
			Remedy: fmt.Sprintf("turn global pause off (ethtool -A %s rx off tx off) and use PFC on %s", l.Netdev, prios)}
		if rx == linkPauseRx || tx == linkPauseTx {
			v.Detail += fmt.Sprintf(" (802.3x pause counters: the NIC lists %s only while its global pause is on)", globalPauseRx)
			v.Remedy = fmt.Sprintf("turn link-level flow control off on both ends, the switch port and the NIC (ethtool -A %s rx off tx off), and use PFC on %s", l.Netdev, prios)
		}
		fails = append(fails, v)
	}
	for prio := range numPriorities {
		if slices.Contains(lossless, prio) {
			continue
		}
		if n := l.Ethtool[HostPauseRx(prio)] + l.Ethtool[HostPauseTx(prio)]; n > 0 {
			fails = append(fails, verdict.Verdict{Target: h.Host, Subject: fmt.Sprintf("%s priority %d", h.linkSubject(l), prio),
				Detail: fmt.Sprintf("pause frames on %s, which is not %s: %s", j.label(prio), j.losslessText(), describe(l.Ethtool, HostPauseRx(prio), HostPauseTx(prio))),
				Remedy: j.nicPFCFix("set the NIC's PFC to", l.Netdev)})
		}
	}
	return fails
}

func (j *judge) watchdog() {
	var fails []verdict.Verdict
	for _, sp := range j.d.Switches {
		adv := sp.advice()
		for q := range numPriorities {
			c := sp.Queues[q]
			stormed := slices.Contains(sp.Stormed, q)
			if c[WatchdogStorms] == 0 && !stormed {
				continue
			}
			var parts []string
			if c[WatchdogStorms] > 0 {
				parts = append(parts, "PFC watchdog storms: "+describe(c, WatchdogStorms, WatchdogRestored))
			}
			if stormed {
				parts = append(parts, "the queue is in storm state ("+adv.StormState()+")")
			}
			detail := strings.Join(parts, "; ")
			fails = append(fails, verdict.Verdict{Target: sp.Switch, Subject: fmt.Sprintf("%s queue %d", sp.Port, q),
				Detail: detail,
				Remedy: fmt.Sprintf("a device behind %s keeps pausing queue %d without draining it (a stuck NIC or host, a PFC loop): find the host on this port, check its NIC and pause counters, and run %s", sp.Port, q, adv.ShowWatchdog(sp.Port))})
		}
	}
	for _, h := range j.d.Hosts {
		for _, l := range h.Links() {
			if l.Ethtool[PauseStormWarnings]+l.Ethtool[PauseStormErrors] == 0 {
				continue
			}
			fails = append(fails, verdict.Verdict{Target: h.Host, Subject: h.linkSubject(l),
				Detail: fmt.Sprintf("the NIC's pause-storm guard fired: %s", describe(l.Ethtool, PauseStormWarnings, PauseStormErrors)),
				Remedy: "the host sends pauses without draining its receive queues (a hung process, a saturated PCIe path, host memory pressure): check the host's RDMA consumers and PCIe link, then re-run"})
		}
	}
	j.report(checkPFCWatchdog, fails, "no PFC storms on switch queues or NICs")
}

func (j *judge) ecnToCNP() {
	p := j.o.Priority
	var fails []verdict.Verdict
	var swMarks uint64
	portWide := 0
	byPrio := map[int]uint64{}
	for _, sp := range j.d.Switches {
		seenQ := map[int]bool{}
		for _, cp := range j.judged() {
			n, wide, _ := sp.ecnMarks(cp)
			if wide {
				// The port's count holds every queue's marks: taken once.
				swMarks += n
				portWide++
				break
			}
			if q := sp.queueOf(cp); !seenQ[q] {
				seenQ[q] = true
				swMarks += n
				byPrio[cp] += n
			}
		}
	}
	nicMarks := Sum(ECNMarkedReceived, j.hostCounters(func(h HostPort) Counters { return h.RDMA })...)
	if swMarks > 0 && nicMarks == 0 && len(j.d.Hosts) > 0 {
		v := verdict.Verdict{Detail: fmt.Sprintf("switches ECN-marked %d packets on priority %d's queues but no sampled NIC received a marked RoCE packet", swMarks, p),
			Remedy: fmt.Sprintf("the marked traffic is not the sampled hosts' RoCE: include the receivers in hosts, or check that RoCE rides priority %d (trust dscp and the DSCP map on both ends)", p)}
		if portWide > 0 {
			v.Detail = fmt.Sprintf("switches ECN-marked %d packets (%d ports count marks per port, every queue's together) but no sampled NIC received a marked RoCE packet", swMarks, portWide)
			v.Remedy += "; a per-port count also holds other traffic classes' marks (ECN is on for traffic class 0 by default), so check first whether the marked traffic is RoCE at all"
		}
		fails = append(fails, v)
	}
	if len(j.o.Classes) > 0 && len(fails) > 0 && portWide == 0 {
		var parts []string
		for _, cp := range j.judged() {
			parts = append(parts, fmt.Sprintf("%s %s", j.label(cp), j.rate(byPrio[cp])))
		}
		fails[0].Detail = fmt.Sprintf("switches ECN-marked %d packets on the lossless queues (%s) but no sampled NIC received a marked RoCE packet", swMarks, strings.Join(parts, ", "))
		fails[0].Remedy = "the marked traffic is not the sampled hosts' RoCE: include the receivers in hosts, or check that each class rides its priority (trust dscp and the DSCP map on both ends)"
	}
	for _, h := range j.d.Hosts {
		if h.RDMA[ECNMarkedReceived] > 0 && h.RDMA[CNPSent] == 0 {
			v := verdict.Verdict{Target: h.Host, Subject: h.Subject(),
				Detail: fmt.Sprintf("received %d ECN-marked RoCE packets and sent no CNP", h.RDMA[ECNMarkedReceived]),
				Remedy: fmt.Sprintf("DCQCN's notification point is off on priority %d: enable it with roce_nic_dcqcn on this host (priority %d; an apply repairs the drift), or write 1 to %s", p, p, ecnEnable(h, "roce_np", p))}
			if len(j.judged()) > 1 {
				v.Remedy = fmt.Sprintf("DCQCN's notification point is off on %s (the NIC counts marks of every priority together): enable it with roce_nic_dcqcn on this host "+
					"(priority and pfc_priorities; an apply repairs the drift), or write 1 to %s", j.losslessList(), j.ecnEnables(h, "roce_np"))
			}
			fails = append(fails, v)
		}
	}
	marks := "ECN marks " + j.rate(swMarks) + " on switches"
	if len(j.o.Classes) > 0 && portWide == 0 {
		var parts []string
		for _, cp := range j.judged() {
			parts = append(parts, fmt.Sprintf("%s %s", j.label(cp), j.rate(byPrio[cp])))
		}
		marks += " (" + strings.Join(parts, ", ") + ")"
	}
	if portWide > 0 {
		marks += fmt.Sprintf(" (%d ports count them per port, every queue's)", portWide)
	}
	if uncounted := j.ecnUncounted(); uncounted != "" {
		marks = "ECN marks not counted on the switches (" + uncounted + ")"
	}
	j.report(checkECNToCNP, fails, fmt.Sprintf("%s, marked RoCE packets %s at NICs, every marking receiver sent CNPs", marks, j.rate(nicMarks)))
}

// ecnUncounted says why no sampled switch port counts ECN marks at all (the reader's advice),
// or "" when one does.
func (j *judge) ecnUncounted() string {
	why := ""
	for _, sp := range j.d.Switches {
		if _, _, ok := sp.ecnMarks(j.o.Priority); ok {
			return ""
		}
		why = sp.advice().ECNUncounted()
	}
	return why
}

// ecnMarks are the ECN marks of p's traffic on sp: its queue's count, else the port's count of
// every queue's marks (wide). ok is false when the port counts neither.
func (sp SwitchPort) ecnMarks(p int) (n uint64, wide, ok bool) {
	if n, ok := sp.Queues[sp.queueOf(p)][ECNMarkedPackets]; ok {
		return n, false, true
	}
	if n, ok := sp.Stats[ECNMarkedPackets]; ok {
		return n, true, true
	}
	return 0, false, false
}

func (j *judge) cnpHandled() {
	p := j.o.Priority
	var fails []verdict.Verdict
	for _, h := range j.d.Hosts {
		if h.RDMA[CNPIgnored] == 0 {
			continue
		}
		v := verdict.Verdict{Target: h.Host, Subject: h.Subject(),
			Detail: fmt.Sprintf("ignored CNPs: %s", describe(h.RDMA, CNPIgnored, CNPHandled)),
			Remedy: fmt.Sprintf("DCQCN's reaction point is off on the CNPs' priority, so senders never slow down: enable it on priority %d with roce_nic_dcqcn on this host (an apply repairs the drift), or write 1 to %s", p, ecnEnable(h, "roce_rp", p))}
		if len(j.judged()) > 1 {
			v.Remedy = fmt.Sprintf("DCQCN's reaction point is off on a lossless priority, so its senders never slow down: enable it on %s with roce_nic_dcqcn on this host "+
				"(priority and pfc_priorities; an apply repairs the drift), or write 1 to %s", j.losslessList(), j.ecnEnables(h, "roce_rp"))
		}
		fails = append(fails, v)
	}
	handled := Sum(CNPHandled, j.hostCounters(func(h HostPort) Counters { return h.RDMA })...)
	j.report(checkCNPHandled, fails, fmt.Sprintf("CNPs handled %s, none ignored", j.rate(handled)))
}

func (j *judge) retransmissions() {
	var fails []verdict.Verdict
	for _, h := range j.d.Hosts {
		if lost := lossSides(h.RDMA); lost != "" {
			fails = append(fails, verdict.Verdict{Target: h.Host, Subject: h.Subject(),
				Detail: fmt.Sprintf("RDMA packets lost or reordered: %s; %s", describe(h.RDMA, retransmissionCounters...), lost),
				Remedy: "the path to or from this NIC is not lossless: look for lossless_drops on its switch port (a priority group drops what this NIC sends, a queue what it receives), " +
					"PFC disabled on its port or NIC, or a flapping link; a larger NCCL_IB_TIMEOUT only hides it"})
			continue
		}
		if h.RDMA[RNRNakRetryErr] > 0 {
			fails = append(fails, verdict.Verdict{Target: h.Host, Subject: h.Subject(),
				Detail: fmt.Sprintf("receiver-not-ready NAKs received (the sender retries): %s", describe(h.RDMA, RNRNakRetryErr)),
				Remedy: "the remote application did not post receives in time (not a network fault): check the receiving process"})
		}
	}
	j.report(checkRetransmission, fails, "no RDMA retransmissions")
}

// lossSides says which way a NIC's RDMA packets were lost, from its counters' deltas; empty
// when none were. A reliable connection recovers a loss by a NAK: the receiver counts the
// packet after the gap out_of_sequence and NAKs it, the sender counts the NAK packet_seq_err
// (implied_nak_seq_err for a read response) and goes back to the lost packet. Only a lost
// message tail, which no later packet reveals, leaves the sender to its ACK timer
// (local_ack_timeout_err), each a wait of NCCL_IB_TIMEOUT's 4.096 us x 2^n.
func lossSides(c Counters) string {
	var sides []string
	if c[OutOfSequence] > 0 {
		sides = append(sides, "packets to this NIC were lost (out_of_sequence: it received later ones first and NAKed the gap)")
	}
	if c[PacketSeqErr]+c[ImpliedNakSeqErr] > 0 {
		sides = append(sides, "packets this NIC sent were lost and NAKed by the receiver (packet_seq_err)")
	}
	if c[LocalAckTimeoutErr] > 0 {
		sides = append(sides, "the last packets of messages this NIC sent were lost, which no NAK reports, so it waited for its ACK timer (local_ack_timeout_err)")
	}
	return strings.Join(sides, "; ")
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}
