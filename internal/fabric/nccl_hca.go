package fabric

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// ncclMaxHCAs is the most entries NCCL reads from NCCL_IB_HCA.
const ncclMaxHCAs = 32

var hcaNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// HCASpec is a parsed NCCL_IB_HCA value. Exclude ("^") selects every HCA
// but the entries; Exact ("=") matches names exactly instead of as prefixes.
type HCASpec struct {
	Exclude, Exact bool
	Entries        []HCAEntry
}

// HCAEntry is one device of an NCCL_IB_HCA list; Port 0 means all ports.
type HCAEntry struct {
	Device string
	Port   int
}

// ErrHCARailPlane marks an NCCL_IB_HCA entry with more than a port after the
// device: the name:port:rail:plane form that NCCL reads from 2.30.7-1 on
// (NVIDIA/nccl v2.30.7-1, src/transport/net_ib/init.cc).
var ErrHCARailPlane = errors.New("rail and plane suffixes are not supported")

// ParseHCAList parses "[^][=]name[:port],..." as NCCL does. "^" must come
// before "="; at most 32 entries; names are device names such as mlx5_0;
// ports are 1..255. NCCL's newer ":rail:plane" suffixes are not accepted: the
// error wraps [ErrHCARailPlane].
func ParseHCAList(s string) (HCASpec, error) {
	var h HCASpec
	rest, err := parseListFlags(s, &h.Exclude, &h.Exact)
	if err != nil {
		return HCASpec{}, fmt.Errorf("NCCL_IB_HCA %w", err)
	}
	items := strings.Split(rest, ",")
	if len(items) > ncclMaxHCAs {
		return HCASpec{}, fmt.Errorf("NCCL_IB_HCA %q has %d entries: NCCL reads at most %d", s, len(items), ncclMaxHCAs)
	}
	for _, item := range items {
		e, err := parseHCAEntry(item)
		if err != nil {
			return HCASpec{}, fmt.Errorf("NCCL_IB_HCA %q: %w", s, err)
		}
		if slices.Contains(h.Entries, e) {
			return HCASpec{}, fmt.Errorf("NCCL_IB_HCA %q lists %q twice: give each entry once", s, item)
		}
		h.Entries = append(h.Entries, e)
	}
	return h, nil
}

// parseListFlags strips the leading "^" and "=" of an NCCL list.
func parseListFlags(s string, exclude, exact *bool) (string, error) {
	if s == "" {
		return "", fmt.Errorf("is empty: list at least one name")
	}
	if strings.HasPrefix(s, "=^") {
		return "", fmt.Errorf("%q puts = before ^: ^ must precede =, write %q", s, "^="+s[2:])
	}
	rest, found := strings.CutPrefix(s, "^")
	*exclude = found
	rest, *exact = strings.CutPrefix(rest, "=")
	return rest, nil
}

func parseHCAEntry(item string) (HCAEntry, error) {
	name, port, hasPort := strings.Cut(item, ":")
	switch {
	case item == "":
		return HCAEntry{}, fmt.Errorf("empty entry: remove the extra comma")
	case strings.ContainsAny(item, "^="):
		return HCAEntry{}, fmt.Errorf("entry %q contains ^ or =: they apply to the whole list, put them once at its start", item)
	case !hcaNameRE.MatchString(name):
		return HCAEntry{}, fmt.Errorf("entry %q has device name %q: use a name such as mlx5_0", item, name)
	case !hasPort:
		return HCAEntry{Device: name}, nil
	case strings.Contains(port, ":"):
		return HCAEntry{}, fmt.Errorf("entry %q has more than a port after the device: %w, use name:port", item, ErrHCARailPlane)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 255 {
		return HCAEntry{}, fmt.Errorf("entry %q has port %q: use a port number 1..255 or omit it for all ports", item, port)
	}
	return HCAEntry{Device: name, Port: n}, nil
}

// String renders the spec in NCCL_IB_HCA syntax.
func (h HCASpec) String() string {
	var b strings.Builder
	if h.Exclude {
		b.WriteString("^")
	}
	if h.Exact {
		b.WriteString("=")
	}
	for i, e := range h.Entries {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(e.Device)
		if e.Port != 0 {
			b.WriteString(":" + strconv.Itoa(e.Port))
		}
	}
	return b.String()
}

// Selects reports whether NCCL, reading h, uses port of device: an entry matches a device by
// its name (a prefix unless the list is exact) and its port (any when the entry has none),
// and "^" selects what no entry matches (matchIf and matchIfList in NVIDIA/nccl
// src/misc/utils.cc at v2.21.5-1).
func (h HCASpec) Selects(device string, port int) bool {
	match := slices.ContainsFunc(h.Entries, func(e HCAEntry) bool {
		name := device == e.Device || (!h.Exact && strings.HasPrefix(device, e.Device))
		return name && (e.Port == 0 || e.Port == port)
	})
	return match != h.Exclude
}

// HCAPrefixWarnings warns about the prefix matching of an NCCL_IB_HCA value h.
// NCCL takes each name as a prefix of the device names unless the list starts
// with "=" (after "^", which excludes the entries instead): see matchIf and
// matchIfList in NVIDIA/nccl src/misc/utils.cc, called from ncclIbInitDevices
// (src/transport/net_ib/init.cc at v2.30.7-1; src/transport/net_ib.cc at
// v2.21.5-1). With no known devices (at plan time) it warns about each entry
// of a prefix list whose name ends in a digit (mlx5_1 would also select
// mlx5_10). With known devices it warns about entries that match none of them
// and about entries that select other devices as well. The warnings are on
// at, the caller's field that holds the value.
func HCAPrefixWarnings(h HCASpec, known []string, at violation.Field) violation.List {
	return hcaWarnings(h, known, at, hcaCheck{})
}

// HCADeviceWarnings checks h against the RDMA devices of hosts, which all have
// the names devices, and names the hosts in its warnings: entries that match
// none of the devices, and entries that select other devices as well. It
// leaves out what HCAPrefixWarnings(h, nil, at) says at plan time: an entry
// warned about there gets no second prefix warning here.
func HCADeviceWarnings(h HCASpec, hosts, devices []string, at violation.Field) violation.List {
	if len(devices) == 0 {
		return nil
	}
	return hcaWarnings(h, devices, at, hcaCheck{on: strings.Join(hosts, ", "), planned: true})
}

// hcaCheck is how hcaWarnings words and filters its warnings.
type hcaCheck struct {
	// on names the hosts the known devices are from; empty for none.
	on string
	// planned leaves out the prefix warnings that the check without known devices gives.
	planned bool
}

func hcaWarnings(h HCASpec, known []string, at violation.Field, c hcaCheck) violation.List {
	var vs violation.List
	for _, e := range h.Entries {
		if r, ok := hcaEntryWarning(h, e, known, c); ok {
			vs = append(vs, violation.WarningAt(at, r))
		}
	}
	return vs
}

func hcaEntryWarning(h HCASpec, e HCAEntry, known []string, c hcaCheck) (HCAMatch, bool) {
	var matched, extra []string
	for _, k := range known {
		if k == e.Device {
			matched = append(matched, k)
		} else if !h.Exact && strings.HasPrefix(k, e.Device) {
			matched = append(matched, k)
			extra = append(extra, k)
		}
	}
	prefixWarned := !h.Exact && endsInDigit(e.Device)
	r := HCAMatch{Entry: e.Device, On: c.on}
	switch {
	case len(known) > 0 && len(matched) == 0:
		r.Kind, r.Devices = HCANotFound, known
	case len(extra) > 0 && c.planned && prefixWarned:
		return r, false
	case len(extra) > 0 && len(extra) == len(matched):
		// No device has the entry's own name: the prefix is the point, and "=" would select none.
		r.Kind, r.Devices, r.Fix = HCAOnlyPrefix, extra, exactWith(h, e, extra)
	case len(extra) > 0:
		r.Kind, r.Devices, r.Fix = HCAAlsoMatches, extra, exactForm(h)
	case len(known) == 0 && prefixWarned:
		r.Kind, r.Fix = HCAPrefixUnknown, exactForm(h)
	default:
		return r, false
	}
	return r, true
}

// HCAMatchKind is how an NCCL_IB_HCA entry matches devices unexpectedly.
type HCAMatchKind int

const (
	// HCANotFound: the entry matches none of the devices.
	HCANotFound HCAMatchKind = iota
	// HCAOnlyPrefix: no device has the entry's name; it selects others as a prefix.
	HCAOnlyPrefix
	// HCAAlsoMatches: the entry selects its device and others as a prefix.
	HCAAlsoMatches
	// HCAPrefixUnknown: devices unknown, and the entry would select longer names.
	HCAPrefixUnknown
)

// HCAMatch: an NCCL_IB_HCA entry that matches devices it probably should not, with the
// devices (all known ones for HCANotFound, the extra ones otherwise), the hosts they are on
// (empty when unknown) and the list to write instead.
type HCAMatch struct {
	Kind    HCAMatchKind
	Entry   string
	Devices []string
	On      string
	Fix     string
}

func (r HCAMatch) Words(at violation.Field, name violation.Names) (string, string) {
	on := ""
	if r.On != "" {
		on = " on " + r.On
	}
	switch r.Kind {
	case HCANotFound:
		devices := "the devices " + strings.Join(r.Devices, ", ")
		if r.On != "" {
			devices = "the devices of " + r.On + " (" + strings.Join(r.Devices, ", ") + ")"
		}
		return "HCA Not Found", fmt.Sprintf("%s entry %q matches none of %s: check the device name", name(at), r.Entry, devices)
	case HCAOnlyPrefix:
		return "HCA Name Matches as a Prefix", fmt.Sprintf(
			"%s entry %q is no device name and selects %s%s as a prefix: list the devices with = (%q) so that a device added later is not selected too",
			name(at), r.Entry, strings.Join(r.Devices, ", "), on, r.Fix)
	case HCAAlsoMatches:
		return "HCA Name Matches as a Prefix", fmt.Sprintf(
			"%s entry %q also matches %s%s because NCCL_IB_HCA names are prefixes: start the list with = (%q) for exact names",
			name(at), r.Entry, strings.Join(r.Devices, ", "), on, r.Fix)
	}
	return "HCA Name Matches as a Prefix", fmt.Sprintf(
		"%s entry %q is a prefix and would also match %s0..%s9 and longer names: start the list with = (%q) for exact names",
		name(at), r.Entry, r.Entry, r.Entry, r.Fix)
}

// exactWith is h in the exact form with entry e replaced by the devices it selects.
func exactWith(h HCASpec, e HCAEntry, devices []string) string {
	var entries []HCAEntry
	for _, x := range h.Entries {
		if x != e {
			entries = append(entries, x)
			continue
		}
		for _, d := range devices {
			if x := (HCAEntry{Device: d, Port: e.Port}); !slices.Contains(h.Entries, x) {
				entries = append(entries, x)
			}
		}
	}
	h.Entries = entries
	return exactForm(h)
}

func exactForm(h HCASpec) string {
	h.Exact = true
	return h.String()
}

func endsInDigit(s string) bool {
	return s != "" && s[len(s)-1] >= '0' && s[len(s)-1] <= '9'
}

// checkIfaceList checks an NCCL_SOCKET_IFNAME value: "[^][=]name,...".
func checkIfaceList(value string) error {
	if len(value) <= 1 {
		return fmt.Errorf("value %q is ignored by NCCL (it needs more than 1 character): name the interface or its prefix", value)
	}
	var exclude, exact bool
	rest, err := parseListFlags(value, &exclude, &exact)
	if err != nil {
		return fmt.Errorf("interface list %w", err)
	}
	for _, name := range strings.Split(rest, ",") {
		if name == "" || len(name) > 15 || strings.ContainsAny(name, " \t/^=") {
			return fmt.Errorf("interface list %q has entry %q: use interface names of 1 to 15 characters without spaces or /", value, name)
		}
	}
	return nil
}
