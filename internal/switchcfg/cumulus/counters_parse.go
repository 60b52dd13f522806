package cumulus

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/health"
)

// The NVUE counters the Cumulus reader translates into the judge's neutral names, with their
// units: the columns the Cumulus Linux 5.9, 5.12 and 5.14 user guides print for
// "nv show interface swp1 counters qos" (CumulusNetworks/docs,
// content/cumulus-linux-514/Layer-1-and-Switch-Ports/Quality-of-Service/_index.md, "Show Qos
// Counters"). The byte columns print as "0 Bytes"; the rest are counts. Egress queue stats have
// no ECN column: ECN marks are counted per port, as "Qos Port Statistics" ecn-marked-packets
// (transmit; receive is n/a).
var (
	// cumulusPFCNames are pfc-stats' fields of a switch priority (frames; the durations are
	// left out).
	cumulusPFCNames = map[string]func(int) string{
		"rx-pause-frames": health.PFCRxFrames,
		"tx-pause-frames": health.PFCTxFrames,
	}
	// cumulusQueueNames are egress-queue-stats' fields of a traffic class.
	cumulusQueueNames = map[string]string{
		"tx-frames":             health.TxPackets,
		"tx-uc-buffer-discards": health.DroppedBytes,
		"wred-discards":         health.WREDDroppedPackets,
	}
	// cumulusPGNames are ingress-buffer-stats' fields of a priority group.
	cumulusPGNames = map[string]string{
		"rx-buffer-discards": health.DroppedBytes,
	}
	// cumulusByteFields are the fields NVUE reports in bytes (and prints with a unit).
	cumulusByteFields = map[string]bool{
		"tx-bytes": true, "tx-uc-buffer-discards": true, "rx-buffer-discards": true, "rx-shared-buffer-discards": true,
	}
)

// cumulusPortECN is where port-stats keeps the transmitted ECN marks. The guides print the
// group as a Counter/Receive/Transmit table without its JSON; this reader takes NVUE's
// rx-stats/tx-stats split, as "qos roce counters" of the RoCE page prints its own
// (tx-stats tx-ecn-stats ecn-marked-packets): port-stats.tx-stats.ecn-marked-packets.
var cumulusPortECN = []string{"tx-stats", "ecn-marked-packets"}

// ParseQoSCounters reads GET /interface/<swp>/counters/qos under the judge's names:
// pfc-stats (by switch priority) and the port's ECN marks into stats, egress-queue-stats into
// queues by traffic class, ingress-buffer-stats into priority groups by index. Each indexed
// group is an NVUE collection keyed by its index as a string ("3"), each member an object of
// counters; a group or field the release does not report is left out, so the judge sees it
// uncounted. A count that is not a non-negative integer is an error, and so is a byte field
// that is neither a number of bytes nor a size NVUE prints ("0 Bytes", "1.43 MB").
func ParseQoSCounters(raw []byte) (stats health.Counters, queues, pgs map[int]health.Counters, err error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, nil, nil, fmt.Errorf("not an NVUE object: %w", err)
	}
	stats, queues, pgs = health.Counters{}, map[int]health.Counters{}, map[int]health.Counters{}
	for _, g := range []struct {
		name string
		into func(idx int, field string, v uint64)
	}{
		{"pfc-stats", func(idx int, field string, v uint64) {
			if name, ok := cumulusPFCNames[field]; ok {
				stats[name(idx)] = v
			}
		}},
		{"egress-queue-stats", setNeutral(queues, cumulusQueueNames)},
		{"ingress-buffer-stats", setNeutral(pgs, cumulusPGNames)},
	} {
		body, ok := top[g.name]
		if !ok {
			continue
		}
		if err := decodeIndexed(body, g.into); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", g.name, err)
		}
	}
	if body, ok := top["port-stats"]; ok {
		var ps map[string]map[string]json.RawMessage
		if err := json.Unmarshal(body, &ps); err != nil {
			return nil, nil, nil, fmt.Errorf("port-stats: want rx-stats and tx-stats objects: %w", err)
		}
		if v, ok := ps[cumulusPortECN[0]][cumulusPortECN[1]]; ok {
			n, err := counterValue(v)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("port-stats %s: %w", strings.Join(cumulusPortECN, " "), err)
			}
			stats[health.ECNMarkedPackets] = n
		}
	}
	return stats, queues, pgs, nil
}

func setNeutral(m map[int]health.Counters, names map[string]string) func(int, string, uint64) {
	return func(idx int, field string, v uint64) {
		name, ok := names[field]
		if !ok {
			return
		}
		if m[idx] == nil {
			m[idx] = health.Counters{}
		}
		m[idx][name] = v
	}
}

// decodeIndexed walks {"<0-7>": {"<field>": <count>, ...}, ...}.
func decodeIndexed(raw json.RawMessage, into func(idx int, field string, v uint64)) error {
	var members map[string]map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return fmt.Errorf("want an object of indexed members: %w", err)
	}
	for key, fields := range members {
		idx, err := strconv.Atoi(key)
		if err != nil || idx < 0 || idx > 7 {
			return fmt.Errorf("member %q is not a priority, traffic class or priority group 0-7", key)
		}
		for field, v := range fields {
			var n uint64
			if cumulusByteFields[field] {
				n, err = byteValue(v)
			} else {
				n, err = counterValue(v)
			}
			if err != nil {
				return fmt.Errorf("%s %s: %w", key, field, err)
			}
			into(idx, field, n)
		}
	}
	return nil
}

// counterValue reads a JSON counter: a non-negative integer (NVUE writes numbers; a counter
// past 2^53 loses precision in float64, so the literal is parsed, not the float).
func counterValue(v json.RawMessage) (uint64, error) {
	s := strings.TrimSpace(string(v))
	n, err := strconv.ParseUint(s, 10, 64)
	if err == nil {
		return n, nil
	}
	// An integral number written with an exponent or a fraction of zero (1e3, 12.0).
	if f, ferr := strconv.ParseFloat(s, 64); ferr == nil && f >= 0 && f == math.Trunc(f) && f < 1<<64 {
		return uint64(f), nil
	}
	return 0, fmt.Errorf("%s is not a counter", s)
}

// nvueUnits are the size units NVUE prints, in powers of 1024: the RoCE page prints the
// 150000-byte ECN threshold as "146.48 KB" (150000/1024) and buffer use as "7.29 MB".
var nvueUnits = map[string]float64{"B": 1, "Bytes": 1, "Byte": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}

// byteValue reads a byte counter: a number of bytes, or a size as NVUE prints it ("0 Bytes",
// "56.52 MB"; a size with a fraction is exact only to its printed digits).
func byteValue(v json.RawMessage) (uint64, error) {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return counterValue(v)
	}
	num, unit, ok := strings.Cut(strings.TrimSpace(s), " ")
	mult, known := nvueUnits[strings.TrimSpace(unit)]
	f, err := strconv.ParseFloat(num, 64)
	if !ok || !known || err != nil || f < 0 || math.IsInf(f, 0) || f*mult >= 1<<64 {
		return 0, fmt.Errorf("%q is not a size in bytes", s)
	}
	return uint64(math.Round(f * mult)), nil
}

// ParseWatchdog reads GET /interface/<swp>/qos/pfc-watchdog: each traffic class's
// deadlock-count, and the traffic classes whose status is DEADLOCK now (the watchdog holds
// them: it ignores their pauses and drops their packets until the storm ends).
func ParseWatchdog(raw []byte) (deadlocks map[int]uint64, stormed []int, err error) {
	var wd struct {
		Status map[string]map[string]json.RawMessage `json:"status"`
	}
	if err := json.Unmarshal(raw, &wd); err != nil {
		return nil, nil, fmt.Errorf("not a pfc-watchdog object: %w", err)
	}
	deadlocks = map[int]uint64{}
	for key, fields := range wd.Status {
		tc, err := strconv.Atoi(key)
		if err != nil || tc < 0 || tc > 7 {
			return nil, nil, fmt.Errorf("status member %q is not a traffic class 0-7", key)
		}
		if v, ok := fields["deadlock-count"]; ok {
			if deadlocks[tc], err = counterValue(v); err != nil {
				return nil, nil, fmt.Errorf("status %s deadlock-count: %w", key, err)
			}
		}
		if v, ok := fields["status"]; ok {
			var state string
			if err := json.Unmarshal(v, &state); err != nil {
				return nil, nil, fmt.Errorf("status %s status: %w", key, err)
			}
			switch state {
			case "OK":
			case "DEADLOCK":
				stormed = append(stormed, tc)
			default:
				return nil, nil, fmt.Errorf("status %s status is %q, want OK or DEADLOCK", key, state)
			}
		}
	}
	slices.Sort(stormed)
	return deadlocks, stormed, nil
}

// cumulusAdvice is Cumulus Linux's advice for the judge's remedies (the 5.14 QoS guide).
type cumulusAdvice struct{}

// PausesOn: PFC profiles hold switch priorities ("Priority Flow Control (PFC)"), and a
// lossless priority needs a lossless traffic pool ("Flow Control Buffers", "Traffic Pools").
func (cumulusAdvice) PausesOn(port string, p int) string {
	return fmt.Sprintf("put switch priority %d in the PFC profile of %s (nv set qos pfc <profile> switch-priority %d; roce_switch_qos does) and in a lossless traffic pool", p, port, p)
}

// ShowWatchdog is the guide's "PFC Watchdog" show command.
func (cumulusAdvice) ShowWatchdog(port string) string {
	return "nv show interface " + port + " qos pfc-watchdog"
}

// ECNUncounted: the guides' egress queue stats have no ECN column, and a release without
// port-stats has no ECN count at all.
func (cumulusAdvice) ECNUncounted() string {
	return "their counters/qos has no port-stats ecn-marked-packets"
}

// StormState is pfc-watchdog's status of a deadlocked traffic class.
func (cumulusAdvice) StormState() string { return "pfc-watchdog status DEADLOCK" }
