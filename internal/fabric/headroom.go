package fabric

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// Spectrum-4 constants of the Mellanox headroom model (sonic-swss
// cfgmgr/buffer_headroom_mellanox.lua with sonic-buildimage
// platform/mellanox/asic_table.j2).
const (
	spectrum4CellBytes       = 192
	spectrum4PipelineBytes   = 19 * 1024 // pipeline_latency 19 KiB
	spectrum4MacPhyBytes     = 0.8 * 1024
	minimalPacketBytes       = 64
	lightSpeedInCableMPerSec = 198_000_000
	kibibyte                 = 1024
	eightLaneExtraFactor     = 2 // xon doubles on 8-lane ports
	partialPatternSlackBytes = 2 * kibibyte
)

// pauseQuanta is the peer's PFC response time per port speed in pause
// quanta of 512 bit times (IEEE 802.3 31B.3.7), keyed by Gb/s.
var pauseQuanta = map[int]int{800: 905, 400: 905, 200: 453, 100: 394, 50: 147, 40: 118, 25: 80, 10: 67}

// SupportedSpeedsGbps returns the port speeds ComputeHeadroom knows, ascending.
func SupportedSpeedsGbps() []int {
	speeds := make([]int, 0, len(pauseQuanta))
	for s := range pauseQuanta {
		speeds = append(speeds, s)
	}
	slices.Sort(speeds)
	return speeds
}

// CheckSpeed returns an UnsupportedSpeed error at field at when speedGbps is not a port speed
// ComputeHeadroom knows (SupportedSpeedsGbps).
func CheckSpeed(at violation.Field, speedGbps int64) violation.List {
	if _, ok := pauseQuanta[int(speedGbps)]; ok && speedGbps == int64(int(speedGbps)) {
		return nil
	}
	return violation.List{violation.ErrorAt(at, UnsupportedSpeed{Gbps: speedGbps})}
}

// UnsupportedSpeed: a port speed the headroom model does not know.
type UnsupportedSpeed struct{ Gbps int64 }

func (r UnsupportedSpeed) Words(at violation.Field, name violation.Names) (string, string) {
	return "Unsupported Port Speed", fmt.Sprintf("%s is %d; the headroom model knows %s Gb/s: set one of them",
		name(at), r.Gbps, joinInts(SupportedSpeedsGbps()))
}

// Port describes one lossless switch port. Lanes 0 means the SN5600
// default for the speed: 8 at 800G, 4 otherwise (this reproduces SONiC's
// SN5600 pg_profile_lookup.ini, where only 800G rows carry the 8-lane xon).
type Port struct {
	SpeedGbps    int
	CableLengthM float64
	MTU          int
	Lanes        int
}

// Headroom is a lossless priority group's reservation: XonBytes and
// XoffBytes of headroom and the reserved SizeBytes, as SONiC's
// BUFFER_PROFILE xon, xoff and size.
type Headroom struct {
	XonBytes, XoffBytes, SizeBytes int64
}

// TrafficPattern is SONiC's LOSSLESS_TRAFFIC_PATTERN: the share of small
// (64 B) packets and the MTU of lossless traffic.
type TrafficPattern struct {
	SmallPacketPercent int
	MTU                int
}

// WorstCasePattern returns 100 % small packets at MTU 1024, the pattern
// that reproduces the SN5600 lookup table.
func WorstCasePattern() TrafficPattern {
	return TrafficPattern{SmallPacketPercent: 100, MTU: 1024}
}

// HeadroomModel is what differs between the releases and configurations
// of SONiC's Mellanox headroom script (sonic-swss
// cfgmgr/buffer_headroom_mellanox.lua).
type HeadroomModel struct {
	// SharedHeadroomPool is set when BUFFER_POOL|ingress_lossless_pool has
	// an xoff or DEFAULT_LOSSLESS_BUFFER_PARAMETER an over_subscribe_ratio:
	// xoff then comes from the shared pool and size reserves xon only.
	SharedHeadroomPool bool
	// CompensateReducedPattern adds 2 KiB to xoff, without a shared pool,
	// when a pattern with fewer than 100 % small packets leaves xoff more
	// than 2 KiB under the all-small-packet one (sonic-swss #4757, merged
	// after the 202511 branch; 202411 to 202511 do not).
	CompensateReducedPattern bool
}

// ComputeHeadroom returns the Spectrum-4 lossless headroom of a port
// without a gearbox as SONiC's dynamic buffer model computes it
// (buffer_headroom_mellanox.lua): xoff covers the bytes in flight after a
// PAUSE, xon the pipeline latency, size their sum (plus one MTU on 8-lane
// ports), each rounded up to 1 KiB; with a shared headroom pool size is xon.
func ComputeHeadroom(p Port, pat TrafficPattern, m HeadroomModel) (Headroom, error) {
	lanes, err := checkHeadroomInputs(p, pat)
	if err != nil {
		return Headroom{}, err
	}
	xoff := xoffBytes(p, pat)
	if m.CompensateReducedPattern && !m.SharedHeadroomPool && pat.SmallPacketPercent != 100 {
		worst := xoffBytes(p, TrafficPattern{SmallPacketPercent: 100, MTU: pat.MTU})
		if xoff+partialPatternSlackBytes < worst {
			xoff += partialPatternSlackBytes
		}
	}
	xon := ceilKiB(spectrum4PipelineBytes)
	extra := 0.0
	if lanes == 8 {
		xon *= eightLaneExtraFactor
		extra = float64(p.MTU)
	}
	size := ceilKiB(float64(xoff+xon) + extra)
	if m.SharedHeadroomPool {
		size = xon
	}
	return Headroom{XonBytes: xon, XoffBytes: xoff, SizeBytes: size}, nil
}

func checkHeadroomInputs(p Port, pat TrafficPattern) (lanes int, err error) {
	if _, ok := pauseQuanta[p.SpeedGbps]; !ok {
		return 0, fmt.Errorf("port speed %d Gb/s is not supported: use one of %s", p.SpeedGbps, joinInts(SupportedSpeedsGbps()))
	}
	if p.CableLengthM < 0 || math.IsNaN(p.CableLengthM) || math.IsInf(p.CableLengthM, 0) {
		return 0, fmt.Errorf("cable length %v m is invalid: use a length of 0 m or more", p.CableLengthM)
	}
	if p.MTU < 68 || p.MTU > 9216 {
		return 0, fmt.Errorf("port mtu %d is out of range: use 68..9216", p.MTU)
	}
	if pat.SmallPacketPercent < 0 || pat.SmallPacketPercent > 100 {
		return 0, fmt.Errorf("small packet percentage %d is out of range: use 0..100", pat.SmallPacketPercent)
	}
	if pat.MTU < 1 || pat.MTU > 9216 {
		return 0, fmt.Errorf("lossless traffic mtu %d is out of range: use 1..9216", pat.MTU)
	}
	return portLanes(p)
}

func portLanes(p Port) (int, error) {
	switch p.Lanes {
	case 0:
		if p.SpeedGbps == 800 {
			return 8, nil
		}
		return 4, nil
	case 1, 2, 4, 8:
		return p.Lanes, nil
	}
	return 0, fmt.Errorf("lane count %d is invalid: use 1, 2, 4 or 8 (0 = default for the speed)", p.Lanes)
}

// xoffBytes is the headroom needed after XOFF: one lossless MTU plus the
// propagation delay in bytes scaled by the worst-case cell occupancy.
func xoffBytes(p Port, pat TrafficPattern) int64 {
	speedMbps := float64(p.SpeedGbps) * 1000
	peerResponse := float64(pauseQuanta[p.SpeedGbps]) * 512 / 8
	onTile := speedMbps / 1000 * 120 / 8 // Spectrum-4/-5 only
	onCable := 2 * p.CableLengthM * speedMbps * 1e6 / lightSpeedInCableMPerSec / 8
	propagation := float64(p.MTU) + onCable + spectrum4MacPhyBytes + peerResponse + onTile
	return ceilKiB(float64(pat.MTU) + propagation*cellOccupancy(pat))
}

// cellOccupancy is how many cells' worth of buffer one byte of the pattern
// occupies: a 64 B packet still takes a whole 192 B cell.
func cellOccupancy(pat TrafficPattern) float64 {
	worst := math.Ceil(float64(spectrum4CellBytes) / minimalPacketBytes) // 3 on Spectrum-4
	p := float64(pat.SmallPacketPercent)
	avgBytes := (p*minimalPacketBytes + (100-p)*float64(pat.MTU)) / 100
	smallByBytes := 100 * minimalPacketBytes / avgBytes
	return (100 - smallByBytes + smallByBytes*worst) / 100
}

func ceilKiB(v float64) int64 {
	return int64(math.Ceil(v/kibibyte)) * kibibyte
}

func joinInts(vs []int) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, ", ")
}
