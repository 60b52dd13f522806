package sonic

import (
	"strconv"

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

	d.entries = append(d.entries,
		ownedEntry{tableDSCPToTC, names.maps, dscpToTC(p)},
		ownedEntry{tableTCToPG, names.maps, tcToPG(p.Class.Priority)},
		ownedEntry{tableTCToQueue, names.maps, identityMap()},
		ownedEntry{tablePFCToQueue, names.maps, identityMap()},
		ownedEntry{tablePFCToPG, names.maps, sonicmodel.Entry{prio: prio}},
		ownedEntry{tableScheduler, names.rdmaScheduler, schedulerEntry(p.RDMA)},
		ownedEntry{tableScheduler, names.cnpScheduler, schedulerEntry(p.CNP)},
	)
	d.addWRED(p, f, names.wred)

	for _, port := range p.Ports {
		for _, field := range []string{"dscp_to_tc_map", "tc_to_queue_map", "tc_to_pg_map", "pfc_to_queue_map", "pfc_to_pg_map"} {
			d.fields = append(d.fields, ownedField{table: tablePortQoS, key: port, field: field, value: names.maps})
		}
		d.fields = append(d.fields,
			// The port's own lossless list when it has prio: narrowing it would leave
			// buffermgrd's BUFFER_PG for the old list in place (see Facts.CheckPFCEnable).
			ownedField{table: tablePortQoS, key: port, field: "pfc_enable", value: f.losslessValue(port, p.Class.Priority)},
			ownedField{table: tableQueue, key: port + "|" + prio, field: "scheduler", value: names.rdmaScheduler},
			ownedField{table: tableQueue, key: port + "|" + prio, field: "wred_profile", value: names.wred},
			ownedField{table: tableQueue, key: port + "|" + cnpPrio, field: "scheduler", value: names.cnpScheduler},
			ownedField{table: tableCableLength, key: cableLengthKey, field: port, value: strconv.Itoa(p.CableLengthM) + "m"},
		)
		if w := p.Watchdog; w != nil {
			d.fields = append(d.fields,
				ownedField{table: tablePortQoS, key: port, field: "pfcwd_sw_enable", value: prio},
				ownedField{table: tablePFCWatchdog, key: port, field: "action", value: w.Action},
				ownedField{table: tablePFCWatchdog, key: port, field: "detection_time", value: strconv.Itoa(w.DetectionTimeMs)},
				ownedField{table: tablePFCWatchdog, key: port, field: "restoration_time", value: strconv.Itoa(w.RestoreTimeMs)},
			)
		}
	}
	return d
}

func (d *desired) addWRED(p switchcfg.Policy, f Facts, profile string) {
	thresholds := [][2]string{
		{"green_min_threshold", strconv.FormatInt(p.ECN.MinBytes, 10)},
		{"green_max_threshold", strconv.FormatInt(p.ECN.MaxBytes, 10)},
		{"green_drop_probability", strconv.Itoa(p.ECN.MarkProbabilityPercent)},
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

// dscpToTC maps the RDMA DSCPs to the RDMA priority, the CNP DSCP to the CNP priority and
// everything else to TC 0. SONiC's stock AZURE map sends DSCP 26 to TC 1 (lossy), which is why
// the provider owns its own map.
func dscpToTC(p switchcfg.Policy) sonicmodel.Entry {
	e := sonicmodel.Entry{}
	for d := range 64 {
		e[strconv.Itoa(d)] = "0"
	}
	for _, d := range p.Class.DSCP {
		e[strconv.Itoa(d)] = strconv.Itoa(p.Class.Priority)
	}
	e[strconv.Itoa(p.Class.CNPDSCP)] = strconv.Itoa(p.Class.CNPPriority)
	return e
}

func tcToPG(priority int) sonicmodel.Entry {
	e := sonicmodel.Entry{}
	for tc := range 8 {
		e[strconv.Itoa(tc)] = "0"
	}
	e[strconv.Itoa(priority)] = strconv.Itoa(priority)
	return e
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
