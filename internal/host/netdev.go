package host

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// Netdev is one ConnectX (mlx5) network interface as sysfs shows it.
type Netdev struct {
	// Name is the interface, e.g. "ens1f0np0".
	Name string
	// PCIAddr is the PCI function, e.g. "0000:17:00.0".
	PCIAddr string
	// IsVF reports an SR-IOV virtual function (device/physfn exists): its
	// ecn/ files are read-only and mlnx_qos cannot set its QoS.
	IsVF bool
	// RDMADevice is the RDMA device of the same function, e.g. "mlx5_0";
	// empty when the RDMA driver is not loaded.
	RDMADevice string
	// OperState is the link state, e.g. "up" or "down".
	OperState string
	// MTU is the interface MTU; 0 when unreadable.
	MTU int
}

// mlx5Func is the shell function the gather script's netdev loops use to
// pick ConnectX netdevs: a Mellanox PCI function (vendor 0x15b3) whose driver,
// when sysfs shows one, is mlx5_core. It is a trusted constant.
const mlx5Func = `mlx5_() { v_=; { read -r v_ <"$1/device/vendor"; } 2>/dev/null; ` +
	`[ "$v_" = 0x15b3 ] || return 1; [ -e "$1/device/driver" ] || return 0; ` +
	`cd -P "$1/device/driver" 2>/dev/null || return 1; dr_=$PWD; cd /; [ "${dr_##*/}" = mlx5_core ]; }`

// netdevLoop prints one tab-separated line per ConnectX netdev:
//
//	<name> TAB <pci address> TAB <1 if VF else 0> TAB <rdma device> TAB <operstate> TAB <mtu>
//
// It reads sysfs with shell builtins and cd -P (no subshell; see the
// prologue) and needs no privileges. It is a trusted constant.
const netdevLoop = `for d_ in /sys/class/net/*; do mlx5_ "$d_" || continue; ` +
	`b_=; if cd -P "$d_/device" 2>/dev/null; then b_=$PWD; cd /; fi; ` +
	`vf_=0; if [ -e "$d_/device/physfn" ]; then vf_=1; fi; ` +
	`ib_=; for r_ in "$d_"/device/infiniband/*; do if [ -e "$r_" ]; then ib_=${r_##*/}; fi; break; done; ` +
	`o_=; { read -r o_ <"$d_/operstate"; } 2>/dev/null; ` +
	`m_=; { read -r m_ <"$d_/mtu"; } 2>/dev/null; ` +
	`printf '%s\t%s\t%s\t%s\t%s\t%s\n' "${d_##*/}" "${b_##*/}" "$vf_" "$ib_" "$o_" "$m_"; done`

// ParseNetdevs reads the output of the gather script's netdev loop and
// returns the netdevs sorted by name.
func ParseNetdevs(out string) ([]Netdev, error) {
	fact := FactNetdevs.String()
	var res []Netdev
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			return nil, &facts.ParseError{Fact: fact, Line: i + 1, Text: cut(line), Msg: "want 6 tab-separated fields"}
		}
		if !facts.ValidIfaceName(f[0]) || f[2] != "0" && f[2] != "1" {
			return nil, &facts.ParseError{Fact: fact, Line: i + 1, Text: cut(line), Msg: "want <iface> <pci> 0|1 <rdma> <state> <mtu>"}
		}
		n := Netdev{Name: f[0], PCIAddr: f[1], IsVF: f[2] == "1", RDMADevice: f[3], OperState: f[4]}
		if f[5] != "" {
			mtu, err := strconv.ParseUint(f[5], 10, 31)
			if err != nil {
				return nil, &facts.ParseError{Fact: fact, Line: i + 1, Text: cut(line), Msg: "mtu", Err: err}
			}
			n.MTU = int(mtu)
		}
		res = append(res, n)
	}
	slices.SortFunc(res, func(a, b Netdev) int { return cmp.Compare(a.Name, b.Name) })
	return res, nil
}
