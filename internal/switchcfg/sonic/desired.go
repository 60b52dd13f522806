package sonic

import (
	"slices"
	"strconv"
	"strings"

	sonicmodel "github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
)

// desired is what a policy asks of CONFIG_DB: entries the provider owns whole, and single
// fields it sets on entries that SONiC's templates or other tools own. Owning a whole entry
// allows one entry-level update (which on SONiC replaces the entry); a shared entry only ever
// gets field-level operations, so fields the provider does not manage survive.
type desired struct {
	entries []ownedEntry
	fields  []ownedField
}

type ownedEntry struct {
	table, key string
	value      sonicmodel.Entry
}

type ownedField struct {
	table, key, field, value string
	// replaceOnly marks a field whose GCU allowlist permits only "replace" (WRED thresholds
	// before 202511), so it is written with a replace and never deleted.
	replaceOnly bool
}

// objectNames are the CONFIG_DB keys of the objects a policy owns.
type objectNames struct {
	maps, rdmaScheduler, cnpScheduler, wred string
}

// classScheduler is the SCHEDULER of a lossless class beside the default one,
// <policy>_<class>: at most 23 + 1 + 8 characters, within the 32 sonic-yang-models allows
// (sonic-buildimage src/sonic-yang-models/yang-models/sonic-wred-profile.yang at 07a78fb9:
// name pattern [a-zA-Z0-9]{1}([-a-zA-Z0-9_]{0,31}), the same name serves the class's WRED
// profile).
func classScheduler(p switchcfg.Policy, c switchcfg.LosslessClass) string {
	return p.Name + "_" + c.Name
}

// classWRED is the WRED profile of a lossless class beside the default one: its own profile
// (named like its scheduler) where the release lets gNMI add one, else the stock lossless
// profile, which SONiC's templates bind to both stock lossless queues (3 and 4) and whose
// thresholds the class then shares with the default class (Check refuses any others).
func classWRED(p switchcfg.Policy, c switchcfg.LosslessClass, f Facts) string {
	if ownsWREDProfile(f) {
		return p.Name + "_" + c.Name
	}
	return stockWREDProfile
}

func namesFor(p switchcfg.Policy, f Facts) objectNames {
	n := objectNames{maps: p.Name, rdmaScheduler: p.Name + "_RDMA", cnpScheduler: p.Name + "_CNP", wred: stockWREDProfile}
	if ownsWREDProfile(f) {
		n.wred = p.Name + "_LOSSLESS"
	}
	return n
}

func ownsWREDProfile(f Facts) bool {
	return f.Release.AtLeast(ownedWREDFromRelease) || f.Release.IsMaster()
}

// desiredFor renders the policy for a switch with facts f.
func desiredFor(p switchcfg.Policy, f Facts) desired {
	names := namesFor(p, f)
	prio := strconv.Itoa(p.Class.Priority)
	cnpPrio := strconv.Itoa(p.Class.CNPPriority)
	var d desired

	lossless := p.LosslessPriorities()
	d.entries = append(d.entries,
		ownedEntry{tableDSCPToTC, names.maps, dscpToTC(p)},
		ownedEntry{tableTCToPG, names.maps, tcToPG(lossless)},
		ownedEntry{tableTCToQueue, names.maps, identityMap()},
		ownedEntry{tablePFCToQueue, names.maps, identityMap()},
		ownedEntry{tablePFCToPG, names.maps, pfcToPG(lossless)},
		ownedEntry{tableScheduler, names.rdmaScheduler, schedulerEntry(p.RDMA)},
		ownedEntry{tableScheduler, names.cnpScheduler, schedulerEntry(p.CNP)},
	)
	d.addWRED(p.ECN, f, names.wred)
	for _, c := range p.Lossless {
		d.entries = append(d.entries, ownedEntry{tableScheduler, classScheduler(p, c), schedulerEntry(c.Scheduler)})
		if ownsWREDProfile(f) {
			d.addWRED(c.ECN, f, classWRED(p, c, f))
		}
	}

	for _, port := range p.Ports {
		for _, field := range []string{"dscp_to_tc_map", "tc_to_queue_map", "tc_to_pg_map", "pfc_to_queue_map", "pfc_to_pg_map"} {
			d.fields = append(d.fields, ownedField{table: tablePortQoS, key: port, field: field, value: names.maps})
		}
		d.fields = append(d.fields,
			// The port's own lossless list when it has prio: narrowing it would leave
			// buffermgrd's BUFFER_PG for the old list in place (see Facts.CheckPFCEnable).
			ownedField{table: tablePortQoS, key: port, field: "pfc_enable", value: f.losslessValue(port, lossless)},
			ownedField{table: tableQueue, key: port + "|" + prio, field: "scheduler", value: names.rdmaScheduler},
			ownedField{table: tableQueue, key: port + "|" + prio, field: "wred_profile", value: names.wred},
			ownedField{table: tableQueue, key: port + "|" + cnpPrio, field: "scheduler", value: names.cnpScheduler},
			ownedField{table: tableCableLength, key: cableLengthKey, field: port, value: strconv.Itoa(p.CableLengthM) + "m"},
		)
		for _, c := range p.Lossless {
			queue := port + "|" + strconv.Itoa(c.Priority)
			d.fields = append(d.fields,
				ownedField{table: tableQueue, key: queue, field: "scheduler", value: classScheduler(p, c)},
				ownedField{table: tableQueue, key: queue, field: "wred_profile", value: classWRED(p, c, f)},
			)
		}
		if w := p.Watchdog; w != nil {
			d.fields = append(d.fields,
				ownedField{table: tablePortQoS, key: port, field: "pfcwd_sw_enable", value: priorityList(lossless)},
				ownedField{table: tablePFCWatchdog, key: port, field: "action", value: w.Action},
				ownedField{table: tablePFCWatchdog, key: port, field: "detection_time", value: strconv.Itoa(w.DetectionTimeMs)},
				ownedField{table: tablePFCWatchdog, key: port, field: "restoration_time", value: strconv.Itoa(w.RestoreTimeMs)},
			)
		}
	}
	return d
}

// addWRED writes ECN marking into profile: an owned entry (sonic-wred-profile.yang: ecn
// ecn_all, green thresholds in bytes, probability in percent) where the release lets gNMI add
// one, else the stock profile's thresholds replaced in place.
func (d *desired) addWRED(ecn switchcfg.ECN, f Facts, profile string) {
	thresholds := [][2]string{
		{"green_min_threshold", strconv.FormatInt(ecn.MinBytes, 10)},
		{"green_max_threshold", strconv.FormatInt(ecn.MaxBytes, 10)},
		{"green_drop_probability", strconv.Itoa(ecn.MarkProbabilityPercent)},
	}
	if ownsWREDProfile(f) {
		e := sonicmodel.Entry{"ecn": "ecn_all", "wred_green_enable": "false"}
		for _, t := range thresholds {
			e[t[0]] = t[1]
		}
		d.entries = append(d.entries, ownedEntry{tableWRED, profile, e})
		return
	}
	for _, t := range thresholds {
		d.fields = append(d.fields, ownedField{table: tableWRED, key: profile, field: t[0], value: t[1], replaceOnly: true})
	}
}

// dscpToTC maps the RDMA DSCPs to the RDMA priority, each lossless class's DSCPs to its
// priority, the CNP DSCP to the CNP priority and everything else to TC 0. SONiC's stock AZURE map sends DSCP 26 to TC 1 (lossy), which is why
// the provider owns its own map.
func dscpToTC(p switchcfg.Policy) sonicmodel.Entry {
	e := sonicmodel.Entry{}
	for d := range 64 {
		e[strconv.Itoa(d)] = "0"
	}
	for _, d := range p.Class.DSCP {
		e[strconv.Itoa(d)] = strconv.Itoa(p.Class.Priority)
	}
	for _, c := range p.Lossless {
		for _, d := range c.DSCP {
			e[strconv.Itoa(d)] = strconv.Itoa(c.Priority)
		}
	}
	e[strconv.Itoa(p.Class.CNPDSCP)] = strconv.Itoa(p.Class.CNPPriority)
	return e
}

// tcToPG puts each lossless priority in its own priority group, as SONiC's stock AZURE map
// does for 3 and 4 (qos_config.j2), and every other traffic class in PG 0.
func tcToPG(lossless []int) sonicmodel.Entry {
	e := sonicmodel.Entry{}
	for tc := range 8 {
		e[strconv.Itoa(tc)] = "0"
	}
	for _, prio := range lossless {
		e[strconv.Itoa(prio)] = strconv.Itoa(prio)
	}
	return e
}

// pfcToPG maps each lossless priority's PFC frames to its own priority group (stock AZURE:
// {"3": "3", "4": "4"}, qos_config.j2).
func pfcToPG(lossless []int) sonicmodel.Entry {
	e := sonicmodel.Entry{}
	for _, prio := range lossless {
		e[strconv.Itoa(prio)] = strconv.Itoa(prio)
	}
	return e
}

// priorityList is a pfc_enable value: the priorities ascending, comma-separated ("3,4"), as
// SONiC's own templates write it (sonic-buildimage files/build_templates/qos_config.j2 at
// 0791705b: LOSSLESS_TC = ['3','4']) and sonic-port-qos-map.yang (at cef6bd26) allows for
// pfc_enable and pfcwd_sw_enable: pattern ([0-7](,[0-7])*)?.
func priorityList(prios []int) string {
	sorted := slices.Clone(prios)
	slices.Sort(sorted)
	parts := make([]string, len(sorted))
	for i, p := range sorted {
		parts[i] = strconv.Itoa(p)
	}
	return strings.Join(parts, ",")
}

func identityMap() sonicmodel.Entry {
	e := sonicmodel.Entry{}
	for i := range 8 {
		e[strconv.Itoa(i)] = strconv.Itoa(i)
	}
	return e
}

func schedulerEntry(s switchcfg.Scheduler) sonicmodel.Entry {
	if s.Mode == switchcfg.SchedulerStrict {
		return sonicmodel.Entry{"type": "STRICT"}
	}
	return sonicmodel.Entry{"type": "DWRR", "weight": strconv.Itoa(s.Weight)}
}
