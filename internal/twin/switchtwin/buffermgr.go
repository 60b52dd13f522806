package switchtwin

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// bufferManager models buffermgrd of the traditional buffer model (sonic-swss
// cfgmgr/buffermgr.cpp at 202411, 202505, 202511 and master): it caches each port's speed,
// admin status, cable length and pfc_enable as CONFIG_DB events arrive, and on a PORT event or
// a pfc_enable change derives the lossless profile pg_lossless_<speed>_<cable>_profile from
// the SKU's pg_profile_lookup.ini and one BUFFER_PG|<port>|<range> per run of lossless
// priorities, both written back into CONFIG_DB, as the real daemon does. What it derives it
// never removes: an old BUFFER_PG after a pfc_enable change stays, an existing profile is
// reused as it is. A cable-only change is cached until the next trigger before 202511 and
// applied at once from 202511 (#4004). With DEVICE_METADATA buffer_model = dynamic SONiC
// runs buffermgrdyn instead (dynamicBufferManager).
type bufferManager struct {
	release sonic.Release
	mu      sync.Mutex
	cable   map[string]string // port -> "5m"
	daemonLog
}

// daemonLog is what a buffer daemon logged, oldest first, with a lock of its own.
type daemonLog struct {
	mu    sync.Mutex
	lines []string
}

// Log returns what the daemon logged, oldest first.
func (l *daemonLog) Log() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

func (l *daemonLog) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func newBufferManager(rel sonic.Release, db sonic.DB) *bufferManager {
	m := &bufferManager{release: rel, cable: map[string]string{}}
	for port, v := range db["CABLE_LENGTH"]["AZURE"] {
		m.cable[port] = v
	}
	return m
}

// ApplDB is empty: the traditional model keeps its buffer tables in CONFIG_DB.
func (m *bufferManager) ApplDB() sonic.DB { return sonic.DB{} }

// react updates db, which a Set has just moved from before, as buffermgrd would.
func (m *bufferManager) react(before, db sonic.DB) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ports := map[string]bool{}
	for _, c := range sonic.Diff(before, db) {
		switch c.Table {
		case "PORT":
			if c.Key != "" {
				ports[c.Key] = true
			}
		case "PORT_QOS_MAP":
			if c.Key != "" && c.Key != "global" && before["PORT_QOS_MAP"][c.Key]["pfc_enable"] != db["PORT_QOS_MAP"][c.Key]["pfc_enable"] {
				ports[c.Key] = true
			}
		case "CABLE_LENGTH":
			for port, v := range db["CABLE_LENGTH"]["AZURE"] {
				if m.cable[port] == v {
					continue
				}
				m.cable[port] = v
				m.logf("Cable length set to %s for port %s", v, port)
				if atLeast(m.release, 202511) {
					ports[port] = true
				}
			}
		}
	}
	for _, port := range sortedKeys(ports) {
		m.update(db, port)
	}
}

// update is doSpeedUpdateTask for one port.
func (m *bufferManager) update(db sonic.DB, port string) {
	cable, ok := m.cable[port]
	if !ok {
		m.logf("Unable to create/update PG profile for port %s. Cable length is not set", port)
		return
	}
	if cable == "0m" {
		m.logf("Not creating/updating PG profile for port %s. Cable length is set to %s", port, cable)
		return
	}
	pfcEnable := db["PORT_QOS_MAP"][port]["pfc_enable"]
	if pfcEnable == "" {
		m.logf("pfc_enable status is not available for port %s", port)
		return
	}
	speed := db["PORT"][port]["speed"]
	profile := "pg_lossless_" + speed + "_" + cable + "_profile"
	ranges := pgRanges(pfcEnable)
	if db["PORT"][port]["admin_status"] != "up" {
		// Mellanox: reclaim the PGs that still use the default profile.
		for _, r := range ranges {
			key := port + "|" + r
			if db["BUFFER_PG"][key]["profile"] == profile {
				delete(db["BUFFER_PG"], key)
				m.logf("Removing PG %s from port %s which is administrative down", r, port)
			}
		}
		return
	}
	lookup, ok := sonic.LookupLossless(db["DEVICE_METADATA"]["localhost"]["hwsku"])
	speedMbps, _ := strconv.Atoi(speed)
	row, found := sonic.LosslessRow{}, false
	if ok {
		row, found = lookup.Row(speedMbps, cable)
	}
	if !found {
		m.logf("Unable to create/update PG profile for port %s. No PG profile configured for speed %s and cable length %s", port, speed, cable)
		return
	}
	if _, exists := db["BUFFER_PROFILE"][profile]; exists {
		m.logf("Reusing existing profile '%s'", profile)
	} else {
		db.SetEntry("BUFFER_PROFILE", profile, sonic.Entry{
			"pool": "ingress_lossless_pool", "xon": strconv.FormatInt(row.XonBytes, 10), "xoff": strconv.FormatInt(row.XoffBytes, 10),
			"size": strconv.FormatInt(row.SizeBytes, 10), "dynamic_th": "0",
		})
		m.logf("Creating new profile '%s'", profile)
	}
	for _, r := range ranges {
		key := port + "|" + r
		if db["BUFFER_PG"][key]["profile"] == profile {
			continue
		}
		db.SetEntry("BUFFER_PG", key, sonic.Entry{"profile": profile})
	}
}

// pgRanges turns pfc_enable into BUFFER_PG key suffixes as Orch::generateIdListFromMap does:
// runs of consecutive priorities as "lo-hi", single ones as "n" ("3,4" -> 3-4; "2,3,4,6" ->
// 2-4 and 6); tokens that are not priorities are ignored.
func pgRanges(pfcEnable string) []string {
	var bits uint16
	for _, t := range strings.Split(pfcEnable, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(t))
		if err != nil || n < 0 || n > 7 {
			continue
		}
		bits |= 1 << n
	}
	var out []string
	for lo := 0; lo < 8; lo++ {
		if bits&(1<<lo) == 0 {
			continue
		}
		hi := lo
		for hi+1 < 8 && bits&(1<<(hi+1)) != 0 {
			hi++
		}
		if hi == lo {
			out = append(out, strconv.Itoa(lo))
		} else {
			out = append(out, strconv.Itoa(lo)+"-"+strconv.Itoa(hi))
		}
		lo = hi
	}
	return out
}
