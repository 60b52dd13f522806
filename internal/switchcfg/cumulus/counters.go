package cumulus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/clusterbid/terraform-provider-roce/internal/health"
	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// ReadCounters reads ports of a Cumulus Linux switch over NVUE, under the judge's neutral names
// (cumulus_counters.go) with Cumulus' advice: the applied configuration once, for each switch
// priority's traffic class and priority group (QoSMaps) and each port's PFC priorities, judged
// lossless (PFCPriorities), then two GETs per port at the
// operational revision (Cumulus Linux 5.9 to 5.14 user guides, CumulusNetworks/docs,
// Quality-of-Service/_index.md "Show Qos Counters" and "PFC Watchdog"; NVUE-API.md: a REST
// path is the nv show command's words joined by slashes, and counters are operational state):
//
//	/interface/<swp>/counters/qos   pfc-stats per switch priority, egress-queue-stats per
//	                                traffic class, ingress-buffer-stats per priority group,
//	                                port-stats (the port's ECN marks)
//	/interface/<swp>/qos/pfc-watchdog   state, and status and deadlock-count per traffic class
//
// A port without a watchdog object (404) is read without one. ports, when empty, are the
// switch's swp interfaces.
//
// Cumulus 5.13 and later also stream these counters over gNMI Subscribe (no Get); this reader
// uses NVUE, which every release of 5.9 to 5.14 serves.
func ReadCounters(ctx context.Context, c *nvue.Client, address string, ports []string) ([]health.SwitchPort, error) {
	if len(ports) == 0 {
		var err error
		if ports, err = cumulusPorts(ctx, c); err != nil {
			return nil, fmt.Errorf("switch %s: %w", address, err)
		}
	}
	raw, err := c.Get(ctx, "", nvue.RevApplied)
	if err != nil {
		return nil, fmt.Errorf("switch %s: %w", address, err)
	}
	applied, err := nvue.DecodeTree(raw)
	if err != nil {
		return nil, fmt.Errorf("switch %s: GET /: %w", address, err)
	}
	qos, ifaces := nvue.Object(applied, "qos"), nvue.Object(applied, "interface")
	queueOf, pgOf, err := QoSMaps(qos)
	if err != nil {
		return nil, fmt.Errorf("switch %s: %w", address, err)
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
			out[i].QueueOf, out[i].PriorityGroupOf = queueOf, pgOf
			out[i].Lossless = PFCPriorities(qos, ifaces, p)
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
	sp := health.SwitchPort{Switch: address, Port: port, Advice: cumulusAdvice{}}
	qosPath := "interface/" + port + "/counters/qos"
	raw, err := c.Get(ctx, qosPath, nvue.RevOperational)
	if err != nil {
		return sp, fmt.Errorf("switch %s: %w", address, err)
	}
	if sp.Stats, sp.Queues, sp.PriorityGroups, err = ParseQoSCounters(raw); err != nil {
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
	deadlocks, stormed, err := ParseWatchdog(raw)
	if err != nil {
		return sp, fmt.Errorf("switch %s: GET /%s: %w", address, wdPath, err)
	}
	for tc, n := range deadlocks {
		if sp.Queues[tc] == nil {
			sp.Queues[tc] = health.Counters{}
		}
		sp.Queues[tc][health.WatchdogStorms] = n
	}
	sp.Stormed = stormed
	return sp, nil
}
