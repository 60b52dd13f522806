package sonic

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	sonicmodel "github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// Facts are what the provider learns about a switch before planning.
type Facts struct {
	Release  sonicmodel.Release
	HWSKU    string
	Platform string
	Ports    map[string]PortFacts
	// BufferModel is DEVICE_METADATA|localhost buffer_model: "dynamic", or "traditional"
	// (also when the field is absent: buffermgrd.sh then starts the lookup-table daemon).
	BufferModel string
	// WatchdogGlobal reports a PFC_WD|GLOBAL row; PollIntervalMs is its POLL_INTERVAL, 0 when
	// the row has none.
	WatchdogGlobal bool
	PollIntervalMs int
	// PFCEnable is PORT_QOS_MAP|<port> pfc_enable by port, as the switch holds it.
	PFCEnable map[string]string
	// StockWREDQueues are the QUEUE keys ("Ethernet4|3") bound to the stock lossless WRED
	// profile, which releases before 202511 make the provider edit in place.
	StockWREDQueues []string
	// Dynamic is what the dynamic buffer manager sizes lossless groups from, in that model;
	// DynamicErr says why it cannot (the switch lacks a parameter, or is not Spectrum-4).
	Dynamic    sonicmodel.DynamicBuffer
	DynamicErr error
}

// Buffer models of DEVICE_METADATA buffer_model.
const (
	BufferModelTraditional = "traditional"
	BufferModelDynamic     = "dynamic"
)

// PortFacts is one front-panel port as CONFIG_DB PORT describes it.
type PortFacts struct {
	SpeedGbps int
	MTU       int
	Lanes     int
}

// factsFrom reads the facts out of a CONFIG_DB image. release, when not zero, overrides
// what the switch says (for images whose version the provider cannot read).
func factsFrom(db sonicmodel.DB, release sonicmodel.Release) (Facts, error) {
	meta, _ := db.Entry(tableDeviceMetadata, "localhost")
	f := Facts{Release: release, HWSKU: meta["hwsku"], Platform: meta["platform"], Ports: map[string]PortFacts{},
		BufferModel: BufferModelTraditional, PFCEnable: map[string]string{}}
	for key, e := range db[tableQueue] {
		if e["wred_profile"] == stockWREDProfile {
			f.StockWREDQueues = append(f.StockWREDQueues, key)
		}
	}
	slices.SortFunc(f.StockWREDQueues, sonicmodel.NaturalCompare)
	for port, e := range db[tablePortQoS] {
		if v, ok := e["pfc_enable"]; ok {
			f.PFCEnable[port] = v
		}
	}
	if meta["buffer_model"] == BufferModelDynamic {
		f.BufferModel = BufferModelDynamic
	}
	if g, ok := db.Entry(tablePFCWatchdog, "GLOBAL"); ok {
		f.WatchdogGlobal = true
		f.PollIntervalMs, _ = strconv.Atoi(g["POLL_INTERVAL"])
	}
	if f.Release.IsZero() {
		v, _ := db.Entry(tableVersions, "DATABASE")
		rel, err := sonicmodel.ParseRelease(v["VERSION"])
		if err != nil {
			return f, fmt.Errorf("cannot tell the SONiC release from VERSIONS|DATABASE %q: set sonic_release on the resource: %w", v["VERSION"], err)
		}
		f.Release = rel
	}
	for name, e := range db[tablePort] {
		speed, _ := strconv.Atoi(e["speed"])
		mtu, _ := strconv.Atoi(e["mtu"])
		if mtu == 0 {
			mtu = defaultPortMTU
		}
		f.Ports[name] = PortFacts{SpeedGbps: speed / 1000, MTU: mtu, Lanes: sonicmodel.PortLanes(e["lanes"])}
	}
	if f.BufferModel == BufferModelDynamic {
		f.Dynamic, f.DynamicErr = sonicmodel.ReadDynamicBuffer(db, f.Release)
	}
	return f, nil
}

// defaultPortMTU is SONiC's port MTU when PORT|<port> has no mtu field.
const defaultPortMTU = 9100

// PlatformModel returns the buffer model of the switch, from its platform string
// (x86_64-nvidia_sn5600-r0) or HWSKU.
func (f Facts) PlatformModel() (fabric.Platform, bool) {
	for _, candidate := range []string{f.Platform, f.HWSKU} {
		lower := strings.ToLower(candidate)
		for _, name := range fabric.PlatformNames() {
			if strings.Contains(lower, strings.ToLower(name)) {
				return fabric.LookupPlatform(name)
			}
		}
	}
	return fabric.Platform{}, false
}

// CheckPorts reports policy ports the switch does not have, with the attribute path.
func (f Facts) CheckPorts(ports []string) violation.List {
	var fs violation.List
	for i, port := range ports {
		if _, ok := f.Ports[port]; !ok {
			fs = append(fs, switchcfg.ErrorAt(switchcfg.FieldPorts.Elem(i), "Unknown Port", func(n violation.Names) string {
				return fmt.Sprintf("%s is %q, which the switch (%s) does not have in its PORT table; check the name (front-panel ports are Ethernet<lane>, e.g. Ethernet0, Ethernet8 on 8-lane ports).", n(switchcfg.FieldPorts.Elem(i)), port, f.HWSKU)
			}))
		}
	}
	return fs
}

// Headroom returns the lossless headroom of the policy's fastest port, the worst case
// the switch reserves: in the traditional model the SKU's lookup row that buffermgrd copies,
// in the dynamic model what buffermgrdyn's Mellanox script computes from the port and the
// switch's LOSSLESS_TRAFFIC_PATTERN at this release, otherwise (an unknown SKU) the formula
// with the worst-case pattern. It checks that every port's reservation fits the platform's
// ingress lossless pool. speedOverride, when positive, replaces the speeds the switch reports.
func (f Facts) Headroom(p switchcfg.Policy, speedOverride int) (fabric.Headroom, violation.List) {
	var worst fabric.Headroom
	for _, port := range p.Ports {
		pf, ok := f.Ports[port]
		if !ok {
			continue
		}
		if speedOverride > 0 {
			pf.SpeedGbps = speedOverride
		}
		if row, ok := f.LosslessRow(port, p, speedOverride); ok {
			// What buffermgrd reserves in the traditional model: the lookup row.
			if row.SizeBytes > worst.SizeBytes {
				worst = fabric.Headroom{XonBytes: row.XonBytes, XoffBytes: row.XoffBytes, SizeBytes: row.SizeBytes}
			}
			continue
		}
		var h fabric.Headroom
		var err error
		if f.BufferModel == BufferModelDynamic && f.DynamicErr == nil {
			_, h, err = f.Dynamic.LosslessProfile(f.dynamicPort(pf, p))
		} else {
			h, err = fabric.ComputeHeadroom(fabric.Port{SpeedGbps: pf.SpeedGbps, CableLengthM: float64(p.CableLengthM), MTU: pf.MTU}, fabric.WorstCasePattern(), fabric.HeadroomModel{})
		}
		if err != nil {
			at := switchcfg.FieldPorts // the port's own speed or MTU, read from the switch
			if speedOverride > 0 {
				at = switchcfg.FieldSpeedOverride
			}
			return worst, violation.List{switchcfg.ErrorAt(at, "Cannot Compute Headroom", func(violation.Names) string {
				return fmt.Sprintf("port %s: %v", port, err)
			})}
		}
		if h.SizeBytes > worst.SizeBytes {
			worst = h
		}
	}
	platform, ok := f.PlatformModel()
	if !ok {
		return worst, violation.List{switchcfg.WarningAt(switchcfg.FieldPorts, "Unknown Buffer Size", func(violation.Names) string {
			return fmt.Sprintf("the switch platform %q (HWSKU %q) is not in the provider's table of Spectrum-4 buffer pools, so the lossless reservation of %d ports was not checked against the pool.", f.Platform, f.HWSKU, len(p.Ports))
		})}
	}
	// Each lossless priority is a priority group of its own with the port's lossless profile
	// (buffermgrd writes one BUFFER_PG|<port>|3-4 for pfc_enable "3,4", and a range applies
	// its profile to each group in it), so every class reserves the headroom again.
	return worst, fabric.CheckClassesCapacity(platform, p.ClassReservations(worst.SizeBytes), len(p.Ports))
}

// dynamicPort is a port as buffermgrdyn sizes it once the policy's cable length is written.
func (f Facts) dynamicPort(pf PortFacts, p switchcfg.Policy) sonicmodel.DynamicPort {
	return sonicmodel.DynamicPort{SpeedMbps: pf.SpeedGbps * 1000, MTU: pf.MTU, Lanes: pf.Lanes, Cable: strconv.Itoa(p.CableLengthM) + "m"}
}

// FastestPort returns the highest speed in Gb/s among the policy's ports (speedOverride
// when positive), 0 when none is known.
func (f Facts) FastestPort(ports []string, speedOverride int) int {
	if speedOverride > 0 {
		return speedOverride
	}
	fastest := 0
	for _, p := range ports {
		fastest = max(fastest, f.Ports[p].SpeedGbps)
	}
	return fastest
}

// CheckWatchdog refuses watchdog times that sonic-pfcwd.yang rejects on this switch: below
// the PFC_WD|GLOBAL POLL_INTERVAL, or any time at all when the GLOBAL row has no
// POLL_INTERVAL (the must compares with nothing and fails).
func (f Facts) CheckWatchdog(p switchcfg.Policy) violation.List {
	w := p.Watchdog
	if w == nil || !f.WatchdogGlobal {
		return nil
	}
	if f.PollIntervalMs == 0 {
		return violation.List{switchcfg.ErrorAt(switchcfg.FieldWatchdog, "Switch Has No Watchdog Poll Interval", func(n violation.Names) string {
			return fmt.Sprintf("The switch (%s) has a PFC_WD|GLOBAL entry without POLL_INTERVAL, so SONiC's YANG model refuses every port's detection and restoration time. Set the poll interval on the switch (config pfcwd interval 200), or remove %s.", f.HWSKU, n(switchcfg.FieldWatchdog))
		})}
	}
	var fs violation.List
	for _, t := range []struct {
		at violation.Field
		ms int
	}{{switchcfg.FieldWatchdogDetection, w.DetectionTimeMs}, {switchcfg.FieldWatchdogRestore, w.RestoreTimeMs}} {
		if t.ms < f.PollIntervalMs {
			fs = append(fs, switchcfg.ErrorAt(t.at, "Watchdog Time Below Poll Interval", func(n violation.Names) string {
				return fmt.Sprintf("%s is %d ms, below the switch's PFC watchdog poll interval (PFC_WD|GLOBAL POLL_INTERVAL %d ms), which SONiC requires as the minimum (sonic-pfcwd.yang): use %d or more, or lower the poll interval on the switch.",
					n(t.at), t.ms, f.PollIntervalMs, f.PollIntervalMs)
			}))
		}
	}
	return fs
}

// CheckCableLength refuses a cable length for which the switch builds no lossless priority
// group, so the RDMA priority would drop instead of pause. The traditional buffer manager
// looks the port speed and cable length up in the SKU's pg_profile_lookup.ini, exactly (sonic-
// swss cfgmgr/buffermgr.cpp: "No PG profile configured for speed ... and cable length ...",
// and nothing for 0m); the dynamic one computes headroom for any length but removes the PG
// at 0m (202505 and later). speedOverride, when positive, replaces the ports' speeds.
func (f Facts) CheckCableLength(p switchcfg.Policy, speedOverride int) violation.List {
	if p.CableLengthM == 0 {
		return violation.List{switchcfg.ErrorAt(switchcfg.FieldCableLength, "No Lossless Buffer at 0 m", func(n violation.Names) string {
			return n(switchcfg.FieldCableLength) + " is 0; SONiC's buffer manager builds no lossless priority group for a 0m cable, so RDMA would be dropped instead of paused: give the real cable length."
		})}
	}
	if f.BufferModel == BufferModelDynamic {
		return f.checkDynamicBuffer()
	}
	lookup, ok := sonicmodel.LookupLossless(f.HWSKU)
	switch {
	case !ok:
		return violation.List{switchcfg.WarningAt(switchcfg.FieldCableLength, "Cable Length Not Checked", func(n violation.Names) string {
			return fmt.Sprintf("The switch's HWSKU %q has no pg_profile_lookup.ini table in the provider, so %s = %d was not checked against the rows the buffer manager can build; a length without a row leaves the ports without a lossless priority group.", f.HWSKU, n(switchcfg.FieldCableLength), p.CableLengthM)
		})}
	case lookup.Lossy:
		return violation.List{switchcfg.ErrorAt(switchcfg.FieldPorts, "Lossy SKU", func(violation.Names) string {
			return fmt.Sprintf("The switch runs %s, a lossy-RoCE SKU whose buffer templates build no lossless priority group on any port, so PFC cannot protect the RDMA priority. Use a lossless SKU (ACS-SN5600, Mellanox-SN5600-O128, -V256).", f.HWSKU)
		})}
	}
	cable := strconv.Itoa(p.CableLengthM) + "m"
	var fs violation.List
	seen := map[int]bool{}
	for _, port := range p.Ports {
		pf, ok := f.Ports[port]
		if !ok {
			continue
		}
		speed := pf.SpeedGbps * 1000
		if speedOverride > 0 {
			speed = speedOverride * 1000
		}
		if seen[speed] {
			continue
		}
		seen[speed] = true
		if _, ok := lookup.Row(speed, cable); !ok {
			cables := lookup.Cables(speed)
			fix := "no row exists at this speed"
			if len(cables) > 0 {
				fix = "use " + joinOr(cables) + " (the rows at this speed)"
			}
			fs = append(fs, switchcfg.ErrorAt(switchcfg.FieldCableLength, "No Lossless Profile for Cable Length", func(n violation.Names) string {
				return fmt.Sprintf("%s is %d; the switch (%s, traditional buffer model) builds lossless buffers only for the speed and cable rows of its pg_profile_lookup.ini, and has none for %s at %dG (port %s): buffermgrd would leave the port without a lossless priority group, dropping RDMA instead of pausing it. %s, or switch the buffer model to dynamic.",
					n(switchcfg.FieldCableLength), p.CableLengthM, f.HWSKU, cable, speed/1000, port, capitalize(fix))
			}))
		}
	}
	return fs
}

// checkDynamicBuffer refuses a dynamic-model switch whose buffer manager cannot size a lossless
// group (a parameter missing from CONFIG_DB), and warns where the provider cannot compute what
// it will reserve (not a Spectrum-4 switch).
func (f Facts) checkDynamicBuffer() violation.List {
	switch {
	case f.DynamicErr == nil:
		return nil
	case errors.Is(f.DynamicErr, sonicmodel.ErrNotSpectrum4):
		return violation.List{switchcfg.WarningAt(switchcfg.FieldPorts, "Headroom Not Computed as the Switch Does", func(violation.Names) string {
			return fmt.Sprintf("The switch (%s) runs SONiC's dynamic buffer model, whose headroom the provider computes for Spectrum-4 only: %v. headroom shows the worst-case formula instead.", f.HWSKU, f.DynamicErr)
		})}
	}
	return violation.List{switchcfg.ErrorAt(switchcfg.FieldPorts, "No Lossless Buffer on the Switch", func(violation.Names) string {
		return fmt.Sprintf("The switch (%s) runs SONiC's dynamic buffer model, but %v: its buffer manager would build no lossless priority group, so RDMA would be dropped instead of paused. Restore the parameter on the switch (it comes with the SKU's buffers_dynamic.json.j2), then plan again.", f.HWSKU, f.DynamicErr)
	})}
}

// LosslessRow returns the lookup row the traditional buffer manager uses for a port, when
// the switch runs that model and has one.
func (f Facts) LosslessRow(port string, p switchcfg.Policy, speedOverride int) (sonicmodel.LosslessRow, bool) {
	if f.BufferModel == BufferModelDynamic {
		return sonicmodel.LosslessRow{}, false
	}
	lookup, ok := sonicmodel.LookupLossless(f.HWSKU)
	pf, known := f.Ports[port]
	if !ok || !known {
		return sonicmodel.LosslessRow{}, false
	}
	speed := pf.SpeedGbps
	if speedOverride > 0 {
		speed = speedOverride
	}
	return lookup.Row(speed*1000, strconv.Itoa(p.CableLengthM)+"m")
}

// joinOr renders "5m, 40m or 300m" as "5, 40 or 300" metres.
func joinOr(cables []string) string {
	ms := make([]string, len(cables))
	for i, c := range cables {
		ms[i] = strings.TrimSuffix(c, "m")
	}
	if len(ms) == 1 {
		return ms[0]
	}
	return strings.Join(ms[:len(ms)-1], ", ") + " or " + ms[len(ms)-1]
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// losslessValue is the pfc_enable a port gets: the switch's own list when it already makes
// every lossless priority of the policy lossless, so buffermgrd's BUFFER_PG keys stay as they
// are, else the policy's priorities (a port without lossless priorities: "3", or "3,4" with a
// second class). A port whose list lacks one is refused by CheckPFCEnable.
func (f Facts) losslessValue(port string, prios []int) string {
	current := f.PFCEnable[port]
	if !slices.ContainsFunc(prios, func(p int) bool { return !priorityListHas(current, p) }) {
		return current
	}
	return priorityList(prios)
}

func priorityListHas(list string, prio int) bool {
	for _, item := range strings.Split(list, ",") {
		if item == strconv.Itoa(prio) {
			return true
		}
	}
	return false
}

// CheckPFCEnable refuses a policy whose RDMA priority is not among the lossless priorities a
// port already has. buffermgrd turns pfc_enable into BUFFER_PG keys ("3,4" -> |3-4) and never
// deletes the old one when pfc_enable changes (sonic-swss cfgmgr/buffermgr.cpp, 202411 to
// master), so any change would leave an overlapping or orphaned priority group behind.
func (f Facts) CheckPFCEnable(p switchcfg.Policy) violation.List {
	vs := f.checkPFCEnable(p, p.Class.Priority, fabric.FieldRDMAPriority, "RDMA Priority Not Lossless on the Ports")
	for i, c := range p.Lossless {
		vs = append(vs, f.checkPFCEnable(p, c.Priority, fabric.In(i, fabric.FieldClassPriority), "Class Priority Not Lossless on the Ports")...)
	}
	return vs
}

func (f Facts) checkPFCEnable(p switchcfg.Policy, prio int, at violation.Field, summary string) violation.List {
	var bad []string
	lists := map[string]bool{}
	for _, port := range p.Ports {
		current := f.PFCEnable[port]
		if current == "" || priorityListHas(current, prio) {
			continue
		}
		bad = append(bad, fmt.Sprintf("%s (pfc_enable %q)", port, current))
		lists[current] = true
	}
	if len(bad) == 0 {
		return nil
	}
	var choices []string
	for l := range lists {
		choices = append(choices, l)
	}
	slices.Sort(choices)
	return violation.List{switchcfg.ErrorAt(at, summary, func(n violation.Names) string {
		return fmt.Sprintf("%s is %d, but these ports make other priorities lossless: %s. SONiC's buffer manager derives the lossless priority groups (BUFFER_PG) from pfc_enable and never removes the old ones when it changes, so moving PFC to priority %d would leave overlapping or orphaned priority groups. "+
			"Use a priority the ports already make lossless (%s), or change pfc_enable on the switch and remove the stale BUFFER_PG entries by hand first.",
			n(at), prio, strings.Join(bad, ", "), prio, strings.Join(choices, "; "))
	})}
}

// CheckClassECN refuses, on releases whose GCU lets gNMI only replace the stock WRED profile's
// thresholds (before 202511), a lossless class whose ECN marking differs from the default
// class's: both queues can only use the stock profile, so they share one set of thresholds.
func (f Facts) CheckClassECN(p switchcfg.Policy) violation.List {
	if ownsWREDProfile(f) {
		return nil
	}
	var vs violation.List
	for i, c := range p.Lossless {
		if c.ECN == p.ECN {
			continue
		}
		at := fabric.In(i, fabric.FieldECNMin)
		vs = append(vs, switchcfg.ErrorAt(at, "Per-Class ECN Needs SONiC 202511", func(n violation.Names) string {
			return fmt.Sprintf("%s is %d (max %d, probability %d%%), but SONiC %s lets gNMI only replace the thresholds of the stock WRED profile %s, which every lossless queue shares: "+
				"give class %q the ECN values of %s (%d, %d, %d%%), or upgrade the switch to 202511 or later, where each class gets a WRED profile of its own.",
				n(at), c.ECN.MinBytes, c.ECN.MaxBytes, c.ECN.MarkProbabilityPercent, f.Release, stockWREDProfile, c.Name,
				n(fabric.FieldECNMin), p.ECN.MinBytes, p.ECN.MaxBytes, p.ECN.MarkProbabilityPercent)
		}))
	}
	return vs
}

// CheckSharedWRED warns when the policy tunes the stock WRED profile in place (releases before
// 202511, whose GCU allows only replacing its green thresholds) and other queues use it: the
// new ECN thresholds apply to them too, ports the resource does not list included.
func (f Facts) CheckSharedWRED(p switchcfg.Policy) violation.List {
	others := f.sharedWREDQueues(p)
	if len(others) == 0 {
		return nil
	}
	return violation.List{switchcfg.WarningAt(switchcfg.FieldECN, "Shared WRED Profile", func(violation.Names) string {
		return fmt.Sprintf("SONiC %s lets gNMI only replace the thresholds of the stock WRED profile %s, so the ECN settings are written there, and %d other queues use it: QUEUE %s. Their ECN marking changes too, on ports this resource does not list. From 202511 the provider writes its own profile instead.",
			f.Release, stockWREDProfile, len(others), listSome(others))
	})}
}

// sharedWREDQueues are the queues other than p's RDMA queues bound to the stock WRED profile
// that p tunes in place (releases before 202511); none when p owns its profile.
func (f Facts) sharedWREDQueues(p switchcfg.Policy) []string {
	if ownsWREDProfile(f) {
		return nil
	}
	own := map[string]bool{}
	for _, port := range p.Ports {
		for _, prio := range p.LosslessPriorities() {
			own[port+"|"+strconv.Itoa(prio)] = true
		}
	}
	var others []string
	for _, q := range f.StockWREDQueues {
		if !own[q] {
			others = append(others, q)
		}
	}
	return others
}

// listSome joins the first six items and counts the rest: "a, b, c, d, e, f and 3 more".
func listSome(items []string) string {
	if len(items) <= 6 {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:6], ", "), len(items)-6)
}
