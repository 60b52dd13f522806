package switchtwin

import (
	"strconv"
	"strings"
	"sync"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// APPL_DB tables the dynamic buffer manager writes; their keys use ":" (Ethernet0:3-4).
const (
	applBufferPG      = "BUFFER_PG_TABLE"
	applBufferProfile = "BUFFER_PROFILE_TABLE"
)

// dynamicBufferManager models buffermgrdyn, the daemon of the dynamic buffer model (sonic-swss
// cfgmgr/buffermgrdyn.cpp at 202411, 202505, 202511 and master), for what the provider reads:
// a CONFIG_DB BUFFER_PG whose profile is NULL (or absent) is a lossless group whose headroom it
// computes with the Mellanox script from the port's speed, mtu, lane count and CABLE_LENGTH,
// LOSSLESS_TRAFFIC_PATTERN and the shared headroom pool (sonic.DynamicBuffer). It writes the
// group and the profile into APPL_DB, never into CONFIG_DB. Like the real daemon it reuses a
// profile that exists under the same name as it is (a later LOSSLESS_TRAFFIC_PATTERN change
// leaves it alone), releases a calculated profile no group uses any more, leaves out groups of
// administratively down ports and, from 202505, the lossless groups of ports at 0m. Not
// modelled: pool sizes (BUFFER_POOL_TABLE), the per-port headroom limit check, gearboxes and
// auto-negotiated speeds.
type dynamicBufferManager struct {
	release sonic.Release
	mu      sync.Mutex
	appl    sonic.DB
	// calculated are the profiles it created from the script, which it releases when unused.
	calculated map[string]bool
	daemonLog
}

func newDynamicBufferManager(rel sonic.Release, db sonic.DB) *dynamicBufferManager {
	m := &dynamicBufferManager{release: rel, appl: sonic.DB{}, calculated: map[string]bool{}}
	m.react(nil, db)
	return m
}

// ApplDB returns a copy of the APPL_DB tables the daemon wrote.
func (m *dynamicBufferManager) ApplDB() sonic.DB {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.appl.Clone()
}

// react brings APPL_DB in line with CONFIG_DB db after a Set.
func (m *dynamicBufferManager) react(_, db sonic.DB) {
	m.mu.Lock()
	defer m.mu.Unlock()
	params, paramsErr := sonic.ReadDynamicBuffer(db, m.release)
	profiles := m.appl[applBufferProfile]
	if profiles == nil {
		profiles = sonic.Table{}
	}
	for name, e := range db["BUFFER_PROFILE"] { // static profiles pass through
		profiles[name] = e.Clone()
	}
	cable := cableLengths(db)
	pgs, used := sonic.Table{}, map[string]bool{}
	for _, key := range sortedKeys(db["BUFFER_PG"]) {
		port, pg, _ := strings.Cut(key, "|")
		applKey := port + ":" + pg
		portEntry := db["PORT"][port]
		if portEntry["admin_status"] != "up" {
			continue // "Nothing to be done since the port is administratively down"
		}
		if profile := db["BUFFER_PG"][key]["profile"]; profile != "" && profile != "NULL" {
			if _, ok := db["BUFFER_PROFILE"][profile]; !ok {
				m.logf("Profile %s hasn't been configured yet, skip", profile)
				continue
			}
			pgs[applKey] = sonic.Entry{"profile": profile}
			used[profile] = true
			continue
		}
		if paramsErr != nil {
			m.logf("Unable to calculate the headroom of %s: %v", key, paramsErr)
			continue
		}
		length, ok := cable[port]
		if !ok {
			continue // the port stays INITIALIZING until it has a cable length
		}
		if length == "0m" && atLeast(m.release, 202505) {
			m.logf("No lossless profile found for port %s when cable length is set to '0m'.", port)
			continue
		}
		speed, _ := strconv.Atoi(portEntry["speed"])
		mtu, _ := strconv.Atoi(portEntry["mtu"])
		name, h, err := params.LosslessProfile(sonic.DynamicPort{SpeedMbps: speed, MTU: mtu, Lanes: sonic.PortLanes(portEntry["lanes"]), Cable: length})
		if err != nil {
			m.logf("Failed to calculate headroom for port %s: %v", port, err)
			continue
		}
		if _, exists := profiles[name]; !exists {
			profiles[name] = sonic.Entry{
				"xon": strconv.FormatInt(h.XonBytes, 10), "xoff": strconv.FormatInt(h.XoffBytes, 10),
				"size": strconv.FormatInt(h.SizeBytes, 10), "pool": "ingress_lossless_pool", "dynamic_th": params.DefaultThreshold,
			}
			m.calculated[name] = true
			m.logf("Creating new profile '%s'", name)
		}
		pgs[applKey] = sonic.Entry{"profile": name}
		used[name] = true
	}
	for name := range m.calculated {
		if !used[name] {
			delete(profiles, name)
			delete(m.calculated, name)
			m.logf("BUFFER_PROFILE %s has been removed", name)
		}
	}
	m.appl[applBufferPG] = pgs
	m.appl[applBufferProfile] = profiles
}

// cableLengths merges the CABLE_LENGTH entries into port -> length, as the daemon caches them.
func cableLengths(db sonic.DB) map[string]string {
	out := map[string]string{}
	for _, key := range sortedKeys(db["CABLE_LENGTH"]) {
		for port, v := range db["CABLE_LENGTH"][key] {
			out[port] = v
		}
	}
	return out
}
