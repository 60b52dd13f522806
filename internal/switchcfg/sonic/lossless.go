package sonic

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	sonicmodel "github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
)

// CheckLossless reads whether every port of p has the lossless priority group the buffer
// manager derives for the RDMA priority: in the traditional model the CONFIG_DB BUFFER_PG with
// the profile of the port's speed and cable length (sonic-swss cfgmgr/buffermgr.cpp), in the
// dynamic model the APPL_DB BUFFER_PG_TABLE group with the profile buffermgrdyn names and
// sizes for the port (checkDynamicLossless). The cable length is the port's CABLE_LENGTH as
// the switch holds it (after an apply the policy's, after a destroy the restored one).
func (o sonicObservation) CheckLossless(p switchcfg.Policy) []switchcfg.LosslessProblem {
	if o.Facts.BufferModel == BufferModelDynamic {
		return o.checkDynamicLossless(p)
	}
	var out []switchcfg.LosslessProblem
	for _, port := range p.Ports {
		seen := map[string]bool{}
		for _, prio := range p.LosslessPriorities() {
			if problem, key, bad := o.checkPG(p, port, prio); bad && (key == "" || !seen[key]) {
				seen[key] = true
				out = append(out, problem)
			}
		}
	}
	return out
}

// checkPG is CheckLossless for one port and lossless priority in the traditional model: with
// two lossless priorities buffermgrd writes one BUFFER_PG per run of them (pfc_enable "3,4":
// BUFFER_PG|<port>|3-4), whose profile serves each; a group that serves several is reported
// once (key). bad is false when the priority has the group it should.
func (o sonicObservation) checkPG(p switchcfg.Policy, port string, prio int) (problem switchcfg.LosslessProblem, key string, bad bool) {
	cable := o.cable(port, p)
	speed := o.db[tablePort][port]["speed"]
	want := "pg_lossless_" + speed + "_" + cable + "_profile"
	profile, key := o.losslessPG(port, prio)
	switch {
	case key == "":
		return switchcfg.LosslessProblem{Port: port, Fatal: true, Detail: fmt.Sprintf(
			"%s has no BUFFER_PG for priority %d: SONiC's buffer manager did not make the priority lossless, so its traffic is dropped instead of paused. "+
				"The switch's log (buffermgrd) says why: usually a speed and cable length without a row in pg_profile_lookup.ini (%s at %s Mb/s), or the port is administratively down.",
			port, prio, cable, speed)}, "", true
	case profile != want:
		detail := fmt.Sprintf("%s's BUFFER_PG|%s uses %s, not %s", port, key, profile, want)
		if !o.Facts.Release.IsMaster() && !o.Facts.Release.AtLeast(202511) {
			detail += fmt.Sprintf(": SONiC %s applies a cable length change only at the port's next PORT update (for example config interface shutdown %s; config interface startup %s), until then the old headroom stays", o.Facts.Release, port, port)
		}
		return switchcfg.LosslessProblem{Port: port, Detail: detail + "."}, key, true
	}
	return switchcfg.LosslessProblem{}, key, false
}

// checkDynamicLossless is CheckLossless in the dynamic model. buffermgrdyn reuses a profile
// that already exists under the name it computes, so a profile created before a change of
// LOSSLESS_TRAFFIC_PATTERN keeps its old headroom: that is reported, not fatal.
func (o sonicObservation) checkDynamicLossless(p switchcfg.Policy) []switchcfg.LosslessProblem {
	if o.Facts.DynamicErr != nil {
		return nil // refused or warned at plan (checkDynamicBuffer)
	}
	var out []switchcfg.LosslessProblem
	for _, port := range p.Ports {
		pf, ok := o.Facts.Ports[port]
		if !ok {
			continue
		}
		dp := o.Facts.dynamicPort(pf, p)
		dp.Cable = o.cable(port, p)
		want, h, err := o.Facts.Dynamic.LosslessProfile(dp)
		if err != nil {
			continue // refused at plan (Headroom)
		}
		seen := map[string]bool{}
		for _, prio := range p.LosslessPriorities() {
			if problem, key, bad := o.checkDynamicPG(port, prio, want, h); bad && (key == "" || !seen[key]) {
				seen[key] = true
				out = append(out, problem)
			}
		}
	}
	return out
}

// checkDynamicPG is checkDynamicLossless for one port and lossless priority, as checkPG.
func (o sonicObservation) checkDynamicPG(port string, prio int, want string, h fabric.Headroom) (problem switchcfg.LosslessProblem, key string, bad bool) {
	profile, key := losslessGroup(o.appl[applBufferPG], o.appl[applBufferProfile], port, ":", prio)
	switch {
	case key == "":
		return switchcfg.LosslessProblem{Port: port, Fatal: true, Detail: fmt.Sprintf(
			"%s has no lossless priority group for priority %d in APPL_DB BUFFER_PG_TABLE: SONiC's dynamic buffer manager did not make the priority lossless, so its traffic is dropped instead of paused. "+
				"Check that CONFIG_DB BUFFER_PG has a group of the port holding priority %d with profile NULL (config interface buffer priority-group lossless add %s), that the port is administratively up, and the switch's log (buffermgrd).",
			port, prio, prio, port)}, "", true
	case profile != want:
		return switchcfg.LosslessProblem{Port: port, Detail: fmt.Sprintf("%s's BUFFER_PG_TABLE:%s uses %s, not %s, which the buffer manager computes for it.", port, key, profile, want)}, key, true
	}
	got := o.appl[applBufferProfile][profile]
	if got["xon"] != strconv.FormatInt(h.XonBytes, 10) || got["xoff"] != strconv.FormatInt(h.XoffBytes, 10) || got["size"] != strconv.FormatInt(h.SizeBytes, 10) {
		return switchcfg.LosslessProblem{Port: port, Detail: fmt.Sprintf(
			"%s's profile %s reserves xon %s, xoff %s, size %s bytes, not the %d, %d, %d the buffer manager computes now: it reuses a profile that exists under the same name, so this one was computed before a change of LOSSLESS_TRAFFIC_PATTERN or the shared headroom pool. It is recomputed once no port uses it (move the ports to another cable length and back).",
			port, profile, got["xon"], got["xoff"], got["size"], h.XonBytes, h.XoffBytes, h.SizeBytes)}, key, true
	}
	return switchcfg.LosslessProblem{}, key, false
}

// cable is the port's CABLE_LENGTH on the switch, or the policy's when the switch has none.
func (o sonicObservation) cable(port string, p switchcfg.Policy) string {
	if v := o.db[tableCableLength][cableLengthKey][port]; v != "" {
		return v
	}
	return strconv.Itoa(p.CableLengthM) + "m"
}

// losslessPG returns the profile and key of the port's CONFIG_DB BUFFER_PG whose priority
// range holds prio ("Ethernet0|3-4"); key is "" when there is none or its profile does not
// exist.
func (o sonicObservation) losslessPG(port string, prio int) (profile, key string) {
	return losslessGroup(o.db[tableBufferPG], o.db[tableBufferProfile], port, "|", prio)
}

// losslessGroup finds, in a table of priority groups keyed <port><sep><range>, the group of
// port whose range holds prio and whose profile exists in profiles.
func losslessGroup(groups, profiles sonicmodel.Table, port, sep string, prio int) (profile, key string) {
	keys := make([]string, 0, 4)
	for k := range groups {
		if strings.HasPrefix(k, port+sep) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		lo, hi, ok := pgRange(strings.TrimPrefix(k, port+sep))
		if !ok || prio < lo || prio > hi {
			continue
		}
		prof := groups[k]["profile"]
		if _, exists := profiles[prof]; !exists {
			continue
		}
		return prof, k
	}
	return "", ""
}

// pgRange reads a BUFFER_PG priority part: "3" or "3-4".
func pgRange(s string) (lo, hi int, ok bool) {
	a, b, isRange := strings.Cut(s, "-")
	lo, err := strconv.Atoi(a)
	if err != nil {
		return 0, 0, false
	}
	if !isRange {
		return lo, lo, true
	}
	hi, err = strconv.Atoi(b)
	return lo, hi, err == nil && hi >= lo
}
