package cumulus

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

// QoSMaps reads, from a Cumulus switch's applied qos tree (GET /qos?rev=applied, which
// lists only what differs from the defaults), which egress queue (traffic class) and which
// ingress priority group each switch priority has. The egress-queue-stats and
// ingress-buffer-stats of counters/qos are keyed by those, not by priority. From the Cumulus
// Linux 5.14 user guide (CumulusNetworks/docs, content/cumulus-linux-514/
// Layer-1-and-Switch-Ports/Quality-of-Service/_index.md and RDMA-over-Converged-Ethernet-RoCE.md):
//
//   - Queues: "By default switch priority values map directly to the matching egress queue"
//     ("Egress Queues"); RoCE mode maps priority 3 to 3, 6 to 6 and the rest to 0 ("Default
//     RoCE Configuration"); qos egress-queue-mapping default-global (the only profile NVUE
//     supports) switch-priority <n> traffic-class <tc> overrides either ("Change RoCE
//     Configuration" remaps on top of RoCE mode).
//   - Priority groups: the default qos_infra.conf puts every cos in priority group bulk, id 0;
//     the default-lossy traffic pool is ingress-lossy-buffer priority group bulk and mc-lossy
//     is service2 (the "Advanced Buffer Tuning" table; qos_infra.conf's example gives service2
//     id 2); advance-buffer-config default-global ingress-lossy-buffer priority-group
//     <bulk|service1-7> switch-priority assigns priorities to lossy groups, taken here as ids 0
//     and 1-7. A priority in a PFC profile or a lossless pool (default-lossless, roce-lossless,
//     RoCE lossless mode's roce-reserved pools), or in another lossy pool, has a priority group
//     whose index the guide does not give: pgOf leaves it out, and the judge does not read its
//     ingress drops.
func QoSMaps(qos nvue.Tree) (queueOf, pgOf map[int]int, err error) {
	queueOf, pgOf = map[int]int{}, map[int]int{}
	for p := range 8 {
		queueOf[p], pgOf[p] = p, 0
	}
	roce := nvue.Object(qos, "roce")
	roceOn := roce != nil && fmt.Sprint(roce["enable"]) != "off"
	if roceOn {
		for p := range 8 {
			queueOf[p] = map[int]int{3: 3, 6: 6}[p]
		}
		// Lossless modes move the PFC priority (3 unless roce pfc says) to roce-reserved pools.
		if mode, _ := roce["mode"].(string); mode == "" || strings.HasPrefix(mode, "lossless") {
			prio := 3
			if v, ok := nvue.Lookup(roce, "pfc", "pfc-priority"); ok {
				if prio, err = priorityValue(v); err != nil {
					return nil, nil, fmt.Errorf("qos roce pfc pfc-priority: %w", err)
				}
			}
			delete(pgOf, prio)
		}
	}
	for k, e := range nvue.Object(qos, "egress-queue-mapping", "default-global", "switch-priority") {
		p, err := priorityKey(k)
		if err != nil {
			return nil, nil, fmt.Errorf("qos egress-queue-mapping default-global switch-priority: %w", err)
		}
		em, _ := e.(map[string]any)
		tc, err := priorityValue(em["traffic-class"])
		if err != nil {
			return nil, nil, fmt.Errorf("qos egress-queue-mapping default-global switch-priority %d traffic-class: %w", p, err)
		}
		queueOf[p] = tc
	}
	for name, pool := range nvue.Object(qos, "traffic-pool") {
		pg, known := map[string]int{"default-lossy": 0, "mc-lossy": 2}[name]
		for k := range nvue.Object(asObject(pool), "switch-priority") {
			p, err := priorityKey(k)
			if err != nil {
				return nil, nil, fmt.Errorf("qos traffic-pool %s switch-priority: %w", name, err)
			}
			if known {
				pgOf[p] = pg
			} else {
				delete(pgOf, p)
			}
		}
	}
	// A PFC priority is buffered in the lossless pool ("Flow Control Buffers": configure the
	// lossless pool before PFC; qos_infra.conf's flow_control service pool "for lossless
	// PGs"), whose priority group index the guide does not give.
	for name, prof := range nvue.Object(qos, "pfc") {
		for k := range nvue.Object(asObject(prof), "switch-priority") {
			p, err := priorityKey(k)
			if err != nil {
				return nil, nil, fmt.Errorf("qos pfc %s switch-priority: %w", name, err)
			}
			delete(pgOf, p)
		}
	}
	for name, g := range nvue.Object(qos, "advance-buffer-config", "default-global", "ingress-lossy-buffer", "priority-group") {
		pg, ok := lossyGroupID(name)
		if !ok {
			return nil, nil, fmt.Errorf("qos advance-buffer-config ingress-lossy-buffer priority-group %q is not bulk or service1-7", name)
		}
		for k := range nvue.Object(asObject(g), "switch-priority") {
			p, err := priorityKey(k)
			if err != nil {
				return nil, nil, fmt.Errorf("qos advance-buffer-config ingress-lossy-buffer priority-group %s switch-priority: %w", name, err)
			}
			pgOf[p] = pg
		}
	}
	return queueOf, pgOf, nil
}

// PFCPriorities are the switch priorities port has PFC on in the applied configuration: those
// of the PFC profile bound to it, else of the global one (5.14 QoS guide, Port Groups: "Ports
// not in a profile use the global settings"; its PFC section configures qos pfc
// default-global), else, with RoCE in a lossless mode, the mode's PFC priority (3, or qos roce
// pfc pfc-priority: RoCE guide, Default RoCE Configuration). Nil when the port has none: the
// judge then takes its own priority.
func PFCPriorities(qos, ifaces nvue.Tree, port string) []int {
	profile, _ := nvue.Lookup(ifaces, port, "qos", "pfc", "profile")
	name, _ := profile.(string)
	if name == "" {
		name = "default-global"
	}
	var out []int
	for k := range nvue.Object(qos, "pfc", name, "switch-priority") {
		if p, err := priorityKey(k); err == nil {
			out = append(out, p)
		}
	}
	if out == nil && profile == nil && roceMode(qos) != "" && roceLosslessMode(roceMode(qos)) {
		prio := rocePriority
		if v, ok := nvue.Lookup(qos, "roce", "pfc", "pfc-priority"); ok {
			if p, err := priorityValue(v); err == nil {
				prio = p
			}
		}
		out = []int{prio}
	}
	slices.Sort(out)
	return out
}

// lossyGroupID is the id of a lossy priority group name: bulk 0, service<n> n.
func lossyGroupID(name string) (int, bool) {
	if name == "bulk" {
		return 0, true
	}
	n, err := strconv.Atoi(strings.TrimPrefix(name, "service"))
	return n, strings.HasPrefix(name, "service") && err == nil && n >= 1 && n <= 7
}

func asObject(v any) nvue.Tree {
	m, _ := v.(map[string]any)
	return m
}

// priorityKey reads a collection key "0"-"7".
func priorityKey(k string) (int, error) {
	n, err := strconv.Atoi(k)
	if err != nil || n < 0 || n > 7 {
		return 0, fmt.Errorf("%q is not 0-7", k)
	}
	return n, nil
}

// priorityValue reads a number 0-7 as JSON decodes it.
func priorityValue(v any) (int, error) {
	f, ok := v.(float64)
	if !ok || f < 0 || f > 7 || f != float64(int(f)) {
		return 0, fmt.Errorf("%v is not 0-7", v)
	}
	return int(f), nil
}
