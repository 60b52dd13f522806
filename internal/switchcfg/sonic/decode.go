package sonic

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	sonicmodel "github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
)

// decode reads back, from CONFIG_DB, the policy that name and ports describe on the switch.
// What CONFIG_DB does not hold (the PFC pause threshold, which SONiC derives itself) is taken
// from prior. Ports are read through the first one; differences on the others show up as
// drift when the decoded policy is rendered again and compared.
func decode(db sonicmodel.DB, f Facts, name string, ports []string, prior switchcfg.Policy) (switchcfg.Policy, error) {
	p := prior
	p.Name, p.Ports = name, ports
	names := namesFor(p, f)
	dscpMap, ok := db.Entry(tableDSCPToTC, names.maps)
	if !ok || len(ports) == 0 {
		return p, switchcfg.ErrNotFound
	}
	port := ports[0]
	qos, _ := db.Entry(tablePortQoS, port)
	prio, err := rdmaPriority(db, names, port, qos["pfc_enable"])
	if err != nil {
		return p, fmt.Errorf("PORT_QOS_MAP|%s: %w", port, err)
	}
	p.Class.Priority = prio
	p.Class.DSCP = dscpsWithTC(dscpMap, prio)

	if cnp, ok := queueWithScheduler(db, port, names.cnpScheduler); ok {
		p.Class.CNPPriority = cnp
		if d := dscpsWithTC(dscpMap, cnp); len(d) > 0 {
			p.Class.CNPDSCP = d[0]
		}
	}
	p.RDMA = decodeScheduler(db, names.rdmaScheduler, p.RDMA)
	p.CNP = decodeScheduler(db, names.cnpScheduler, p.CNP)

	queue, _ := db.Entry(tableQueue, port+"|"+strconv.Itoa(prio))
	if wred, ok := db.Entry(tableWRED, queue["wred_profile"]); ok {
		p.ECN = switchcfg.ECN{
			MinBytes:               atoi64(wred["green_min_threshold"]),
			MaxBytes:               atoi64(wred["green_max_threshold"]),
			MarkProbabilityPercent: int(atoi64(wred["green_drop_probability"])),
		}
	}
	if cable, ok := db.Entry(tableCableLength, cableLengthKey); ok {
		if m, err := strconv.Atoi(strings.TrimSuffix(cable[port], "m")); err == nil {
			p.CableLengthM = m
		}
	}
	p.Watchdog = decodeWatchdog(db, port, qos)
	p.Lossless = decodeClasses(db, p, port, dscpMap, qos["pfc_enable"], prior.Lossless)
	return p, nil
}

// decodeClasses reads the lossless classes beside the default one: each queue of port served
// by a scheduler <policy>_<class> is a class on that priority, with the DSCPs the policy's map
// sends there and the ECN of the queue's WRED profile. The pause threshold, which the switch
// does not store, is prior's. Prior's classes come first in their order; a class prior has and
// the switch lacks is left out (drift), one the switch has and prior lacks (an import) follows.
func decodeClasses(db sonicmodel.DB, p switchcfg.Policy, port string, dscpMap sonicmodel.Entry, pfcEnable string, prior []switchcfg.LosslessClass) []switchcfg.LosslessClass {
	found := map[string]switchcfg.LosslessClass{}
	var order []string
	for q := range 8 {
		queue, ok := db.Entry(tableQueue, port+"|"+strconv.Itoa(q))
		name, isClass := strings.CutPrefix(queue["scheduler"], p.Name+"_")
		if !ok || !isClass || name == "RDMA" || name == "CNP" || strings.Contains(name, "_") {
			continue
		}
		c := switchcfg.LosslessClass{Name: name, Priority: q, DSCP: dscpsWithTC(dscpMap, q)}
		if !priorityListHas(pfcEnable, q) {
			c.Priority = -1 // not lossless on the port: drift
		}
		c.Scheduler = decodeScheduler(db, queue["scheduler"], switchcfg.Scheduler{})
		if wred, ok := db.Entry(tableWRED, queue["wred_profile"]); ok {
			c.ECN = switchcfg.ECN{MinBytes: atoi64(wred["green_min_threshold"]), MaxBytes: atoi64(wred["green_max_threshold"]),
				MarkProbabilityPercent: int(atoi64(wred["green_drop_probability"]))}
		}
		found[name] = c
		order = append(order, name)
	}
	var out []switchcfg.LosslessClass
	for _, k := range prior {
		c, ok := found[k.Name]
		if !ok {
			continue
		}
		c.PFC = k.PFC
		if sameInts(c.DSCP, k.DSCP) {
			c.DSCP = k.DSCP
		}
		out = append(out, c)
		delete(found, k.Name)
	}
	for _, name := range order {
		if c, ok := found[name]; ok {
			out = append(out, c)
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

// rdmaPriority is the policy's default lossless priority: the one key of its own
// PFC_PRIORITY_TO_PRIORITY_GROUP_MAP, or with several lossless classes the key whose queue the
// RDMA scheduler serves, which pfc_enable (possibly the port's longer stock list, "3,4") must
// include; a priority pfc_enable lacks reads as -1, drift.
func rdmaPriority(db sonicmodel.DB, names objectNames, port, pfcEnable string) (int, error) {
	mapName := names.maps
	m, _ := db.Entry(tablePFCToPG, mapName)
	if len(m) > 1 {
		// Several lossless classes: the RDMA scheduler's queue tells the default one; without
		// it (the queue changed out of band) the priority reads as drift.
		q, ok := queueWithScheduler(db, port, names.rdmaScheduler)
		if _, mapped := m[strconv.Itoa(q)]; ok && mapped && priorityListHas(pfcEnable, q) {
			return q, nil
		}
		return -1, nil
	}
	if len(m) != 1 {
		prio, err := strconv.Atoi(pfcEnable)
		if err != nil {
			return 0, fmt.Errorf("pfc_enable is %q and %s|%s has %d entries: expected the one lossless priority of the policy", pfcEnable, tablePFCToPG, mapName, len(m))
		}
		return prio, nil
	}
	var key string
	for k := range m {
		key = k
	}
	prio, err := strconv.Atoi(key)
	if err != nil {
		return 0, fmt.Errorf("%s|%s has the key %q: expected a priority", tablePFCToPG, mapName, key)
	}
	if !priorityListHas(pfcEnable, prio) {
		return -1, nil
	}
	return prio, nil
}

func dscpsWithTC(m sonicmodel.Entry, tc int) []int {
	var out []int
	for k, v := range m {
		d, err := strconv.Atoi(k)
		if err == nil && v == strconv.Itoa(tc) {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

func queueWithScheduler(db sonicmodel.DB, port, scheduler string) (int, bool) {
	for q := range 8 {
		if e, ok := db.Entry(tableQueue, port+"|"+strconv.Itoa(q)); ok && e["scheduler"] == scheduler {
			return q, true
		}
	}
	return 0, false
}

func decodeScheduler(db sonicmodel.DB, key string, prior switchcfg.Scheduler) switchcfg.Scheduler {
	e, ok := db.Entry(tableScheduler, key)
	if !ok {
		return prior
	}
	if e["type"] == "STRICT" {
		return switchcfg.Scheduler{Mode: switchcfg.SchedulerStrict}
	}
	return switchcfg.Scheduler{Mode: switchcfg.SchedulerDWRR, Weight: int(atoi64(e["weight"]))}
}

func decodeWatchdog(db sonicmodel.DB, port string, qos sonicmodel.Entry) *switchcfg.Watchdog {
	wd, ok := db.Entry(tablePFCWatchdog, port)
	if !ok || qos["pfcwd_sw_enable"] == "" {
		return nil
	}
	return &switchcfg.Watchdog{
		Action:          wd["action"],
		DetectionTimeMs: int(atoi64(wd["detection_time"])),
		RestoreTimeMs:   int(atoi64(wd["restoration_time"])),
	}
}

func atoi64(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
