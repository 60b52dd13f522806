package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/clusterbid/terraform-provider-roce/internal/health"
	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// Cumulus reads ports of a Cumulus Linux switch over NVUE, two GETs per port at the
// operational revision (Cumulus Linux 5.9 to 5.14 user guides, CumulusNetworks/docs,
// Quality-of-Service/_index.md "Show QoS Counters" and "PFC Watchdog"; NVUE-API.md: a REST
// path is the nv show command's words joined by slashes, and counters are operational state):
//
//	/interface/<swp>/counters/qos   pfc-stats per switch priority, egress-queue-stats per
//	                                traffic class, ingress-buffer-stats per priority group
//	/interface/<swp>/qos/pfc-watchdog   state, and status and deadlock-count per traffic class
//
// Every priority, traffic class and priority group is read; the judge takes the lossless
// priority's traffic class and priority group to have its index, as the egress queue mapping
// roce_switch_qos sets on Cumulus (switch priority n to traffic class n) does for the queue.
// A port without a watchdog object (404) is read without one. ports,
// when empty, are the switch's swp interfaces.
//
// Cumulus 5.13 and later also stream these counters over gNMI Subscribe (no Get); this reader
// uses NVUE, which every release of 5.9 to 5.14 serves.
func Cumulus(ctx context.Context, c *nvue.Client, address string, ports []string) ([]health.SwitchPort, error) {
	if len(ports) == 0 {
		var err error
		if ports, err = cumulusPorts(ctx, c); err != nil {
			return nil, fmt.Errorf("switch %s: %w", address, err)
		}
	}
	out := make([]health.SwitchPort, len(ports))
	errs := make([]error, len(ports))
	sem := make(chan struct{}, cumulusConcurrency)
	var wg sync.WaitGroup
	for i, p := range ports {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i], errs[i] = cumulusPort(ctx, c, address, p)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// cumulusConcurrency bounds the GETs in flight to one switch: nvued serves them one by one.
const cumulusConcurrency = 8

// cumulusPorts lists the switch's front-panel ports (type swp) from its interfaces.
func cumulusPorts(ctx context.Context, c *nvue.Client) ([]string, error) {
	raw, err := c.Get(ctx, "interface", nvue.RevOperational)
	if err != nil {
		return nil, err
	}
	var ifaces map[string]struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &ifaces); err != nil {
		return nil, fmt.Errorf("GET /interface: %w", err)
	}
	var ports []string
	for name, i := range ifaces {
		if i.Type == "swp" {
			ports = append(ports, name)
		}
	}
	if len(ports) == 0 {
		return nil, errors.New("no swp interfaces in GET /interface")
	}
	slices.SortFunc(ports, sonic.NaturalCompare) // swp1, swp2, ... swp10
	return ports, nil
}

func cumulusPort(ctx context.Context, c *nvue.Client, address, port string) (health.SwitchPort, error) {
	sp := health.SwitchPort{Switch: address, Port: port, OS: health.OSCumulus}
	qosPath := "interface/" + port + "/counters/qos"
	raw, err := c.Get(ctx, qosPath, nvue.RevOperational)
	if err != nil {
		return sp, fmt.Errorf("switch %s: %w", address, err)
	}
	if sp.Stats, sp.Queues, sp.PriorityGroups, err = ParseCumulusQoSCounters(raw); err != nil {
		return sp, fmt.Errorf("switch %s: GET /%s: %w", address, qosPath, err)
	}
	wdPath := "interface/" + port + "/qos/pfc-watchdog"
	raw, err = c.Get(ctx, wdPath, nvue.RevOperational)
	var he *nvue.HTTPError
	switch {
	case errors.As(err, &he) && he.Status == http.StatusNotFound:
		return sp, nil
	case err != nil:
		return sp, fmt.Errorf("switch %s: %w", address, err)
	}
	deadlocks, stormed, err := ParseCumulusWatchdog(raw)
	if err != nil {
		return sp, fmt.Errorf("switch %s: GET /%s: %w", address, wdPath, err)
	}
	for tc, n := range deadlocks {
		if sp.Queues[tc] == nil {
			sp.Queues[tc] = health.Counters{}
		}
		sp.Queues[tc][health.CumulusDeadlocks] = n
	}
	sp.Stormed = stormed
	return sp, nil
}

// ParseCumulusQoSCounters reads GET /interface/<swp>/counters/qos: pfc-stats into stats
// (health.CumulusPFC names), egress-queue-stats into queues by traffic class,
// ingress-buffer-stats into priority groups. Each group is an NVUE collection keyed by its
// index as a string ("3"), each member an object of counters; a group the release does not
// report is left empty, a value that is not a non-negative integer is an error.
func ParseCumulusQoSCounters(raw []byte) (stats health.Counters, queues, pgs map[int]health.Counters, err error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, nil, nil, fmt.Errorf("not an NVUE object: %w", err)
	}
	stats, queues, pgs = health.Counters{}, map[int]health.Counters{}, map[int]health.Counters{}
	for _, g := range []struct {
		name string
		into func(idx int, field string, v uint64)
	}{
		{"pfc-stats", func(idx int, field string, v uint64) { stats[health.CumulusPFC(idx, field)] = v }},
		{"egress-queue-stats", setIn(queues)},
		{"ingress-buffer-stats", setIn(pgs)},
	} {
		body, ok := top[g.name]
		if !ok {
			continue
		}
		if err := decodeIndexed(body, g.into); err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", g.name, err)
		}
	}
	return stats, queues, pgs, nil
}

func setIn(m map[int]health.Counters) func(int, string, uint64) {
	return func(idx int, field string, v uint64) {
		if m[idx] == nil {
			m[idx] = health.Counters{}
		}
		m[idx][field] = v
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
			n, err := counterValue(v)
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

// ParseCumulusWatchdog reads GET /interface/<swp>/qos/pfc-watchdog: each traffic class's
// deadlock-count, and the traffic classes whose status is DEADLOCK now (the watchdog holds
// them: it ignores their pauses and drops their packets until the storm ends).
func ParseCumulusWatchdog(raw []byte) (deadlocks map[int]uint64, stormed []int, err error) {
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
