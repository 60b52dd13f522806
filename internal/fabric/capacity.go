package fabric

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/violation"
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

// The capacity check's inputs, as violations name them.
var (
	FieldPorts              = violation.At("Capacity.Ports")
	FieldPerPortReservation = violation.At("Capacity.PerPortReservationBytes")
)

// CheckCapacity checks that a per-port lossless reservation fits the
// platform's buffer when reserved on every port.
//
// A lossless priority group's reservation (its BUFFER_PROFILE size, i.e.
// headroom xon + xoff) is taken from ingress_lossless_pool, so that is the
// pool compared here. The egress lossless pool is shared dynamically by the
// lossless queues (their profiles reserve size 0), so no per-port
// reservation consumes it.
func CheckCapacity(p Platform, perPortReservationBytes int64, ports int) violation.List {
	var vs violation.List
	if ports <= 0 {
		vs = append(vs, violation.ErrorAt(FieldPorts, PortCountInvalid{Ports: ports}))
	}
	if perPortReservationBytes < 0 {
		vs = append(vs, violation.ErrorAt(FieldPerPortReservation, ReservationNegative{Bytes: perPortReservationBytes}))
	}
	if vs != nil {
		return vs
	}
	pool := p.IngressLosslessPoolBytes
	if perPortReservationBytes > math.MaxInt64/int64(ports) || perPortReservationBytes*int64(ports) > pool {
		vs = append(vs, violation.ErrorAt(FieldPorts, BufferExhausted{Ports: ports, PerPortBytes: perPortReservationBytes,
			PoolBytes: pool, Platform: p.Name}))
	}
	return vs
}

// PortCountInvalid: fewer than one lossless port.
type PortCountInvalid struct{ Ports int }

func (r PortCountInvalid) Words(at violation.Field, name violation.Names) (string, string) {
	return "Invalid Port Count", fmt.Sprintf("%s is %d; it must be at least 1", name(at), r.Ports)
}

// ReservationNegative: a negative per-port reservation.
type ReservationNegative struct{ Bytes int64 }

func (r ReservationNegative) Words(at violation.Field, name violation.Names) (string, string) {
	return "Invalid Reservation", fmt.Sprintf("%s is %d; it must be 0 or more", name(at), r.Bytes)
}

// BufferExhausted: the ports' reservations together exceed the ingress lossless pool.
type BufferExhausted struct {
	Ports                   int
	PerPortBytes, PoolBytes int64
	Platform                string
}

func (r BufferExhausted) Words(violation.Field, violation.Names) (string, string) {
	return "Lossless Buffer Exhausted", fmt.Sprintf(
		"%d %s x %d B = %s B exceeds the %singress lossless pool of %d B: reserve at most %d B per port or use fewer lossless ports",
		r.Ports, plural(r.Ports, "port", "ports"), r.PerPortBytes, productString(r.PerPortBytes, int64(r.Ports)),
		modelPrefix(r.Platform), r.PoolBytes, r.PoolBytes/int64(r.Ports))
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

// ClassReservation is what one lossless class reserves on each port: the headroom of its
// priority group (the buffer manager's profile size, xon + xoff) and its PFC pause threshold.
type ClassReservation struct {
	Class                     string
	HeadroomBytes, PauseBytes int64
}

// Bytes is the class's reservation on one port.
func (c ClassReservation) Bytes() int64 { return c.HeadroomBytes + c.PauseBytes }

// CheckClassesCapacity checks that every lossless class's reservation fits the platform's
// ingress lossless pool on every port together: each lossless priority is its own priority
// group with its own headroom (a BUFFER_PG|<port>|3-4 applies its profile to PG 3 and to PG
// 4), so a port reserves the sum over its classes, and the pool the sum over its ports. One
// class is CheckCapacity.
func CheckClassesCapacity(p Platform, classes []ClassReservation, ports int) violation.List {
	if len(classes) == 1 {
		return CheckCapacity(p, classes[0].Bytes(), ports)
	}
	var perPort int64
	for _, c := range classes {
		if c.HeadroomBytes < 0 || c.PauseBytes < 0 || c.Bytes() > math.MaxInt64-perPort {
			return violation.List{violation.ErrorAt(FieldPerPortReservation, ReservationNegative{Bytes: min(c.HeadroomBytes, c.PauseBytes)})}
		}
		perPort += c.Bytes()
	}
	vs := CheckCapacity(p, perPort, ports)
	for i, v := range vs {
		if b, ok := v.Rule.(BufferExhausted); ok {
			vs[i].Rule = ClassesBufferExhausted{BufferExhausted: b, Classes: classes}
		}
	}
	return vs
}

// ClassesBufferExhausted: the lossless classes' reservations on every port together exceed
// the ingress lossless pool.
type ClassesBufferExhausted struct {
	BufferExhausted
	Classes []ClassReservation
}

func (r ClassesBufferExhausted) Words(violation.Field, violation.Names) (string, string) {
	parts := make([]string, len(r.Classes))
	for i, c := range r.Classes {
		parts[i] = fmt.Sprintf("%s %d + %d", c.Class, c.HeadroomBytes, c.PauseBytes)
	}
	b := r.BufferExhausted
	return "Lossless Buffer Exhausted", fmt.Sprintf(
		"%d lossless classes reserve headroom + pause threshold on every port (%s B = %d B per port); %d %s x %d B = %s B exceeds the %singress lossless pool of %d B: "+
			"keep the classes' reservations to at most %d B per port together (lower the pause thresholds), use fewer lossless ports, or drop a class",
		len(r.Classes), strings.Join(parts, ", "), b.PerPortBytes, b.Ports, plural(b.Ports, "port", "ports"), b.PerPortBytes,
		productString(b.PerPortBytes, int64(b.Ports)), modelPrefix(b.Platform), b.PoolBytes, b.PoolBytes/int64(b.Ports))
}
