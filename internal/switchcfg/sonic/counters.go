package sonic

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	"github.com/clusterbid/terraform-provider-roce/internal/health"
	sonicmodel "github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/sonicdb"
)

// ReadCounters reads every port of a SONiC switch and its lossless priorities, its counters under the
// judge's neutral names (sonic_names.go) with SONiC's advice: the port hash (PFC
// frames per priority), the queue hash of each lossless priority (packets, drops, ECN marks,
// PFC watchdog) and, where the switch counts it, the ingress priority group's hash (drops when
// the port did not pause its sender in time). A port's lossless priorities are its
// PORT_QOS_MAP pfc_enable (SONiC's qos_config.j2 makes 3 and 4 lossless) plus priority; the
// queue and the priority group are taken to have the priority's index, as SONiC's default
// TC_TO_QUEUE and PFC_PRIORITY_TO_PRIORITY_GROUP maps and roce_switch_qos set them.
//
// A port without those queues in COUNTERS_QUEUE_NAME_MAP keeps no queue counters: with
// create_only_config_db_buffers (on by default on Mellanox images) orchagent maps only the
// queues and priority groups that BUFFER_QUEUE and BUFFER_PG configure (sonic-swss
// orchagent/portsorch.cpp generateQueueMap, flexcounterorch.cpp), and the buffer templates
// configure active ports only. Such a port is read with its port counters and NoCounters set.
// ports, when not empty, limits the read to those ports; one the switch does not have is an
// error.
func ReadCounters(ctx context.Context, c *gnmi.Client, address string, priority int, ports []string) ([]health.SwitchPort, error) {
	maps1, err := c.GetTarget(ctx, sonicmodel.CountersDB, []string{sonicmodel.CountersPortNameMap}, []string{sonicmodel.CountersQueueNameMap}, []string{sonicmodel.CountersPGNameMap})
	if err != nil {
		return nil, err
	}
	portMap, err := sonicmodel.DecodeNameMap(sonicmodel.CountersPortNameMap, maps1[sonicmodel.CountersPortNameMap])
	if err != nil {
		return nil, fmt.Errorf("switch %s: %w", address, err)
	}
	queueMap, err := sonicmodel.DecodeNameMap(sonicmodel.CountersQueueNameMap, maps1[sonicmodel.CountersQueueNameMap])
	if err != nil {
		return nil, fmt.Errorf("switch %s: %w", address, err)
	}
	// The PG name map exists only while the PG_DROP or PG_WATERMARK flex counters are on
	// (sonic-swss orchagent/flexcounterorch.cpp); without it the ports are read without their
	// priority group.
	var pgMap sonicmodel.NameMap
	if raw, ok := maps1[sonicmodel.CountersPGNameMap]; ok {
		if pgMap, err = sonicmodel.DecodeNameMap(sonicmodel.CountersPGNameMap, raw); err != nil {
			return nil, fmt.Errorf("switch %s: %w", address, err)
		}
	}
	qos, err := sonicdb.New(c).GetTables(ctx, portQoSMap)
	if err != nil {
		return nil, fmt.Errorf("switch %s: read %s: %w", address, portQoSMap, err)
	}
	if len(ports) == 0 {
		ports = slices.SortedFunc(maps.Keys(portMap), sonicmodel.NaturalCompare)
	}
	type read struct {
		port, kind int // index in ports; 0 port, 1 queue, 2 priority group
		prio       int
		path       []string
	}
	var reads []read
	out := make([]health.SwitchPort, len(ports))
	for i, p := range ports {
		poid, ok := portMap[p]
		if !ok {
			return nil, fmt.Errorf("switch %s has no port %s in %s (its ports: %s)", address, p, sonicmodel.CountersPortNameMap, firstFew(slices.SortedFunc(maps.Keys(portMap), sonicmodel.NaturalCompare)))
		}
		lossless := pfcEnabled(qos[portQoSMap][p][pfcEnable], priority)
		out[i] = health.SwitchPort{Switch: address, Port: p, Advice: sonicAdvice{}, Lossless: lossless, Queues: map[int]health.Counters{}, PriorityGroups: map[int]health.Counters{}}
		reads = append(reads, read{port: i, path: []string{sonicmodel.CountersTable, poid}})
		queues := 0
		for _, prio := range lossless {
			if qoid, ok := queueMap.ObjectOID(p, prio); ok {
				queues++
				reads = append(reads, read{port: i, kind: 1, prio: prio, path: []string{sonicmodel.CountersTable, qoid}})
			}
			if goid, ok := pgMap.ObjectOID(p, prio); ok {
				reads = append(reads, read{port: i, kind: 2, prio: prio, path: []string{sonicmodel.CountersTable, goid}})
			}
		}
		if queues == 0 {
			out[i].NoCounters = fmt.Sprintf("%s maps none of their queues %s (SONiC keeps queue counters only for the queues BUFFER_QUEUE configures)",
				sonicmodel.CountersQueueNameMap, joinInts(lossless))
		}
	}
	if len(reads) == 0 {
		return nil, fmt.Errorf("switch %s: %s is empty: orchagent has not created its port counters", address, sonicmodel.CountersPortNameMap)
	}
	paths := make([][]string, len(reads))
	for i, r := range reads {
		paths[i] = r.path
	}
	hashes, err := c.GetTarget(ctx, sonicmodel.CountersDB, paths...)
	if err != nil {
		return nil, err
	}
	for _, r := range reads {
		sp := &out[r.port]
		h, err := decodeHash(hashes, r.path)
		if err != nil {
			return nil, fmt.Errorf("switch %s %s: %w", address, [...]string{"port " + sp.Port, fmt.Sprintf("queue %s:%d", sp.Port, r.prio), fmt.Sprintf("priority group %s:%d", sp.Port, r.prio)}[r.kind], err)
		}
		switch r.kind {
		case 0:
			sp.Stats = sonicNeutral(sonicPortNames, h.Counters)
		case 1:
			sp.Queues[r.prio] = sonicNeutral(sonicQueueNames, h.Counters)
			if h.Text[sonicmodel.PFCWatchdogStatus] == sonicmodel.PFCWatchdogStormed {
				sp.Stormed = append(sp.Stormed, r.prio)
			}
		case 2:
			sp.PriorityGroups[r.prio] = sonicNeutral(sonicPGNames, h.Counters)
		}
	}
	return out, nil
}

// PORT_QOS_MAP's field of the priorities a port has PFC on: "3,4".
const (
	portQoSMap = "PORT_QOS_MAP"
	pfcEnable  = "pfc_enable"
)

// pfcEnabled is the sorted priorities of a pfc_enable value, with prio.
func pfcEnabled(value string, prio int) []int {
	out := []int{prio}
	for _, f := range strings.Split(value, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n >= 0 && n < 8 && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

func decodeHash(values map[string]json.RawMessage, path []string) (sonicmodel.CounterHash, error) {
	key := path[0] + "/" + path[1]
	raw, ok := values[key]
	if !ok {
		return sonicmodel.CounterHash{}, fmt.Errorf("no answer for %s", key)
	}
	return sonicmodel.DecodeCounterHash(path[1], raw)
}

func firstFew(names []string) string {
	if len(names) > 8 {
		return fmt.Sprintf("%s, ... (%d in all)", strings.Join(names[:8], ", "), len(names))
	}
	return strings.Join(names, ", ")
}

// sonicFlexGroups are the flex counter groups whose counters the verdicts read (CONFIG_DB
// FLEX_COUNTER_TABLE keys) and how often each polls when POLL_INTERVAL is not set
// (sonic-swss orchagent/portsorch.cpp: PORT_STAT_FLEX_COUNTER_POLLING_INTERVAL_MS 1000,
// QUEUE_STAT_FLEX_COUNTER_POLLING_INTERVAL_MS 10000 for QUEUE and WRED_ECN_QUEUE,
// PG_DROP_STAT_FLEX_COUNTER_POLLING_INTERVAL_MS 10000).
var sonicFlexGroups = map[string]time.Duration{"PORT": time.Second, "QUEUE": 10 * time.Second, "WRED_ECN_QUEUE": 10 * time.Second, "PG_DROP": 10 * time.Second}

// SlowestPoll is the longest poll interval of the flex counter groups the verdicts read
// on a switch, and that group: COUNTERS_DB moves only when a group polls, so a window shorter
// than two of its polls sees none or several and misjudges drops, marks and rates.
func SlowestPoll(ctx context.Context, c *gnmi.Client) (time.Duration, string, error) {
	db, err := sonicdb.New(c).GetTables(ctx, "FLEX_COUNTER_TABLE")
	if err != nil {
		return 0, "", err
	}
	var slowest time.Duration
	group := ""
	for _, g := range slices.Sorted(maps.Keys(sonicFlexGroups)) {
		every := sonicFlexGroups[g]
		if ms, err := strconv.Atoi(db["FLEX_COUNTER_TABLE"][g]["POLL_INTERVAL"]); err == nil && ms > 0 {
			every = time.Duration(ms) * time.Millisecond
		}
		if every > slowest {
			slowest, group = every, g
		}
	}
	return slowest, group, nil
}
