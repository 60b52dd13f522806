package sonic

import (
	"slices"
	"strconv"
	"strings"
)

// LosslessRow is one row of a SKU's pg_profile_lookup.ini: the lossless PG profile that the
// traditional buffer manager (sonic-swss cfgmgr/buffermgr.cpp) creates for a port speed and
// cable length, in bytes.
type LosslessRow struct {
	SpeedMbps                      int
	Cable                          string // "5m"
	SizeBytes, XonBytes, XoffBytes int64
}

// lookupTable is a pg_profile_lookup.ini as "speed cable size xon xoff" rows (threshold 0 in
// every SN5600 table).
type lookupTable []LosslessRow

// sn5600Lookup are the tables of sonic-buildimage device/mellanox/x86_64-nvidia_sn5600-r0
// (identical blobs at 202411, 202505, 202511 and master): ACS-SN5600, which
// Mellanox-SN5600-O128 links to, and Mellanox-SN5600-V256, whose shared headroom pool makes
// size equal xon. The data is written out here from the files, rows 100G to 800G.
var sn5600Lookup = map[string]lookupTable{
	"ACS-SN5600": rows(`
100000 5m 133120 19456 113664
200000 5m 150528 19456 131072
400000 5m 250880 19456 231424
800000 5m 304128 38912 257024
100000 40m 146432 19456 126976
200000 40m 177152 19456 157696
400000 40m 303104 19456 283648
800000 40m 410624 38912 362496
100000 300m 244736 19456 225280
200000 300m 374784 19456 355328
400000 300m 697344 19456 677888
800000 300m 1198080 38912 1150976`),
	"Mellanox-SN5600-V256": rows(`
100000 5m 19456 19456 79872
200000 5m 19456 19456 91136
400000 5m 19456 19456 157696
800000 5m 38912 38912 175104
100000 40m 19456 19456 88064
200000 40m 19456 19456 108544
400000 40m 19456 19456 192512
800000 40m 38912 38912 245760
100000 300m 19456 19456 153600
200000 300m 19456 19456 240640
400000 300m 19456 19456 455680
800000 300m 38912 38912 771072`),
}

// lookupAliases are SKUs whose pg_profile_lookup.ini is a link to another SKU's.
var lookupAliases = map[string]string{"Mellanox-SN5600-O128": "ACS-SN5600"}

// lossySKUs are SN5600 SKUs that build no lossless PG at all (their templates set every cable
// to 0m: Mellanox-SN5600-C256S1 and -C224O8, lossy RoCE by design).
var lossySKUs = []string{"Mellanox-SN5600-C256S1", "Mellanox-SN5600-C224O8"}

func rows(text string) lookupTable {
	var t lookupTable
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		f := strings.Fields(line)
		speed, _ := strconv.Atoi(f[0])
		size, _ := strconv.ParseInt(f[2], 10, 64)
		xon, _ := strconv.ParseInt(f[3], 10, 64)
		xoff, _ := strconv.ParseInt(f[4], 10, 64)
		t = append(t, LosslessRow{SpeedMbps: speed, Cable: f[1], SizeBytes: size, XonBytes: xon, XoffBytes: xoff})
	}
	return t
}

// LosslessLookup is what the traditional buffer manager can build on one SKU.
type LosslessLookup struct {
	SKU   string
	table lookupTable
	// Lossy reports a SKU that builds no lossless PG at any cable length.
	Lossy bool
}

// LookupLossless returns the lossless PG lookup of a SKU; ok is false for a SKU the provider
// has no table for.
func LookupLossless(hwsku string) (LosslessLookup, bool) {
	if slices.Contains(lossySKUs, hwsku) {
		return LosslessLookup{SKU: hwsku, Lossy: true}, true
	}
	name := hwsku
	if alias, ok := lookupAliases[hwsku]; ok {
		name = alias
	}
	t, ok := sn5600Lookup[name]
	return LosslessLookup{SKU: hwsku, table: t}, ok
}

// Row returns the row for a speed and cable ("5m"): an exact match, as buffermgrd looks up.
func (l LosslessLookup) Row(speedMbps int, cable string) (LosslessRow, bool) {
	for _, r := range l.table {
		if r.SpeedMbps == speedMbps && r.Cable == cable {
			return r, true
		}
	}
	return LosslessRow{}, false
}

// Cables returns the cable lengths with a row at speedMbps, shortest first ("5m", "40m", "300m").
func (l LosslessLookup) Cables(speedMbps int) []string {
	var out []string
	for _, r := range l.table {
		if r.SpeedMbps == speedMbps && !slices.Contains(out, r.Cable) {
			out = append(out, r.Cable)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return cableMetres(a) - cableMetres(b) })
	return out
}

func cableMetres(c string) int {
	n, _ := strconv.Atoi(strings.TrimSuffix(c, "m"))
	return n
}
