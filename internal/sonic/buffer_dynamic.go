package sonic

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
)

// DynamicBuffer is what SONiC's dynamic buffer manager (sonic-swss cfgmgr/buffermgrdyn.cpp,
// 202411 to master) and its Mellanox headroom script (cfgmgr/buffer_headroom_mellanox.lua)
// read from CONFIG_DB to size a lossless priority group. Read it with ReadDynamicBuffer.
type DynamicBuffer struct {
	Release Release
	// Pattern is LOSSLESS_TRAFFIC_PATTERN (mtu, small_packet_percentage).
	Pattern fabric.TrafficPattern
	// DefaultThreshold is DEFAULT_LOSSLESS_BUFFER_PARAMETER default_dynamic_th: the profiles'
	// dynamic_th. Without it buffermgrdyn builds no lossless priority group at all.
	DefaultThreshold string
	// SharedHeadroomPool: BUFFER_POOL|ingress_lossless_pool has a non-zero xoff or
	// DEFAULT_LOSSLESS_BUFFER_PARAMETER a non-zero over_subscribe_ratio.
	SharedHeadroomPool bool
	// ModelNumber is the four digits after "sn" in DEVICE_METADATA platform (5600), which
	// decides the "_8lane" profile names.
	ModelNumber int
}

// ErrNotSpectrum4 is ReadDynamicBuffer's error for a platform whose ASIC constants the provider
// does not hold.
var ErrNotSpectrum4 = errors.New("not a Spectrum-4 switch")

// spectrum4Platforms map to MELLANOX-SPECTRUM-4 in sonic-buildimage
// platform/mellanox/asic_table.j2, the ASIC whose constants fabric.ComputeHeadroom holds.
var spectrum4Platforms = []string{"x86_64-nvidia_sn5400-r0", "x86_64-nvidia_sn5600-r0", "x86_64-nvidia_sn5610n-r0",
	"x86_64-nvidia_sn5400_simx-r0", "x86_64-nvidia_sn5600_simx-r0"}

// ReadDynamicBuffer reads the dynamic buffer parameters out of a CONFIG_DB image. It fails,
// saying what the switch lacks, where buffermgrdyn could not size a lossless group either.
func ReadDynamicBuffer(db DB, rel Release) (DynamicBuffer, error) {
	meta := db["DEVICE_METADATA"]["localhost"]
	platform := meta["platform"]
	d := DynamicBuffer{Release: rel, ModelNumber: modelNumber(platform)}
	if !isSpectrum4(platform) {
		return d, fmt.Errorf("platform %q is %w (%s)", platform, ErrNotSpectrum4, strings.Join(spectrum4Platforms[:3], ", "))
	}
	// The script reads the first key of each table (KEYS LOSSLESS_TRAFFIC_PATTERN*); the
	// templates write one, AZURE.
	pattern, ok := firstEntry(db["LOSSLESS_TRAFFIC_PATTERN"])
	if !ok {
		return d, fmt.Errorf("CONFIG_DB has no LOSSLESS_TRAFFIC_PATTERN, which the headroom script needs (the templates write AZURE: mtu 1024, small_packet_percentage 50)")
	}
	var err error
	if d.Pattern.MTU, err = strconv.Atoi(pattern["mtu"]); err != nil {
		return d, fmt.Errorf("LOSSLESS_TRAFFIC_PATTERN mtu %q is not a number", pattern["mtu"])
	}
	if d.Pattern.SmallPacketPercent, err = strconv.Atoi(pattern["small_packet_percentage"]); err != nil {
		return d, fmt.Errorf("LOSSLESS_TRAFFIC_PATTERN small_packet_percentage %q is not a number", pattern["small_packet_percentage"])
	}
	params, _ := firstEntry(db["DEFAULT_LOSSLESS_BUFFER_PARAMETER"])
	d.DefaultThreshold = params["default_dynamic_th"]
	if d.DefaultThreshold == "" {
		return d, fmt.Errorf("CONFIG_DB has no DEFAULT_LOSSLESS_BUFFER_PARAMETER default_dynamic_th, so SONiC's buffer manager builds no lossless priority group (\"default threshold is not ready\")")
	}
	ratio, _ := strconv.ParseFloat(params["over_subscribe_ratio"], 64)
	shp, _ := strconv.ParseFloat(db["BUFFER_POOL"]["ingress_lossless_pool"]["xoff"], 64)
	d.SharedHeadroomPool = ratio != 0 || shp != 0
	return d, nil
}

func firstEntry(t Table) (Entry, bool) {
	for _, k := range sortedKeys(t) {
		return t[k], true
	}
	return nil, false
}

func isSpectrum4(platform string) bool {
	for _, p := range spectrum4Platforms {
		if p == platform {
			return true
		}
	}
	return false
}

// modelNumber reads buffermgrdyn's m_model_number: the four characters after the first "sn"
// of the platform, 0 when there are none.
func modelNumber(platform string) int {
	i := strings.Index(platform, "sn")
	if i < 0 || len(platform) < i+6 {
		return 0
	}
	n, _ := strconv.Atoi(platform[i+2 : i+6])
	return n
}

// DynamicPort is one port as buffermgrdyn sizes it: PORT speed (Mb/s), mtu and lane count,
// and its CABLE_LENGTH ("5m").
type DynamicPort struct {
	SpeedMbps int
	MTU       int
	Lanes     int
	Cable     string
}

// defaultPortMTU is buffermgrdyn's DEFAULT_MTU_STR, which profile names leave out.
const defaultPortMTU = 9100

// LosslessProfile returns the profile buffermgrdyn creates for a lossless priority group of
// port (BUFFER_PG profile NULL) and its headroom, as getDynamicProfileName names it and the
// Mellanox script computes it at this release. A profile that already exists under the name
// is reused as it is, so the switch may hold older values; see the caller.
func (d DynamicBuffer) LosslessProfile(port DynamicPort) (string, fabric.Headroom, error) {
	metres, err := strconv.ParseFloat(strings.TrimSuffix(port.Cable, "m"), 64)
	if err != nil || !strings.HasSuffix(port.Cable, "m") {
		return "", fabric.Headroom{}, fmt.Errorf("cable length %q is not <metres>m", port.Cable)
	}
	mtu := port.MTU
	if mtu == 0 {
		mtu = defaultPortMTU
	}
	lanes := 4 // the script only asks whether the port has 8 lanes
	if port.Lanes == 8 {
		lanes = 8
	}
	h, err := fabric.ComputeHeadroom(fabric.Port{SpeedGbps: port.SpeedMbps / 1000, CableLengthM: metres, MTU: mtu, Lanes: lanes},
		d.Pattern, fabric.HeadroomModel{SharedHeadroomPool: d.SharedHeadroomPool, CompensateReducedPattern: d.compensates()})
	if err != nil {
		return "", h, err
	}
	return d.profileName(port.SpeedMbps, port.Cable, mtu, port.Lanes), h, nil
}

// compensates reports whether the release's script has the reduced-pattern compensation
// (sonic-swss #4757, merged after the 202511 branch: master, and so 202605 on).
func (d DynamicBuffer) compensates() bool { return d.Release.IsMaster() || d.Release.AtLeast(202605) }

// profileName is getDynamicProfileName for a group with the default threshold and no
// gearbox: pg_lossless_<speed>_<cable>[_mtu<mtu>][_8lane]_profile. Models 4xxx add _8lane to
// 8-lane ports below 400G, 5xxx below 800G: there those speeds also run on fewer lanes, whose
// xon is half.
func (d DynamicBuffer) profileName(speedMbps int, cable string, mtu, lanes int) string {
	name := "pg_lossless_" + strconv.Itoa(speedMbps) + "_" + cable
	if mtu != defaultPortMTU {
		name += "_mtu" + strconv.Itoa(mtu)
	}
	gen := d.ModelNumber / 1000
	if lanes == 8 && ((gen == 4 && speedMbps != 400000) || (gen == 5 && speedMbps != 800000)) {
		name += "_8lane"
	}
	return name + "_profile"
}

// PortLanes counts the lanes of a PORT entry's lanes field ("0,1,2,3" -> 4), as buffermgrdyn
// does.
func PortLanes(lanes string) int {
	if lanes == "" {
		return 0
	}
	return strings.Count(lanes, ",") + 1
}
