package cumulus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// Backend is the backend for switches running NVIDIA Cumulus Linux: it reads the applied
// configuration and applies each change as one NVUE revision. Cumulus 5.9 to 5.14 (5.15 renamed
// the enable/disable values the backend writes).
type Backend struct {
	client *nvue.Client
}

// New returns a backend on client.
func New(client *nvue.Client) *Backend { return &Backend{client: client} }

var _ switchcfg.Backend = (*Backend)(nil)

// nvueObservation is one refresh: the applied qos and interface trees and the release.
type nvueObservation struct {
	release string // "5.12"
	qos     nvue.Tree
	ifaces  nvue.Tree // the applied configuration's: only what someone configured
	// links are the interfaces as they run (rev=operational): every port, with its type and
	// its real link speed, which the applied configuration has only where someone set them
	// ("auto" by default, NVUE OpenAPI 5.3 schema-common-if-link-common-link-config).
	links nvue.Tree
}

// tree is the part of the configuration the backend reads, rooted as the API roots it.
func (o nvueObservation) tree() nvue.Tree { return nvue.Tree{"qos": o.qos, "interface": o.ifaces} }

var cumulusRelease = regexp.MustCompile(`\b5\.(\d+)`)

// Observe reads the applied configuration in one GET of the root, whose header carries the
// release on every 5.x ("header": {"version": "Cumulus Linux 5.12.0"}, NVUE API guide and
// the 5.5.1 workshop output); nv show system version exists only from 5.10.
func (b *Backend) Observe(ctx context.Context) (switchcfg.Observation, error) {
	raw, err := b.client.Get(ctx, "", nvue.RevApplied)
	if err != nil {
		return nil, fmt.Errorf("read the applied configuration of %s: %w", b.client.Address(), err)
	}
	tree, err := nvue.DecodeTree(raw)
	if err != nil {
		return nil, fmt.Errorf("read the applied configuration of %s: %w", b.client.Address(), err)
	}
	version, _ := nvue.Lookup(tree, "header", "version")
	m := cumulusRelease.FindStringSubmatch(fmt.Sprint(version))
	if m == nil {
		return nil, fmt.Errorf("switch %s: cannot tell the Cumulus release from the header version %v", b.client.Address(), version)
	}
	raw, err = b.client.Get(ctx, "interface", nvue.RevOperational)
	if err != nil {
		return nil, fmt.Errorf("read the interfaces of %s: %w", b.client.Address(), err)
	}
	links, err := nvue.DecodeTree(raw)
	if err != nil {
		return nil, fmt.Errorf("read the interfaces of %s: %w", b.client.Address(), err)
	}
	return nvueObservation{release: "5." + m[1], qos: nvue.Object(tree, "qos"), ifaces: nvue.Object(tree, "interface"), links: links}, nil
}

// Apply stages c in one revision and applies it.
func (b *Backend) Apply(ctx context.Context, changes switchcfg.Changes) (string, error) {
	c, ok := changes.(*nvueChanges)
	if !ok {
		return "", fmt.Errorf("switch %s: changes of type %T were not planned by the NVUE backend", b.client.Address(), changes)
	}
	if c.Empty() {
		return "", nil
	}
	if _, err := b.client.Transaction(ctx, c.patch); err != nil {
		var se *nvue.SaveError
		if errors.As(err, &se) { // applied: the switch holds all of it
			return se.Error(), nil
		}
		return "", &switchcfg.ApplyError{Err: err, Unsettled: !nvue.Settled(err)}
	}
	return "", nil
}

func (o nvueObservation) Describe() string { return "Cumulus Linux " + o.release }

func (o nvueObservation) minor() int {
	n, _ := strconv.Atoi(strings.TrimPrefix(o.release, "5."))
	return n
}

// Check applies the rules that need the switch: a release whose NVUE the backend speaks, the
// ports exist, Cumulus' own RoCE mode is off or lossless (roce.go), the cable length is one NVUE
// takes, and the ECN band for the fastest port.
func (o nvueObservation) Check(p switchcfg.Policy, speedOverride int) (fabric.Headroom, violation.List) {
	var fs violation.List
	if minor := o.minor(); minor < 9 || minor > 14 {
		return fabric.Headroom{}, violation.List{switchcfg.ErrorAt(switchcfg.FieldOS, "Unsupported Cumulus Release", func(n violation.Names) string {
			return fmt.Sprintf("The switch runs Cumulus Linux %s; the provider configures 5.9 to 5.14 (5.15 renamed the enable/disable values of NVUE's QoS settings). Use %s = \"cumulus\" on 5.9 to 5.14.", o.release, n(switchcfg.FieldOS))
		})}
	}
	for i, port := range p.Ports {
		if nvue.Object(o.links, port)["type"] != "swp" {
			fs = append(fs, switchcfg.ErrorAt(switchcfg.FieldPorts.Elem(i), "Unknown Port", func(n violation.Names) string {
				return fmt.Sprintf("%s is %q, which the switch (Cumulus Linux %s) has no switch port of; check the name (swp1, swp2, swp1s0 on a breakout).", n(switchcfg.FieldPorts.Elem(i)), port, o.release)
			}))
		}
	}
	fs = append(fs, roceChecks(o.roce(), p)...)
	if p.CableLengthM < 1 {
		fs = append(fs, switchcfg.ErrorAt(switchcfg.FieldCableLength, "Cable Length Out of Range", func(n violation.Names) string {
			return fmt.Sprintf("%s is %d; NVUE's PFC cable-length is 1 to 100000 m: give the real cable length.", n(switchcfg.FieldCableLength), p.CableLengthM)
		}))
	}
	if p.Watchdog != nil {
		fs = append(fs, switchcfg.WarningAt(switchcfg.FieldWatchdog, "Watchdog Times Set by Cumulus", func(n violation.Names) string {
			return fmt.Sprintf("On Cumulus the PFC watchdog is switched on per port; it detects a storm after robustness x polling-interval (%v x %v ms on this switch) and restores by itself, so %s's action and times are not written.",
				nvueValue(o.qos, "pfc-watchdog", "robustness"), nvueValue(o.qos, "pfc-watchdog", "polling-interval"), n(switchcfg.FieldWatchdog))
		}))
	}
	if fs.HasErrors() {
		return fabric.Headroom{}, fs
	}
	speed := o.fastest(p.Ports, speedOverride)
	h, err := fabric.ComputeHeadroom(fabric.Port{SpeedGbps: speed, CableLengthM: float64(p.CableLengthM), MTU: 9216}, fabric.WorstCasePattern(), fabric.HeadroomModel{})
	if err != nil {
		fs = append(fs, switchcfg.ErrorAt(switchcfg.FieldPorts, "Cannot Compute Headroom", func(violation.Names) string {
			return err.Error()
		}))
	}
	fs = append(fs, fabric.CheckECNForSpeed(p.ECN.MinBytes, speed)...)
	return h, fs
}

// roce is the switch's RoCE mode, "" when it is off (roceMode).
func (o nvueObservation) roce() string { return roceMode(o.qos) }

func nvueValue(t nvue.Tree, keys ...string) any {
	v, _ := nvue.Lookup(t, keys...)
	return v
}

// fastest is the highest link speed of the ports in Gb/s ("400G"), speedOverride when set.
func (o nvueObservation) fastest(ports []string, speedOverride int) int {
	if speedOverride > 0 {
		return speedOverride
	}
	best := 0
	for _, port := range ports {
		s, _ := nvue.Lookup(o.links, port, "link", "speed")
		n, _ := strconv.Atoi(strings.TrimSuffix(fmt.Sprint(s), "G"))
		best = max(best, n)
	}
	return best
}

// Headroom is the Spectrum-4 worst-case estimate for the fastest port: Cumulus sizes the
// headroom itself from the PFC cable-length.
func (o nvueObservation) Headroom(p switchcfg.Policy, speedOverride int) fabric.Headroom {
	h, _ := fabric.ComputeHeadroom(fabric.Port{SpeedGbps: o.fastest(p.Ports, speedOverride), CableLengthM: float64(p.CableLengthM), MTU: 9216}, fabric.WorstCasePattern(), fabric.HeadroomModel{})
	return h
}

func (o nvueObservation) PlanUpdate(prior *switchcfg.Policy, p switchcfg.Policy, snap switchcfg.Snapshot) (switchcfg.Changes, error) {
	cur := o.tree()
	c := newNVUEChanges()
	next := nvueDesiredFor(p, o.roce())
	if prior != nil {
		c.restoreDropped(cur, o.desiredAcross(*prior, snap), next, snap)
	}
	c.converge(cur, next)
	return c, nil
}

// desiredAcross is p's desired state in the switch's RoCE mode, with what p holds in the other
// one, for a switch whose RoCE mode was turned on or off since the last apply: that mode's owned
// subtrees, which are removed where they exist, and those of its shared settings that snap
// recorded and that still hold what p wrote, which are restored where the traffic pools then
// still fit in the buffer (RoCE mode's own pool may have taken the memory: RoCE guide 5.14,
// Change RoCE Configuration). A pool setting an operator has changed since is theirs.
func (o nvueObservation) desiredAcross(p switchcfg.Policy, snap switchcfg.Snapshot) nvueDesired {
	mode, other := o.roce(), roceLossless
	if roceLosslessMode(mode) {
		other = ""
	}
	d := nvueDesiredFor(p, mode)
	alt := nvueDesiredFor(p, other)
	roots := map[string]bool{}
	for _, r := range d.roots {
		roots[strings.Join(r, "/")] = true
	}
	for _, r := range alt.roots {
		if !roots[strings.Join(r, "/")] {
			d.roots = append(d.roots, r)
		}
	}
	shared := map[string]bool{}
	for _, l := range d.shared {
		shared[l.key()] = true
	}
	cur := o.tree()
	for _, l := range alt.shared {
		if _, recorded := snap[l.key()]; !recorded || shared[l.key()] {
			continue
		}
		have, ok := nvue.Lookup(cur, l.path...)
		if ok && sameValue(have, l.value) && poolsFit(cur, restored(l, snap)) {
			d.shared = append(d.shared, l)
		}
	}
	return d
}

// sharedEither is the shared settings p changes with RoCE mode off or on, each once.
func sharedEither(p switchcfg.Policy) []nvueLeaf {
	out := nvueDesiredFor(p, "").shared
	seen := map[string]bool{}
	for _, l := range out {
		seen[l.key()] = true
	}
	for _, l := range nvueDesiredFor(p, roceLossless).shared {
		if !seen[l.key()] {
			out = append(out, l)
		}
	}
	return out
}

// poolsFit reports whether the traffic pools of cur, with l set, take at most 100 % of the
// memory together, as NVUE requires (5.14 QoS guide, Flow Control Buffers); true for a leaf
// that is not a pool's memory.
func poolsFit(cur nvue.Tree, l nvueLeaf) bool {
	if len(l.path) != 4 || l.path[1] != "traffic-pool" || l.path[3] != "memory-percent" {
		return true
	}
	total := asFloat(l.value)
	for name := range nvue.Object(cur, "qos", "traffic-pool") {
		if name != l.path[2] {
			total += asFloat(nvueValue(cur, "qos", "traffic-pool", name, "memory-percent"))
		}
	}
	return total <= 100
}

// restoreDropped puts back what prior owned or shared and p does not: owned subtrees are
// removed, shared settings restored from snap.
func (c *nvueChanges) restoreDropped(cur nvue.Tree, prior, next nvueDesired, snap switchcfg.Snapshot) {
	keep := map[string]bool{}
	for _, r := range next.roots {
		keep[strings.Join(r, "/")] = true
	}
	for _, r := range prior.roots {
		if !keep[strings.Join(r, "/")] {
			c.put(cur, nvueLeaf{path: r, absent: true})
		}
	}
	nextShared := map[string]bool{}
	for _, l := range next.shared {
		nextShared[l.key()] = true
	}
	for _, l := range prior.shared {
		if !nextShared[l.key()] && !isPortType(l) {
			c.put(cur, restored(l, snap))
		}
	}
}

// isPortType reports the type of an interface, which a restore leaves: an interface whose
// type goes must lose all of its configuration with it (Removal's bare ports).
func isPortType(l nvueLeaf) bool {
	return len(l.path) == 3 && l.path[0] == "interface" && l.path[2] == "type"
}

// restored is the value of a shared leaf before the policy changed it: from snap, or Cumulus'
// default when snap is nil (an import).
func restored(l nvueLeaf, snap switchcfg.Snapshot) nvueLeaf {
	if snap == nil {
		v, ok := nvueDefault(l)
		return nvueLeaf{path: l.path, value: v, absent: !ok}
	}
	raw, ok := snap[l.key()]
	if !ok {
		return nvueLeaf{path: l.path, absent: true}
	}
	var v any
	_ = json.Unmarshal([]byte(raw), &v)
	return nvueLeaf{path: l.path, value: v}
}

// Snapshot records the shared settings p changes in either RoCE mode (sharedEither), so a
// resource made while RoCE mode is on still knows the pool it finds if RoCE is turned off later.
func (o nvueObservation) Snapshot(prior *switchcfg.Policy, p switchcfg.Policy, snap switchcfg.Snapshot) switchcfg.Snapshot {
	out := switchcfg.Snapshot{}
	for k, v := range snap {
		out[k] = v
	}
	seen := map[string]bool{}
	if prior != nil {
		for _, l := range sharedEither(*prior) {
			seen[l.key()] = true
			// An imported resource (snap nil) restores Cumulus' defaults of what prior set.
			if v, ok := nvueDefault(l); ok && snap == nil {
				raw, _ := json.Marshal(v)
				out[l.key()] = string(raw)
			}
		}
	}
	cur := o.tree()
	// A new resource (prior nil) on a switch that already holds the policy's own profiles
	// follows an earlier apply of it that ended before it could record anything (an
	// interrupted create): the shared settings may hold its values, and what they held before
	// is lost, so the restore point is Cumulus' default, as after an import.
	leftover := false
	if prior == nil {
		_, err := o.Decode(p.Name, p.Ports, p)
		leftover = !errors.Is(err, switchcfg.ErrNotFound)
	}
	for _, l := range sharedEither(p) {
		if _, recorded := snap[l.key()]; seen[l.key()] || recorded {
			continue
		}
		v, ok := nvue.Lookup(cur, l.path...)
		if leftover {
			v, ok = nvueDefault(l)
		}
		if ok {
			raw, _ := json.Marshal(v)
			out[l.key()] = string(raw)
		}
	}
	return out
}

func (o nvueObservation) Removal(p switchcfg.Policy, snap switchcfg.Snapshot) (switchcfg.Changes, error) {
	cur := o.tree()
	c := newNVUEChanges()
	d := o.desiredAcross(p, snap)
	// A port's qos object that holds only this policy's bindings goes as a whole, so the
	// interface is left as it was before.
	whole := map[string]bool{}
	bound := []string{"mapping", "egress-scheduler", "pfc", "congestion-control"}
	if p.Watchdog != nil {
		bound = append(bound, "pfc-watchdog")
	}
	// One that then holds nothing but the type this policy set goes whole too.
	for _, port := range p.Ports {
		only := true
		for k := range nvue.Object(o.ifaces, port, "qos") {
			only = only && slices.Contains(bound, k)
		}
		if !only {
			continue
		}
		whole[port] = true
		rest := 0
		for k := range nvue.Object(o.ifaces, port) {
			if k != "qos" && k != "type" {
				rest++
			}
		}
		if _, typed := snap[strings.Join([]string{"interface", port, "type"}, "/")]; rest == 0 && snap != nil && !typed {
			c.put(cur, nvueLeaf{path: []string{"interface", port}, absent: true})
			continue
		}
		c.put(cur, nvueLeaf{path: []string{"interface", port, "qos"}, absent: true})
	}
	for _, r := range d.roots {
		if r[0] == "interface" && whole[r[1]] {
			continue
		}
		c.put(cur, nvueLeaf{path: r, absent: true})
	}
	for _, l := range d.shared {
		if isPortType(l) {
			continue
		}
		c.put(cur, restored(l, snap))
	}
	return c, nil
}

// Decode reads the policy back from the profiles called name. What NVUE does not hold (the
// pause threshold, the watchdog's times, the ECN bits) comes from prior.
func (o nvueObservation) Decode(name string, ports []string, prior switchcfg.Policy) (switchcfg.Policy, error) {
	p := prior
	p.Name, p.Ports = name, ports
	pfc := nvue.Object(o.qos, "pfc", name)
	if nvue.Object(o.qos, "mapping", name) == nil || pfc == nil || len(ports) == 0 {
		return p, switchcfg.ErrNotFound
	}
	prios := sortedNumericKeys(nvue.Object(pfc, "switch-priority"))
	if len(prios) == 0 {
		return p, fmt.Errorf("qos pfc %s: no lossless switch priority", name)
	}
	// The default class keeps prior's priority where the profile has it; else (an import of a
	// policy on another priority) it is the lowest.
	p.Class.Priority = prios[0]
	if slices.Contains(prios, prior.Class.Priority) {
		p.Class.Priority = prior.Class.Priority
	}
	mapping := nvue.Object(o.qos, "mapping", name)
	dscps := map[int][]int{}
	cnpDSCP := -1
	for _, d := range sortedNumericKeys(nvue.Object(mapping, "dscp")) {
		sp, _ := nvue.Lookup(mapping, "dscp", strconv.Itoa(d), "switch-priority")
		f, _ := sp.(float64)
		switch sp := int(f); {
		case slices.Contains(prios, sp):
			dscps[sp] = append(dscps[sp], d)
		case sp == prior.Class.CNPPriority && cnpDSCP < 0:
			cnpDSCP = d
		}
	}
	p.Class.DSCP = dscps[p.Class.Priority]
	if cnpDSCP >= 0 {
		p.Class.CNPDSCP = cnpDSCP
	}
	if cl, ok := nvue.Lookup(pfc, "cable-length"); ok {
		f, _ := cl.(float64)
		p.CableLengthM = int(f)
	}
	p.ECN = o.decodeECN(name, p.Class.Priority)
	sched := nvue.Object(o.qos, "egress-scheduler", name, "traffic-class")
	p.RDMA = decodeNVUEScheduler(nvue.Object(sched, strconv.Itoa(p.Class.Priority)), prior.RDMA)
	p.CNP = decodeNVUEScheduler(nvue.Object(sched, strconv.Itoa(p.Class.CNPPriority)), prior.CNP)
	p.Lossless = o.decodeClasses(name, prios, p.Class.Priority, dscps, prior.Lossless)
	if state, _ := nvue.Lookup(o.ifaces, ports[0], "qos", "pfc-watchdog", "state"); state != "enable" {
		p.Watchdog = nil
	} else if p.Watchdog == nil {
		p.Watchdog = &switchcfg.Watchdog{Action: "drop", DetectionTimeMs: 200, RestoreTimeMs: 200}
	}
	return p, nil
}

// decodeECN is the congestion-control profile's band on traffic class prio.
func (o nvueObservation) decodeECN(name string, prio int) switchcfg.ECN {
	cc := nvue.Object(o.qos, "congestion-control", name, "traffic-class", strconv.Itoa(prio))
	return switchcfg.ECN{MinBytes: int64(asFloat(cc["min-threshold"])), MaxBytes: int64(asFloat(cc["max-threshold"])), MarkProbabilityPercent: int(asFloat(cc["probability"]))}
}

// decodeClasses reads the lossless classes beside the default one: every other priority of the
// PFC profile is a class, with the DSCPs the mapping sends there, the ECN band of its
// congestion-control traffic class and its egress-scheduler traffic class. NVUE holds no class
// name, so a class takes the name of prior's class on that priority, else class<prio> (an
// import); its pause threshold, which NVUE does not store, is prior's. Prior's classes come
// first in their order; one whose priority the profile lacks is left out (drift), and the
// others follow by priority.
func (o nvueObservation) decodeClasses(name string, prios []int, def int, dscps map[int][]int, prior []switchcfg.LosslessClass) []switchcfg.LosslessClass {
	sched := nvue.Object(o.qos, "egress-scheduler", name, "traffic-class")
	read := func(prio int, k switchcfg.LosslessClass) switchcfg.LosslessClass {
		k.Priority, k.ECN = prio, o.decodeECN(name, prio)
		k.Scheduler = decodeNVUEScheduler(nvue.Object(sched, strconv.Itoa(prio)), k.Scheduler)
		if got := dscps[prio]; !sameInts(got, k.DSCP) {
			k.DSCP = got
		}
		return k
	}
	var out []switchcfg.LosslessClass
	taken := map[int]bool{def: true}
	for _, k := range prior {
		if k.Priority == def || taken[k.Priority] || !slices.Contains(prios, k.Priority) {
			continue
		}
		taken[k.Priority] = true
		out = append(out, read(k.Priority, k))
	}
	for _, prio := range prios {
		if !taken[prio] {
			out = append(out, read(prio, switchcfg.LosslessClass{Name: "class" + strconv.Itoa(prio)}))
		}
	}
	return out
}

// sameInts reports whether a and b hold the same values in any order.
func sameInts(a, b []int) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func decodeNVUEScheduler(t nvue.Tree, prior switchcfg.Scheduler) switchcfg.Scheduler {
	switch t["mode"] {
	case "strict":
		return switchcfg.Scheduler{Mode: switchcfg.SchedulerStrict, Weight: prior.Weight}
	case "dwrr":
		return switchcfg.Scheduler{Mode: switchcfg.SchedulerDWRR, Weight: int(asFloat(t["bw-percent"]))}
	}
	return prior
}

func asFloat(v any) float64 {
	f, _ := v.(float64)
	return f
}

func sortedNumericKeys(t nvue.Tree) []int {
	var out []int
	for k := range t {
		if n, err := strconv.Atoi(k); err == nil {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// CheckLossless reads, in the applied configuration, whether every port is bound to a PFC
// profile with every lossless priority of p, and a lossless traffic pool has memory: without
// either, Cumulus drops that class's traffic instead of pausing it. A PFC profile's priorities
// are the lossless ones; a lossless pool lists none of its own (5.14 QoS guide, Priority Flow
// Control and Flow Control Buffers). RoCE lossless mode brings its own pool (roce.go). A port
// missing several priorities is reported once, naming them all.
func (o nvueObservation) CheckLossless(p switchcfg.Policy) []switchcfg.LosslessProblem {
	var pool string
	for _, name := range []string{nvueLosslessPool, "roce-lossless"} {
		if v, ok := nvue.Lookup(o.qos, "traffic-pool", name, "memory-percent"); ok && asFloat(v) > 0 {
			pool = name
		}
	}
	if mode := o.roce(); pool == "" && roceLosslessMode(mode) {
		pool = "RoCE " + mode + " mode's own" // "Switch priority 3 allocated to RoCE lossless traffic pool"
	}
	var out []switchcfg.LosslessProblem
	for _, port := range p.Ports {
		profile, _ := nvue.Lookup(o.ifaces, port, "qos", "pfc", "profile")
		name, _ := profile.(string)
		var missing []string
		for _, prio := range p.LosslessPriorities() {
			if _, has := nvue.Lookup(o.qos, "pfc", name, "switch-priority", strconv.Itoa(prio)); !has {
				missing = append(missing, strconv.Itoa(prio))
			}
		}
		switch {
		case len(missing) > 0:
			out = append(out, switchcfg.LosslessProblem{Port: port, Fatal: true, Detail: fmt.Sprintf(
				"%s has no PFC profile with switch priority %s (bound: %q), so that traffic is dropped instead of paused.", port, strings.Join(missing, ", "), name)})
		case pool == "":
			out = append(out, switchcfg.LosslessProblem{Port: port, Fatal: true, Detail: fmt.Sprintf(
				"no lossless traffic pool (%s) has memory, so %s has no buffer to pause switch priority %s into and drops it instead.", nvueLosslessPool, port, prioList(p))})
		}
	}
	return out
}

// prioList is p's lossless priorities, "3" or "3, 4".
func prioList(p switchcfg.Policy) string {
	parts := make([]string, 0, len(p.Lossless)+1)
	for _, prio := range p.LosslessPriorities() {
		parts = append(parts, strconv.Itoa(prio))
	}
	return strings.Join(parts, ", ")
}
