package cumulus

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
)

// nvueLeaf is one setting of NVUE's tree: a value (a string, a number, or member{} for a
// collection member such as a switch priority in a PFC profile), or absent (remove).
type nvueLeaf struct {
	path   []string
	value  any
	absent bool
}

func (l nvueLeaf) key() string { return strings.Join(l.path, "/") }

// nvueMember is the value of a collection member that carries nothing ("switch-priority": {"3": {}}).
type nvueMember = map[string]any

// nvueDesired is what a policy needs on a Cumulus switch: its own profiles, named after the
// policy and bound to its ports (owned: removed on destroy, and any setting in them the policy
// does not make is removed), plus settings of the switch's shared objects (egress queue mapping,
// traffic pools) that are recorded first and restored on destroy.
type nvueDesired struct {
	owned  []nvueLeaf
	roots  [][]string // owned subtrees, exactly as owned lists them
	shared []nvueLeaf
}

// The lossless traffic pool: default-lossless is "the traffic pool for lossless traffic when
// you enable flow control", roce-lossless that of RoCE mode (NVUE command reference, qos
// traffic-pool; the 5.14 QoS guide's Flow Control Buffers gives it memory before PFC is set).
// It takes no switch priorities: which are lossless comes from the PFC profiles, and NVIDIA's
// own examples set only its memory (5.14 RoCE guide, Change RoCE Configuration), which is
// split 50/50 with the lossy pool as RoCE lossless mode does.
const (
	nvueLosslessPool   = "default-lossless"
	nvueLossyPool      = "default-lossy"
	nvuePoolPercent    = 50.0
	nvueDefaultProfile = "default-global"
	// Cumulus' default ECN band on traffic class 0, in bytes.
	nvueDefaultECNMin = 150000
	nvueDefaultECNMax = 1500000
)

func num(v int) float64 { return float64(v) }

// nvueDesiredFor is what p needs on a switch whose RoCE mode is roce ("" when off, roceMode):
// in RoCE lossless mode no traffic pool, the mode's own serving the lossless priority (roce.go).
func nvueDesiredFor(p switchcfg.Policy, roce string) nvueDesired {
	var d nvueDesired
	own := func(v any, path ...string) { d.owned = append(d.owned, nvueLeaf{path: path, value: v}) }
	root := func(path ...string) { d.roots = append(d.roots, path) }
	share := func(v any, absent bool, path ...string) {
		d.shared = append(d.shared, nvueLeaf{path: path, value: v, absent: absent})
	}
	cnp := strconv.Itoa(p.Class.CNPPriority)
	classes := nvueClasses(p)

	// DSCP trust: every code point mapped, each lossless class's to its priority, the CNP one
	// to the CNP priority, the rest to 0, as the SONiC backend's map does.
	root("qos", "mapping", p.Name)
	own("l3", "qos", "mapping", p.Name, "trust")
	for dscp := range 64 {
		sp := 0
		for _, k := range classes {
			if slices.Contains(k.dscp, dscp) {
				sp = k.prio
			}
		}
		if dscp == p.Class.CNPDSCP {
			sp = p.Class.CNPPriority
		}
		own(num(sp), "qos", "mapping", p.Name, "dscp", strconv.Itoa(dscp), "switch-priority")
	}
	// Switch priority n to traffic class n for every class and the CNPs: egress-queue-mapping
	// exists only as default-global (5.14 QoS guide), so it is shared.
	for _, n := range append(classPriorities(classes), p.Class.CNPPriority) {
		sp := strconv.Itoa(n)
		share(num(n), false, "qos", "egress-queue-mapping", nvueDefaultProfile, "switch-priority", sp, "traffic-class")
	}

	// ETS: each lossless class and the CNPs on their traffic class (5.14 QoS guide, Egress
	// Scheduling: a port group's traffic-class <n> mode dwrr|strict, bw-percent 1 to 100).
	root("qos", "egress-scheduler", p.Name)
	left := 100
	scheds := make([]nvueClass, 0, len(classes)+1)
	scheds = append(scheds, classes...)
	scheds = append(scheds, nvueClass{prio: p.Class.CNPPriority, sched: p.CNP})
	for _, k := range scheds {
		tc := strconv.Itoa(k.prio)
		if k.sched.Mode == switchcfg.SchedulerStrict {
			own("strict", "qos", "egress-scheduler", p.Name, "traffic-class", tc, "mode")
			continue
		}
		own("dwrr", "qos", "egress-scheduler", p.Name, "traffic-class", tc, "mode")
		own(num(k.sched.Weight), "qos", "egress-scheduler", p.Name, "traffic-class", tc, "bw-percent")
		left -= k.sched.Weight
	}
	restOnZero := !slices.Contains(classPriorities(classes), 0) && cnp != "0"
	if left >= 1 && restOnZero { // everything else rides traffic class 0
		own("dwrr", "qos", "egress-scheduler", p.Name, "traffic-class", "0", "mode")
		own(num(left), "qos", "egress-scheduler", p.Name, "traffic-class", "0", "bw-percent")
	}

	// One PFC profile lists every lossless priority ("nv set qos pfc my_pfc_ports
	// switch-priority 3,5", 5.14 QoS guide, Port Groups, PFC): the lossless pool takes none
	// (twin rules.go, schema-qos-traffic-pool-traffic-pool-default-lossless-constraints).
	root("qos", "pfc", p.Name)
	for _, k := range classes {
		own(nvueMember{}, "qos", "pfc", p.Name, "switch-priority", strconv.Itoa(k.prio))
	}
	own(num(p.CableLengthM), "qos", "pfc", p.Name, "cable-length")
	own("enable", "qos", "pfc", p.Name, "tx")
	own("enable", "qos", "pfc", p.Name, "rx")

	// ECN per lossless class: a congestion-control traffic class each (5.14 QoS guide,
	// Congestion Control; spec schema-qos-ecn-config: min-threshold, max-threshold,
	// probability, ecn, red).
	root("qos", "congestion-control", p.Name)
	for _, k := range classes {
		cc := []string{"qos", "congestion-control", p.Name, "traffic-class", strconv.Itoa(k.prio)}
		own("enable", append(slices.Clone(cc), "ecn")...)
		own("disable", append(slices.Clone(cc), "red")...)
		own(float64(k.ecn.MinBytes), append(slices.Clone(cc), "min-threshold")...)
		own(float64(k.ecn.MaxBytes), append(slices.Clone(cc), "max-threshold")...)
		own(num(k.ecn.MarkProbabilityPercent), append(slices.Clone(cc), "probability")...)
	}
	// A port's profile replaces default-global, which marks ECN on traffic class 0 (5.14 QoS
	// guide, Congestion Control: "enables ECN by default on egress queue 0 for all ports",
	// 150000 to 1500000 bytes, RED disabled): the profile keeps that for the rest of the
	// traffic, which rides class 0.
	if restOnZero {
		tc0 := []string{"qos", "congestion-control", p.Name, "traffic-class", "0"}
		own("enable", append(slices.Clone(tc0), "ecn")...)
		own("disable", append(slices.Clone(tc0), "red")...)
		own(num(nvueDefaultECNMin), append(slices.Clone(tc0), "min-threshold")...)
		own(num(nvueDefaultECNMax), append(slices.Clone(tc0), "max-threshold")...)
		own(num(100), append(slices.Clone(tc0), "probability")...)
	}

	// Memory for the lossless pool, which the PFC profile's priority uses; RoCE lossless mode
	// has its own and refuses this one.
	if !roceLosslessMode(roce) {
		root("qos", "traffic-pool", nvueLosslessPool)
		own(nvuePoolPercent, "qos", "traffic-pool", nvueLosslessPool, "memory-percent")
		share(nvuePoolPercent, false, "qos", "traffic-pool", nvueLossyPool, "memory-percent")
	}

	for _, port := range p.Ports {
		// The applied configuration lists only interfaces someone configured, each with its
		// type, as NVIDIA's API examples write it ({"swp1": {"type": "swp", ...}}).
		share("swp", false, "interface", port, "type")
		for _, f := range []string{"mapping", "egress-scheduler", "pfc", "congestion-control"} {
			root("interface", port, "qos", f)
			own(p.Name, "interface", port, "qos", f, "profile")
		}
		if p.Watchdog != nil {
			root("interface", port, "qos", "pfc-watchdog")
			own("enable", "interface", port, "qos", "pfc-watchdog", "state")
		}
	}
	return d
}

// nvueClass is one lossless class as the NVUE objects carry it: the default class first, then
// the classes beside it in the policy's order.
type nvueClass struct {
	name  string
	prio  int
	dscp  []int
	ecn   switchcfg.ECN
	sched switchcfg.Scheduler
}

func nvueClasses(p switchcfg.Policy) []nvueClass {
	out := []nvueClass{{name: fabric.DefaultClassName, prio: p.Class.Priority, dscp: p.Class.DSCP, ecn: p.ECN, sched: p.RDMA}}
	for _, c := range p.Lossless {
		out = append(out, nvueClass{name: c.Name, prio: c.Priority, dscp: c.DSCP, ecn: c.ECN, sched: c.Scheduler})
	}
	return out
}

func classPriorities(classes []nvueClass) []int {
	out := make([]int, len(classes))
	for i, k := range classes {
		out[i] = k.prio
	}
	return out
}

// nvueDefaults are Cumulus' own values of the shared settings, restored after an import (no
// snapshot): switch priority n -> traffic class n and one lossy pool with all the memory (the
// seed of a fresh switch, CL 5.5.1 applied configuration; 5.14 QoS guide: "100% of the
// buffer memory to the default-lossy traffic pool by default").
func nvueDefault(l nvueLeaf) (any, bool) {
	k := l.path
	switch {
	case len(k) == 6 && k[1] == "egress-queue-mapping":
		n, _ := strconv.Atoi(k[4])
		return num(n), true
	case len(k) == 4 && k[1] == "traffic-pool" && k[3] == "memory-percent":
		return 100.0, true
	}
	return nil, false
}

// leaves lists every leaf under t with its path (a value, or an empty object for a member).
func leaves(t nvue.Tree, prefix []string, out map[string]nvueLeaf) {
	for k, v := range t {
		path := append(slices.Clone(prefix), k)
		if m, ok := v.(map[string]any); ok && len(m) > 0 {
			leaves(m, path, out)
			continue
		}
		out[strings.Join(path, "/")] = nvueLeaf{path: path, value: v}
	}
}

func sameValue(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// nvueText renders a leaf value for a plan line: numbers in full (1500000, not 1.5e+06).
func nvueText(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// nvueChanges is one planned revision: the merge patch to stage and its readable lines.
type nvueChanges struct {
	patch nvue.Tree
	lines []string
}

func (c *nvueChanges) Lines() []string {
	if c == nil {
		return []string{}
	}
	return slices.Clone(c.lines)
}
func (c *nvueChanges) Len() int    { return len(c.lines) }
func (c *nvueChanges) Empty() bool { return c == nil || len(c.lines) == 0 }

func newNVUEChanges() *nvueChanges { return &nvueChanges{patch: nvue.Tree{}, lines: []string{}} }

// put stages l unless cur already holds it.
func (c *nvueChanges) put(cur nvue.Tree, l nvueLeaf) {
	have, exists := nvue.Lookup(cur, l.path...)
	switch {
	case l.absent && !exists:
		return
	case l.absent:
		nvue.Set(c.patch, nil, l.path...)
		c.lines = append(c.lines, "unset "+l.key())
	case exists && sameValue(have, l.value):
		return
	default:
		nvue.Set(c.patch, l.value, l.path...)
		line := "set " + l.key()
		if _, member := l.value.(nvueMember); !member {
			line += " = " + nvueText(l.value)
		}
		c.lines = append(c.lines, line)
	}
}

// converge stages d: its leaves, and the removal of anything else inside its owned subtrees.
func (c *nvueChanges) converge(cur nvue.Tree, d nvueDesired) {
	want := map[string]bool{}
	for _, l := range d.owned {
		want[l.key()] = true
		c.put(cur, l)
	}
	for _, l := range d.shared {
		c.put(cur, l)
	}
	for _, root := range d.roots {
		sub := nvue.Object(cur, root...)
		found := map[string]nvueLeaf{}
		leaves(sub, root, found)
		keys := make([]string, 0, len(found))
		for k := range found {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		done := map[string]bool{}
		for _, k := range keys {
			if want[k] {
				continue
			}
			gone := deadPrefix(found[k].path, len(root), want)
			if g := strings.Join(gone, "/"); !done[g] {
				done[g] = true
				c.put(cur, nvueLeaf{path: gone, absent: true})
			}
		}
	}
}

// deadPrefix is the shortest part of path below its owned root (depth) under which nothing is
// wanted: a member that goes as a whole (a traffic class of a dropped lossless class) is unset
// as one, not leaf by leaf, which would leave an empty member behind that NVUE refuses ("mode
// is required for ETS traffic-class", schema-qos-ets-qos-ets-constraints).
func deadPrefix(path []string, depth int, want map[string]bool) []string {
	for n := depth + 1; n < len(path); n++ {
		prefix := strings.Join(path[:n], "/") + "/"
		alive := false
		for k := range want {
			if strings.HasPrefix(k, prefix) {
				alive = true
				break
			}
		}
		if !alive {
			return path[:n]
		}
	}
	return path
}
