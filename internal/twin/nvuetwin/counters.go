package nvuetwin

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

// A port's operational QoS counters, as GET /nvue_v1/interface/<swp>/counters/qos serves them
// (Cumulus Linux 5.9 to 5.14 user guides, CumulusNetworks/docs,
// content/cumulus-linux-514/Layer-1-and-Switch-Ports/Quality-of-Service/_index.md "Show Qos
// Counters": the groups and their columns, the same in every release, and no others): each
// indexed group a collection of the eight switch priorities, traffic classes or priority
// groups, keyed "0" to "7". The byte columns (tx-bytes, the buffer discards), which the CLI
// prints as "0 Bytes", are served as numbers of bytes. They start at zero; tests move them
// with AddCounter and AddPortStat. The watchdog's status (OK or DEADLOCK) and deadlock count
// per traffic class join /interface/<swp>/qos/pfc-watchdog at the operational revision while
// the port's watchdog is enabled ("PFC Watchdog").
var counterFields = map[string][]string{
	"pfc-stats":            {"rx-pause-frames", "rx-pause-duration", "tx-pause-frames", "tx-pause-duration"},
	"egress-queue-stats":   {"tx-frames", "tx-bytes", "tx-uc-buffer-discards", "wred-discards"},
	"ingress-buffer-stats": {"rx-frames", "rx-buffer-discards", "rx-shared-buffer-discards"},
}

// portStatFields are port-stats' rows ("Qos Port Statistics": ecn-marked-packets,
// mc-buffer-discards and pause-frames, receive n/a for the first two) by direction. The guide
// prints the table without its JSON; the twin serves it split as NVUE's "qos roce counters"
// is, rx-stats and tx-stats (an assumption, the same one telemetry reads).
var portStatFields = map[string][]string{
	"rx-stats": {"pause-frames"},
	"tx-stats": {"ecn-marked-packets", "mc-buffer-discards", "pause-frames"},
}

// portCounters are one port's counters: group -> index -> field -> value.
type portCounters struct {
	groups    map[string][8]map[string]uint64
	portStats map[string]map[string]uint64
	deadlocks [8]uint64
	deadlock  [8]bool
}

func newPortCounters() *portCounters {
	c := &portCounters{groups: map[string][8]map[string]uint64{}}
	for g, fields := range counterFields {
		var idx [8]map[string]uint64
		for i := range idx {
			idx[i] = map[string]uint64{}
			for _, f := range fields {
				idx[i][f] = 0
			}
		}
		c.groups[g] = idx
	}
	c.portStats = map[string]map[string]uint64{}
	for dir, fields := range portStatFields {
		c.portStats[dir] = map[string]uint64{}
		for _, f := range fields {
			c.portStats[dir][f] = 0
		}
	}
	return c
}

// AddPortStat adds n to a port-stats counter of port: dir rx-stats or tx-stats, field one of
// its rows. An unknown port, direction or field is an error.
func (t *Twin) AddPortStat(port, dir, field string, n uint64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, err := t.portCounters(port)
	if err != nil {
		return err
	}
	if !slices.Contains(portStatFields[dir], field) {
		return fmt.Errorf("no port-stats %s %s on %s", dir, field, port)
	}
	c.portStats[dir][field] += n
	return nil
}

// AddCounter adds n to a counter of port: group pfc-stats (index a switch priority),
// egress-queue-stats (a traffic class) or ingress-buffer-stats (a priority group). An unknown
// port, group, index or field is an error.
func (t *Twin) AddCounter(port, group string, index int, field string, n uint64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, err := t.portCounters(port)
	if err != nil {
		return err
	}
	g, ok := c.groups[group]
	if !ok || index < 0 || index > 7 || !slices.Contains(counterFields[group], field) {
		return fmt.Errorf("no counter %s %d %s on %s", group, index, field, port)
	}
	g[index][field] += n
	return nil
}

// SetDeadlock puts traffic class tc of port in the watchdog's DEADLOCK state (counting one
// more deadlock) or back to OK, as a PFC storm starting and ending would.
func (t *Twin) SetDeadlock(port string, tc int, on bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, err := t.portCounters(port)
	if err != nil {
		return err
	}
	if tc < 0 || tc > 7 {
		return fmt.Errorf("traffic class %d is not 0-7", tc)
	}
	if on && !c.deadlock[tc] {
		c.deadlocks[tc]++
	}
	c.deadlock[tc] = on
	return nil
}

// portCounters returns port's counters, made on first use; t.mu is held.
func (t *Twin) portCounters(port string) (*portCounters, error) {
	if typ, _ := nvue.Lookup(hardware(t.applied, t.opts.Ports), port, "type"); typ != "swp" {
		return nil, fmt.Errorf("the switch has no swp port %q", port)
	}
	if t.counters == nil {
		t.counters = map[string]*portCounters{}
	}
	c := t.counters[port]
	if c == nil {
		c = newPortCounters()
		t.counters[port] = c
	}
	return c, nil
}

// operational answers the GETs of operational state: the interfaces as they run (with each
// port's ECN, portqos.go), a port's counters/qos (or a part of it) and its pfc-watchdog with
// the status. ok is false for any other path, which the configuration answers.
func (t *Twin) operational(path string) (v any, found, ok bool) {
	keys := nvue.Path(path)
	if len(keys) == 0 || keys[0] != "interface" {
		return nil, false, false
	}
	if len(keys) < 3 || keys[2] != "counters" && keys[2] != "qos" || len(keys) >= 4 && keys[2] == "qos" && keys[3] == "congestion-control" {
		v, found := nvue.Lookup(operationalInterfaces(t.applied, t.opts.Ports), keys[1:]...)
		return v, found, true
	}
	port := keys[1]
	switch {
	case len(keys) >= 4 && keys[2] == "counters" && keys[3] == "qos":
		c, err := t.portCounters(port)
		if err != nil {
			return nil, false, true
		}
		tree := nvue.Tree{}
		for g, idx := range c.groups {
			members := nvue.Tree{}
			for i, fields := range idx {
				m := nvue.Tree{}
				for f, n := range fields {
					m[f] = float64(n)
				}
				members[strconv.Itoa(i)] = m
			}
			tree[g] = members
		}
		ps := nvue.Tree{}
		for dir, fields := range c.portStats {
			m := nvue.Tree{}
			for f, n := range fields {
				m[f] = float64(n)
			}
			ps[dir] = m
		}
		tree["port-stats"] = ps
		v, found := nvue.Lookup(tree, keys[4:]...)
		if len(keys) == 4 {
			v, found = tree, true
		}
		return v, found, true
	case len(keys) == 4 && keys[2] == "qos" && keys[3] == "pfc-watchdog":
		cfg := nvue.Object(t.applied, keys...)
		if cfg == nil {
			return nil, false, true
		}
		out := nvue.Clone(cfg)
		if state, _ := cfg["state"].(string); strings.EqualFold(state, "enable") {
			c, err := t.portCounters(port)
			if err != nil {
				return nil, false, true
			}
			status := nvue.Tree{}
			for tc := range 8 {
				s := "OK"
				if c.deadlock[tc] {
					s = "DEADLOCK"
				}
				status[strconv.Itoa(tc)] = nvue.Tree{"status": s, "deadlock-count": float64(c.deadlocks[tc])}
			}
			out["status"] = status
		}
		return out, true, true
	}
	return nil, false, false
}
