package facts

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// GIDType is the kind of a GID table entry.
type GIDType string

// The GID types. sysfs prints "IB/RoCE v1" for both InfiniBand and RoCE v1;
// [ParseGIDTable] tells them apart by the presence of a netdev.
const (
	GIDRoCEv1 GIDType = "RoCE v1"
	GIDRoCEv2 GIDType = "RoCE v2"
	GIDIB     GIDType = "IB"
)

// GIDEntry is one populated slot of an RDMA port's GID table.
type GIDEntry struct {
	// Device is the RDMA device, e.g. "mlx5_0".
	Device string
	// Port is the port number, from 1.
	Port int
	// Index is the GID table index (the value for NCCL_IB_GID_INDEX).
	Index int
	// GID is the address as sysfs prints it, 8 groups of 4 hex digits.
	GID string
	// Type is RoCE v1, RoCE v2 or IB; other text is kept as printed.
	Type GIDType
	// Netdev is the network interface the entry belongs to; empty for IB.
	Netdev string
	// IPv4 reports an IPv4-mapped GID (::ffff:a.b.c.d).
	IPv4 bool
}

// IP returns the GID as an address; IPv4-mapped GIDs come back as IPv4. The
// result is invalid when the GID cannot be read as an IPv6 address.
func (e GIDEntry) IP() netip.Addr {
	a, err := parseGID(e.GID)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}

// gidRoot is where the kernel publishes RDMA devices.
const gidRoot = "/sys/class/infiniband"

// GIDTableScript returns the one command that prints every populated GID of
// every RDMA device and port, one tab-separated line per entry:
//
//	<device> TAB <port> TAB <index> TAB <gid> TAB <type> TAB <netdev>
//
// It reads /sys/class/infiniband/*/ports/*/gids/N with the shell's read
// builtin (no process per file), skips all-zero GIDs and entries whose files
// cannot be read (unused slots return EINVAL for their type), and prints an
// empty netdev when gid_attrs/ndevs/N cannot be read (InfiniBand ports). It
// needs no privileges and prints nothing on a host without RDMA devices.
func GIDTableScript() shell.Script { return gidTableScript(gidRoot) }

// GIDTableProbe is the GID table probe.
var GIDTableProbe = Probe[[]GIDEntry]{Name: "gid_table", Command: GIDTableScript(), Parse: ParseGIDTable}

func gidTableScript(root string) shell.Script {
	return shell.Seq(shell.Let("r_", root), shell.Raw(`for g in "$r_"/*/ports/*/gids/*; do `+
		`{ read -r gid <"$g"; } 2>/dev/null || continue; `+
		`case $gid in ''|0000:0000:0000:0000:0000:0000:0000:0000) continue;; esac; `+
		`n=${g##*/}; p=${g%/gids/*}; port=${p##*/}; d=${p%/ports/*}; dev=${d##*/}; `+
		`{ read -r typ <"$p/gid_attrs/types/$n"; } 2>/dev/null || continue; `+
		`{ read -r nd <"$p/gid_attrs/ndevs/$n"; } 2>/dev/null || nd=; `+
		`printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$dev" "$port" "$n" "$gid" "$typ" "$nd"; `+
		`done`))
}

// ParseGIDTable reads the output of [GIDTableScript] and returns the entries
// sorted by device, port and index. All-zero GIDs are dropped.
func ParseGIDTable(out string) ([]GIDEntry, error) {
	const fact = "gid_table"
	var entries []GIDEntry
	for i, line := range lines(out) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			return nil, lineError(fact, i+1, line, "want 6 tab-separated fields, got %d", len(f))
		}
		e := GIDEntry{Device: f[0], GID: strings.TrimSpace(f[3]), Netdev: strings.TrimSpace(f[5])}
		var err error
		if e.Port, err = atoi(f[1]); err != nil {
			return nil, wrapLineError(fact, i+1, line, err, "port")
		}
		if e.Index, err = atoi(f[2]); err != nil {
			return nil, wrapLineError(fact, i+1, line, err, "index")
		}
		if e.Device == "" || e.Port < 0 || e.Index < 0 {
			return nil, lineError(fact, i+1, line, "bad device, port or index")
		}
		addr, err := parseGID(e.GID)
		if err != nil {
			return nil, wrapLineError(fact, i+1, line, err, "gid")
		}
		if addr.IsUnspecified() {
			continue
		}
		e.IPv4 = addr.Is4In6()
		e.Type = gidType(strings.TrimSpace(f[4]), e.Netdev)
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b GIDEntry) int {
		return cmp.Or(strings.Compare(a.Device, b.Device), cmp.Compare(a.Port, b.Port), cmp.Compare(a.Index, b.Index))
	})
	return entries, nil
}

// gidType maps the sysfs type text to a GIDType.
func gidType(s, netdev string) GIDType {
	switch s {
	case "RoCE v2":
		return GIDRoCEv2
	case "IB/RoCE v1", "RoCE v1":
		if netdev == "" {
			return GIDIB
		}
		return GIDRoCEv1
	case "IB":
		return GIDIB
	}
	return GIDType(s)
}

// parseGID reads the sysfs form (8 groups of 4 hex digits), which
// netip.ParseAddr accepts as IPv6 text, or any other IPv6 text.
func parseGID(s string) (netip.Addr, error) {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, err
	}
	if !a.Is6() || a.Zone() != "" {
		return netip.Addr{}, fmt.Errorf("%q is not an IPv6 GID", s)
	}
	return a, nil
}

// RoCEv2IPv4Index returns the lowest GID index of device whose entry is RoCE
// v2 with an IPv4-mapped address: the index NCCL before 2.21 needs in
// NCCL_IB_GID_INDEX. It looks at the lowest-numbered port that has one. ok is
// false when the device has no such entry.
func RoCEv2IPv4Index(entries []GIDEntry, device string) (index int, ok bool) {
	best := GIDEntry{Port: -1}
	for _, e := range entries {
		if e.Device != device || e.Type != GIDRoCEv2 || !e.IPv4 {
			continue
		}
		if best.Port < 0 || e.Port < best.Port || e.Port == best.Port && e.Index < best.Index {
			best = e
		}
	}
	if best.Port < 0 {
		return 0, false
	}
	return best.Index, true
}
