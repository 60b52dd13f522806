package health

import "fmt"

// Switch operating systems, whose counter names a SwitchPort carries.
const (
	OSSONiC   = "sonic"
	OSCumulus = "cumulus"
)

// Cumulus Linux counter names: NVUE's operational fields (Cumulus Linux 5.9 to 5.14 user
// guides, CumulusNetworks/docs, Quality-of-Service/_index.md "Show QoS Counters" and "PFC
// Watchdog"): a port's pfc-stats keyed by switch priority, egress-queue-stats by traffic class
// and ingress-buffer-stats by priority group, under GET /nvue_v1/interface/<swp>/counters/qos;
// the watchdog's per-traffic-class deadlock-count and status under
// /nvue_v1/interface/<swp>/qos/pfc-watchdog. A port's Stats hold pfc-stats as
// "pfc-stats/<priority>/<field>"; its Queues and PriorityGroups the fields as NVUE names them.
const (
	CumulusTxFrames         = "tx-frames"
	CumulusTxBufferDiscards = "tx-uc-buffer-discards"
	CumulusWREDDiscards     = "wred-discards"
	CumulusECNMarked        = "ecn-marked-frames"
	CumulusRxBufferDiscards = "rx-buffer-discards"
	CumulusDeadlocks        = "deadlock-count"
)

// CumulusPFC names a pfc-stats field of prio in a Cumulus port's Stats: "pfc-stats/3/rx-pause-frames".
func CumulusPFC(prio int, field string) string { return fmt.Sprintf("pfc-stats/%d/%s", prio, field) }

// switchNames are one switch operating system's counter names and the advice that fits it.
type switchNames struct {
	queuePackets, queueDropped, queueWREDDropped, queueECNMarked, pgDropped string
	watchdogDetected, watchdogRestored                                      string
	watchdogTxDropped, watchdogRxDropped                                    string
	pfcRx, pfcTx                                                            func(prio int) string
	// pausesOn says how to make port pause its sender on prio; showWatchdog how to read the
	// watchdog's view of port; ecnUncounted why a switch's queues lack the ECN counter.
	pausesOn     func(port string, prio int) string
	showWatchdog func(port string) string
	ecnUncounted string
}

var sonicNames = switchNames{
	queuePackets: QueuePackets, queueDropped: QueueDropped, queueWREDDropped: QueueWREDDropped,
	queueECNMarked: QueueECNMarked, pgDropped: PGDropped,
	watchdogDetected: WatchdogDetected, watchdogRestored: WatchdogRestored,
	watchdogTxDropped: WatchdogTxDropped, watchdogRxDropped: WatchdogRxDropped,
	pfcRx: SwitchPFCRx, pfcTx: SwitchPFCTx,
	pausesOn: func(port string, p int) string {
		return fmt.Sprintf("make pfc_enable of PORT_QOS_MAP|%s include %d (and give priority group %d a lossless buffer profile)", port, p, p)
	},
	showWatchdog: func(string) string { return "show pfcwd stats" },
	ecnUncounted: "their WRED_ECN_QUEUE counters are off: counterpoll wredqueue enable",
}

var cumulusNames = switchNames{
	queuePackets: CumulusTxFrames, queueDropped: CumulusTxBufferDiscards, queueWREDDropped: CumulusWREDDiscards,
	queueECNMarked: CumulusECNMarked, pgDropped: CumulusRxBufferDiscards,
	watchdogDetected: CumulusDeadlocks,
	pfcRx:            func(p int) string { return CumulusPFC(p, "rx-pause-frames") },
	pfcTx:            func(p int) string { return CumulusPFC(p, "tx-pause-frames") },
	pausesOn: func(port string, p int) string {
		return fmt.Sprintf("put switch priority %d in the PFC profile of %s (nv set qos pfc <profile> switch-priority %d; roce_switch_qos does) and in a lossless traffic pool", p, port, p)
	},
	showWatchdog: func(port string) string { return "nv show interface " + port + " qos pfc-watchdog" },
	ecnUncounted: "the release reports no ecn-marked-frames in egress-queue-stats",
}

// names returns the vocabulary of p's operating system.
func (p SwitchPort) names() switchNames {
	if p.OS == OSCumulus {
		return cumulusNames
	}
	return sonicNames
}
