package telemetry

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	"github.com/clusterbid/terraform-provider-roce/internal/health"
	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// SONiC reads every port of a SONiC switch and its lossless priority: the port hash (PFC frames
// per priority), the queue hash (packets, drops, ECN marks, PFC watchdog) and, where the switch
// counts it, the ingress priority group's hash (drops when the port did not pause its sender in
// time). The queue and the priority group are taken to have the priority's index, as SONiC's
// default TC_TO_QUEUE and PFC_PRIORITY_TO_PRIORITY_GROUP maps and roce_switch_qos set them. ports, when not empty,
// limits the read to those ports; one the switch does not have is an error.
func SONiC(ctx context.Context, c *gnmi.Client, address string, priority int, ports []string) ([]health.SwitchPort, error) {
	maps1, err := c.GetTarget(ctx, sonic.CountersDB, []string{sonic.CountersPortNameMap}, []string{sonic.CountersQueueNameMap}, []string{sonic.CountersPGNameMap})
	if err != nil {
		return nil, err
	}
	portMap, err := sonic.DecodeNameMap(sonic.CountersPortNameMap, maps1[sonic.CountersPortNameMap])
	if err != nil {
		return nil, fmt.Errorf("switch %s: %w", address, err)
	}
	queueMap, err := sonic.DecodeNameMap(sonic.CountersQueueNameMap, maps1[sonic.CountersQueueNameMap])
	if err != nil {
		return nil, fmt.Errorf("switch %s: %w", address, err)
	}
	// The PG name map exists only while the PG_DROP or PG_WATERMARK flex counters are on
	// (sonic-swss orchagent/flexcounterorch.cpp); without it the ports are read without their
	// priority group.
	var pgMap sonic.NameMap
	if raw, ok := maps1[sonic.CountersPGNameMap]; ok {
		if pgMap, err = sonic.DecodeNameMap(sonic.CountersPGNameMap, raw); err != nil {
			return nil, fmt.Errorf("switch %s: %w", address, err)
		}
	}
	if len(ports) == 0 {
		ports = slices.SortedFunc(maps.Keys(portMap), sonic.NaturalCompare)
	}
	var paths [][]string
	perPort := 2
	if len(pgMap) > 0 {
		perPort = 3
	}
	for _, p := range ports {
		poid, ok := portMap[p]
		if !ok {
			return nil, fmt.Errorf("switch %s has no port %s in %s (its ports: %s)", address, p, sonic.CountersPortNameMap, firstFew(slices.SortedFunc(maps.Keys(portMap), sonic.NaturalCompare)))
		}
		qoid, ok := queueMap.ObjectOID(p, priority)
		if !ok {
			return nil, fmt.Errorf("switch %s has no queue %s:%d in %s", address, p, priority, sonic.CountersQueueNameMap)
		}
		paths = append(paths, []string{sonic.CountersTable, poid}, []string{sonic.CountersTable, qoid})
		if perPort == 3 {
			goid, ok := pgMap.ObjectOID(p, priority)
			if !ok {
				return nil, fmt.Errorf("switch %s has no priority group %s:%d in %s", address, p, priority, sonic.CountersPGNameMap)
			}
			paths = append(paths, []string{sonic.CountersTable, goid})
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("switch %s: %s is empty: orchagent has not created its port counters", address, sonic.CountersPortNameMap)
	}
	hashes, err := c.GetTarget(ctx, sonic.CountersDB, paths...)
	if err != nil {
		return nil, err
	}
	out := make([]health.SwitchPort, 0, len(ports))
	for i, p := range ports {
		port, err := decodeHash(hashes, paths[perPort*i])
		if err != nil {
			return nil, fmt.Errorf("switch %s port %s: %w", address, p, err)
		}
		queue, err := decodeHash(hashes, paths[perPort*i+1])
		if err != nil {
			return nil, fmt.Errorf("switch %s queue %s:%d: %w", address, p, priority, err)
		}
		sp := health.SwitchPort{Switch: address, Port: p, Stats: port.Counters,
			Queues: map[int]health.Counters{priority: queue.Counters}, PriorityGroups: map[int]health.Counters{}}
		if perPort == 3 {
			pg, err := decodeHash(hashes, paths[perPort*i+2])
			if err != nil {
				return nil, fmt.Errorf("switch %s priority group %s:%d: %w", address, p, priority, err)
			}
			sp.PriorityGroups[priority] = pg.Counters
		}
		if queue.Text[sonic.PFCWatchdogStatus] == sonic.PFCWatchdogStormed {
			sp.Stormed = []int{priority}
		}
		out = append(out, sp)
	}
	return out, nil
}

func decodeHash(values map[string]json.RawMessage, path []string) (sonic.CounterHash, error) {
	key := path[0] + "/" + path[1]
	raw, ok := values[key]
	if !ok {
		return sonic.CounterHash{}, fmt.Errorf("no answer for %s", key)
	}
	return sonic.DecodeCounterHash(path[1], raw)
}

func firstFew(names []string) string {
	if len(names) > 8 {
		return fmt.Sprintf("%s, ... (%d in all)", strings.Join(names[:8], ", "), len(names))
	}
	return strings.Join(names, ", ")
}
