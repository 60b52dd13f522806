package sonic

import (
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/health"
)

// The COUNTERS_DB fields the SONiC reader translates into the judge's neutral names: SAI stat
// ids as sonic-swss orchagent's flex counters write them (orchagent/portsorch.cpp port, queue
// and priority group stat lists), PFC watchdog fields as pfcwdorch writes them
// (orchagent/pfcwdorch.h, pfcactionhandler.cpp; sonic-utilities pfcwd/main.py reads the same
// keys for "show pfcwd stats"). SONiC counts drops in packets; every other field of the hashes
// is left out.
var (
	sonicQueueNames = map[string]string{
		"SAI_QUEUE_STAT_PACKETS":                 health.TxPackets,
		"SAI_QUEUE_STAT_DROPPED_PACKETS":         health.DroppedPackets,
		"SAI_QUEUE_STAT_WRED_DROPPED_PACKETS":    health.WREDDroppedPackets,
		"SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": health.ECNMarkedPackets,
		"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED":   health.WatchdogStorms,
		"PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED":   health.WatchdogRestored,
		"PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS":  health.WatchdogTxDropped,
		"PFC_WD_QUEUE_STATS_RX_DROPPED_PACKETS":  health.WatchdogRxDropped,
	}
	sonicPGNames = map[string]string{
		"SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS": health.DroppedPackets,
	}
	sonicPortNames = func() map[string]string {
		m := map[string]string{}
		for p := range 8 {
			m[fmt.Sprintf("SAI_PORT_STAT_PFC_%d_RX_PKTS", p)] = health.PFCRxFrames(p)
			m[fmt.Sprintf("SAI_PORT_STAT_PFC_%d_TX_PKTS", p)] = health.PFCTxFrames(p)
		}
		return m
	}()
)

// sonicNeutral renames the fields of a COUNTERS hash that names knows and drops the rest.
func sonicNeutral(names map[string]string, c map[string]uint64) health.Counters {
	out := health.Counters{}
	for k, v := range c {
		if n, ok := names[k]; ok {
			out[n] = v
		}
	}
	return out
}

// sonicAdvice is SONiC's advice for the judge's remedies.
type sonicAdvice struct{}

// PausesOn: a port pauses on the priorities of its PORT_QOS_MAP pfc_enable, with a lossless
// buffer profile on the priority group (sonic-buildimage qos_config.j2, buffers_config.j2).
func (sonicAdvice) PausesOn(port string, p int) string {
	return fmt.Sprintf("make pfc_enable of PORT_QOS_MAP|%s include %d (and give priority group %d a lossless buffer profile)", port, p, p)
}

// ShowWatchdog is sonic-utilities' pfcwd command.
func (sonicAdvice) ShowWatchdog(string) string { return "show pfcwd stats" }

// ECNUncounted: the WRED_ECN_QUEUE flex counter group writes the ECN field, and is off by
// default (sonic-utilities counterpoll "wredqueue").
func (sonicAdvice) ECNUncounted() string {
	return "their WRED_ECN_QUEUE counters are off: counterpoll wredqueue enable"
}

// StormState is the queue hash's PFC_WD_STATUS while pfcwdorch holds the queue.
func (sonicAdvice) StormState() string { return "PFC_WD_STATUS stormed" }
