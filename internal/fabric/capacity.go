package fabric

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Platform is a switch model's lossless buffer pools, in bytes, as SONiC
// sizes them (sonic-buildimage device/mellanox/<platform>/<SKU>/
// buffers_defaults_t0.j2).
type Platform struct {
	Name                     string
	EgressLosslessPoolBytes  int64
	IngressLosslessPoolBytes int64
}

const (
	spectrum4EgressLosslessBytes  = 158_229_504 // ~150.9 MiB
	sn5600IngressLosslessBytes    = 67_737_959
	sn5610nIngressLosslessLowered = 142_000_000
)

// platforms is keyed by lower-case model name.
var platforms = map[string]Platform{
	"sn5600": {Name: "sn5600", EgressLosslessPoolBytes: spectrum4EgressLosslessBytes, IngressLosslessPoolBytes: sn5600IngressLosslessBytes},
	// SONiC symlinks the SN5400 buffer templates to the SN5600 ones.
	"sn5400": {Name: "sn5400", EgressLosslessPoolBytes: spectrum4EgressLosslessBytes, IngressLosslessPoolBytes: sn5600IngressLosslessBytes},
	// The SN5610N ingress pool size is known here only as "142-144 MB" (from
	// sonic-buildimage device/mellanox/x86_64-nvidia_sn5610n-r0
	// buffers_defaults_t0.j2); the lower bound, read as decimal MB, is the
	// conservative choice.
	"sn5610n": {Name: "sn5610n", EgressLosslessPoolBytes: spectrum4EgressLosslessBytes, IngressLosslessPoolBytes: sn5610nIngressLosslessLowered},
}

// LookupPlatform returns the platform with the given name, case-insensitively.
func LookupPlatform(name string) (Platform, bool) {
	p, ok := platforms[strings.ToLower(name)]
	return p, ok
}

// PlatformNames returns the known platform names, sorted.
func PlatformNames() []string {
	names := make([]string, 0, len(platforms))
	for n := range platforms {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// CheckCapacity checks that a per-port lossless reservation fits the
// platform's buffer when reserved on every port.
//
// A lossless priority group's reservation (its BUFFER_PROFILE size, i.e.
// headroom xon + xoff) is taken from ingress_lossless_pool, so that is the
// pool compared here. The egress lossless pool is shared dynamically by the
// lossless queues (their profiles reserve size 0), so no per-port
// reservation consumes it. Paths: "ports", "per_port_reservation_bytes".
func CheckCapacity(p Platform, perPortReservationBytes int64, ports int) Findings {
	var fs Findings
	if ports <= 0 {
		fs = append(fs, errorf("ports", "Invalid Port Count", "ports is %d; it must be at least 1", ports))
	}
	if perPortReservationBytes < 0 {
		fs = append(fs, errorf("per_port_reservation_bytes", "Invalid Reservation",
			"per_port_reservation_bytes is %d; it must be 0 or more", perPortReservationBytes))
	}
	if fs != nil {
		return fs
	}
	pool := p.IngressLosslessPoolBytes
	if perPortReservationBytes > math.MaxInt64/int64(ports) || perPortReservationBytes*int64(ports) > pool {
		fs = append(fs, errorf("ports", "Lossless Buffer Exhausted",
			"%d %s x %d B = %s B exceeds the %singress lossless pool of %d B: reserve at most %d B per port or use fewer lossless ports",
			ports, plural(ports, "port", "ports"), perPortReservationBytes, productString(perPortReservationBytes, int64(ports)),
			modelPrefix(p.Name), pool, pool/int64(ports)))
	}
	return fs
}

func productString(a, b int64) string {
	if a > math.MaxInt64/b {
		return "more than " + strconv.FormatInt(math.MaxInt64, 10)
	}
	return strconv.FormatInt(a*b, 10)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func modelPrefix(name string) string {
	if name == "" {
		return ""
	}
	return strings.ToUpper(name) + " "
}
