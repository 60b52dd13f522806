package switchcfg

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// LosslessProblem is a listed port that does not hold the lossless priority group the policy
// relies on, after an apply.
type LosslessProblem struct {
	Port string
	// Fatal is true when the port has no lossless priority group for the RDMA priority at all,
	// so RDMA is dropped instead of paused; false when it has one with another profile.
	Fatal  bool
	Detail string
}

// CheckLossless reads, in the traditional buffer model, whether every port of p has the
// BUFFER_PG that buffermgrd derives for the RDMA priority, with the profile of the port's speed
// and cable length (sonic-swss cfgmgr/buffermgr.cpp). The dynamic model keeps its results in
// APPL_DB, which this backend does not read: it reports nothing there.
func (o Observation) CheckLossless(p Policy) []LosslessProblem {
	if o.Facts.BufferModel == BufferModelDynamic {
		return nil
	}
	var out []LosslessProblem
	cable := strconv.Itoa(p.CableLengthM) + "m"
	for _, port := range p.Ports {
		speed := o.db[tablePort][port]["speed"]
		want := "pg_lossless_" + speed + "_" + cable + "_profile"
		profile, key := o.losslessPG(port, p.Class.Priority)
		switch {
		case key == "":
			out = append(out, LosslessProblem{Port: port, Fatal: true, Detail: fmt.Sprintf(
				"%s has no BUFFER_PG for priority %d: SONiC's buffer manager did not make the RDMA priority lossless, so RDMA is dropped instead of paused. "+
					"The switch's log (buffermgrd) says why: usually a speed and cable length without a row in pg_profile_lookup.ini (%s at %s Mb/s), or the port is administratively down.",
				port, p.Class.Priority, cable, speed)})
		case profile != want:
			detail := fmt.Sprintf("%s's BUFFER_PG|%s uses %s, not %s", port, key, profile, want)
			if !o.Facts.Release.IsMaster() && !o.Facts.Release.AtLeast(202511) {
				detail += fmt.Sprintf(": SONiC %s applies a cable length change only at the port's next PORT update (for example config interface shutdown %s; config interface startup %s), until then the old headroom stays", o.Facts.Release, port, port)
			}
			out = append(out, LosslessProblem{Port: port, Detail: detail + "."})
		}
	}
	return out
}

// losslessPG returns the profile and key of the port's BUFFER_PG whose priority range holds
// prio ("Ethernet0|3-4"); key is "" when there is none or its profile does not exist.
func (o Observation) losslessPG(port string, prio int) (profile, key string) {
	keys := make([]string, 0, 4)
	for k := range o.db[tableBufferPG] {
		if strings.HasPrefix(k, port+"|") {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		lo, hi, ok := pgRange(strings.TrimPrefix(k, port+"|"))
		if !ok || prio < lo || prio > hi {
			continue
		}
		prof := o.db[tableBufferPG][k]["profile"]
		if _, exists := o.db[tableBufferProfile][prof]; !exists {
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
