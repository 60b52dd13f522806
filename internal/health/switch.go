package health

import (
	"fmt"
	"slices"
	"strings"
)

// Switch counter names. The judge reads a switch port under these names only; each reader
// (telemetry) translates its operating system's names into them and leaves out what the
// switch does not count, so an absent counter means "not counted" (a switch without ECN
// counters, a release without a drop counter) and a zero one means "counted, none".
//
// A port's Stats hold the per-priority PFC frames (PFCRxFrames, PFCTxFrames) and the port's
// ECN marks where the switch counts them per port only (ECNMarkedPackets, every queue's
// marks together); a queue's (traffic class's) counters and a priority group's use the rest.
// Drops come in packets or in bytes, as the switch counts them; a verdict says which.
const (
	// TxPackets are the packets an egress queue sent.
	TxPackets = "tx_packets"
	// DroppedPackets and DroppedBytes are what an egress queue or an ingress priority group
	// threw away for want of buffer.
	DroppedPackets = "dropped_packets"
	DroppedBytes   = "dropped_bytes"
	// WREDDroppedPackets are an egress queue's WRED drops.
	WREDDroppedPackets = "wred_dropped_packets"
	// ECNMarkedPackets are the packets an egress queue (in Queues) or a whole port (in
	// Stats) ECN-marked.
	ECNMarkedPackets = "ecn_marked_packets"
	// WatchdogStorms and WatchdogRestored count the PFC storms the watchdog found on a queue
	// and the ones it saw end.
	WatchdogStorms   = "watchdog_storms"
	WatchdogRestored = "watchdog_restored"
	// WatchdogTxDropped and WatchdogRxDropped are what a stormed queue's drop action threw
	// away, leaving and entering the switch.
	WatchdogTxDropped = "watchdog_tx_dropped_packets"
	WatchdogRxDropped = "watchdog_rx_dropped_packets"
)

// PFCRxFrames names, in a port's Stats, the PFC frames the port received for prio.
func PFCRxFrames(prio int) string { return fmt.Sprintf("pfc/%d/rx_frames", prio) }

// PFCTxFrames names, in a port's Stats, the PFC frames the port sent for prio.
func PFCTxFrames(prio int) string { return fmt.Sprintf("pfc/%d/tx_frames", prio) }

// SwitchAdvice is what a switch's reader knows about fixing its operating system: the
// remedies of the verdicts quote it.
type SwitchAdvice interface {
	// PausesOn says how to make port pause its sender on switch priority prio.
	PausesOn(port string, prio int) string
	// ShowWatchdog names the command that shows the PFC watchdog's view of port.
	ShowWatchdog(port string) string
	// ECNUncounted says why the switch's ports have no ECN-mark counter.
	ECNUncounted() string
	// StormState names the state the switch reports for a stormed queue.
	StormState() string
}

// genericAdvice is the advice for a port whose reader gave none.
type genericAdvice struct{}

func (genericAdvice) PausesOn(port string, prio int) string {
	return fmt.Sprintf("enable PFC on priority %d on %s and give the priority a lossless buffer", prio, port)
}
func (genericAdvice) ShowWatchdog(port string) string {
	return "the switch's PFC watchdog statistics of " + port
}
func (genericAdvice) ECNUncounted() string { return "the switch reports no ECN-mark counter" }
func (genericAdvice) StormState() string   { return "stormed" }

// advice is p's advice, or the generic one.
func (p SwitchPort) advice() SwitchAdvice {
	if p.Advice == nil {
		return genericAdvice{}
	}
	return p.Advice
}

// queueOf is the egress queue (traffic class) of switch priority prio on p.
func (p SwitchPort) queueOf(prio int) int {
	if q, ok := p.QueueOf[prio]; ok {
		return q
	}
	return prio
}

// priorityGroupOf is the ingress priority group of switch priority prio on p; ok is false when
// the port does not say.
func (p SwitchPort) priorityGroupOf(prio int) (int, bool) {
	if p.PriorityGroupOf == nil {
		return prio, true
	}
	pg, ok := p.PriorityGroupOf[prio]
	return pg, ok
}

// losslessPriorityGroup is the priority group whose drops are lossless drops of prio: its own,
// holding no priority outside lossless. ok is false when the port does not say which group
// prio is in, or when that group also buffers a lossy priority, whose drops it would count too.
func (p SwitchPort) losslessPriorityGroup(prio int, lossless []int) (int, bool) {
	pg, ok := p.priorityGroupOf(prio)
	if !ok {
		return 0, false
	}
	for other := range numPriorities {
		if g, ok := p.priorityGroupOf(other); ok && g == pg && !slices.Contains(lossless, other) {
			return 0, false
		}
	}
	return pg, true
}

// queueSubject names queue q of port in verdicts, with the priority it carries when the two differ.
func queueSubject(port string, q, prio int) string {
	if q == prio {
		return fmt.Sprintf("%s queue %d", port, q)
	}
	return fmt.Sprintf("%s queue %d (priority %d)", port, q, prio)
}

// droppedWhat says what a drop description counts: "packets", "bytes" or both.
func droppedWhat(c Counters, names ...string) string {
	var pk, by bool
	for _, n := range names {
		if c[n] == 0 {
			continue
		}
		if strings.HasSuffix(n, "_bytes") {
			by = true
		} else {
			pk = true
		}
	}
	switch {
	case by && pk:
		return "packets and bytes"
	case by:
		return "bytes"
	}
	return "packets"
}
