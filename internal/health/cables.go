package health

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

// checkPFCAgreement compares the two ends of each known cable.
const checkPFCAgreement = "pfc_agreement"

// Cable is one link whose ends the user knows: a switch port and a host's netdev. Switch and
// Host are addresses as the samples name them.
type Cable struct {
	Switch, Port, Host, Netdev string
}

// String names the cable: "leaf1 Ethernet0 – gpu01 ens1f0np0".
func (c Cable) String() string {
	return fmt.Sprintf("%s %s – %s %s", c.Switch, c.Port, c.Host, c.Netdev)
}

// Agreement bounds: the two ends are sampled a moment apart and a switch publishes its port
// counters only when they poll, so their increases differ by up to a poll's worth of frames.
// A pair agrees while the smaller count is within agreeShare of the larger, or the two are
// within agreeSlack frames.
const (
	agreeShare = 0.75
	agreeSlack = 16
)

// agree reports whether the two ends' counts of the same frames match within the bounds.
func agree(a, b uint64) bool {
	lo, hi := min(a, b), max(a, b)
	return hi-lo <= agreeSlack || float64(lo) >= agreeShare*float64(hi)
}

// pfcAgreement checks, on every cable of the options whose both ends were sampled, that the
// PFC frames one end sent are the ones the other received, priority by priority: a switch
// port's pfc/<p>/tx_frames against the NIC's rx_prio<p>_pause, and the NIC's tx_prio<p>_pause
// against the port's pfc/<p>/rx_frames. Where they disagree it says which side is off: the
// NIC's count matching one other sampled switch port (and only one) means the cable is
// elsewhere; a side whose
// counters did not move at all while the other counted is the one not counting.
func (j *judge) pfcAgreement() {
	if len(j.o.Cables) == 0 {
		return
	}
	var fails []verdict.Verdict
	compared := 0
	for _, c := range j.o.Cables {
		sp, sok := j.switchPort(c.Switch, c.Port)
		l, lok := j.hostLink(c.Host, c.Netdev)
		if !sok || !lok {
			continue
		}
		compared++
		for p := range numPriorities {
			for _, dir := range []struct {
				swName, nicName, sent, received string
			}{
				{PFCTxFrames(p), HostPauseRx(p), "the switch port sent", "the NIC received"},
				{PFCRxFrames(p), HostPauseTx(p), "the switch port received", "the NIC sent"},
			} {
				sw, swOK := sp.Stats[dir.swName]
				nic, nicOK := l.Ethtool[dir.nicName]
				if !swOK || !nicOK || agree(sw, nic) {
					continue
				}
				fails = append(fails, verdict.Verdict{Target: c.Switch, Subject: fmt.Sprintf("%s priority %d", c.Port, p),
					Detail: fmt.Sprintf("the two ends of %s disagree on priority %d: %s %d PFC frames (%s), %s %d (%s)",
						c, p, dir.sent, sw, dir.swName, dir.received, nic, dir.nicName),
					Remedy: j.disagreementCause(c, sp, l, dir.swName, nic)})
			}
		}
	}
	pass := fmt.Sprintf("both ends of %d of %d cables agree on their PFC frames", compared, len(j.o.Cables))
	if compared < len(j.o.Cables) {
		pass += " (the others' ends were not both sampled)"
	}
	j.report(checkPFCAgreement, fails, pass)
}

// disagreementCause names the likely wrong side of a cable whose ends disagree on swName (the
// switch's counter), of which the NIC counted nic.
func (j *judge) disagreementCause(c Cable, sp SwitchPort, l Link, swName string, nic uint64) string {
	var matches []string
	for _, other := range j.d.Switches {
		if other.Switch == sp.Switch && other.Port == sp.Port {
			continue
		}
		if n, ok := other.Stats[swName]; ok && nic > agreeSlack && agree(n, nic) {
			matches = append(matches, other.Switch+" "+other.Port)
		}
	}
	switch {
	case len(matches) == 1: // several ports alike (even traffic) prove nothing
		return fmt.Sprintf("the NIC's count matches %s: %s is most likely cabled there, not to %s; check the LLDP neighbours of %s and correct the cable or the cable map",
			matches[0], l.Netdev, c.Port, l.Netdev)
	case !moved(sp.Stats, "pfc/"):
		return fmt.Sprintf("the switch side is off: none of %s's PFC counters moved while the NIC counted; the switch is not updating them (its port counters are not polled, or stale), so its PFC verdicts cannot be trusted", c.Port)
	case !moved(l.Ethtool, "_pause"):
		return fmt.Sprintf("the NIC side is off: none of %s's pause counters moved while the switch counted; check that %s is the netdev on this cable and that its driver counts per-priority pauses", l.Netdev, l.Netdev)
	}
	return fmt.Sprintf("both ends counted different numbers: check that %s is cabled to %s (LLDP), then sample again; a counter that was cleared between the samples also shows this", l.Netdev, c.Port)
}

// moved reports whether any counter whose name has part rose.
func moved(c Counters, part string) bool {
	for name, v := range c {
		if v > 0 && strings.Contains(name, part) {
			return true
		}
	}
	return false
}

// switchPort is the sampled port of a switch.
func (j *judge) switchPort(address, port string) (SwitchPort, bool) {
	i := slices.IndexFunc(j.d.Switches, func(sp SwitchPort) bool { return sp.Switch == address && sp.Port == port })
	if i < 0 {
		return SwitchPort{}, false
	}
	return j.d.Switches[i], true
}

// hostLink is the sampled physical port of a host with netdev.
func (j *judge) hostLink(address, netdev string) (Link, bool) {
	for _, h := range j.d.Hosts {
		if h.Host != address {
			continue
		}
		for _, l := range h.Links() {
			if l.Netdev == netdev {
				return l, true
			}
		}
	}
	return Link{}, false
}
