package facts

import (
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// PortCounters are one RDMA port's counters and its netdev's ethtool -S.
type PortCounters struct {
	// Device and Port are the RDMA port (mlx5_0, 1); Netdev its netdev, "" when it has none.
	Device string
	Port   int
	Netdev string
	// HW are the files of ports/<n>/hw_counters (mlx5: np_cnp_sent, rp_cnp_ignored, ...).
	HW map[string]uint64
	// Ethtool are the netdev's ethtool -S counters (rx_prio3_pause, ...); EthtoolError says why
	// they are missing.
	Ethtool      map[string]uint64
	EthtoolError string
	// Bonded are the other physical ports of a RoCE LAG device (mlx5_bond_0), which count
	// their own pauses and drops.
	Bonded []NetdevCounters
}

// NetdevCounters are one netdev's ethtool -S counters, or why they are missing.
type NetdevCounters struct {
	Netdev       string
	Ethtool      map[string]uint64
	EthtoolError string
}

// countersScript prints, per RDMA device, each port's hw_counters as grep -H prints them
// ("<path>:<value>") after a "== port <device> <port> <netdev>..." marker, then each netdev's
// ethtool -S after "== ethtool <netdev>". One command per host: the counters are a sample, read
// twice an interval apart.
//
// The netdev is the device's PCI function's net/ entry, as the kernel lays it out
// (/sys/class/infiniband/<dev>/device/net/<netdev>). A RoCE LAG device hangs off its first PF
// only (drivers/infiniband/hw/mlx5/main.c sets the parent to mdev->device; lag/lag.c creates no
// IB device for the other PFs while bonded), so its other ports are the lower netdevs of that
// PF's bond master (net/core/dev.c links master and lower_<name> in sysfs) that mlx5_core
// drives and that have no RDMA device of their own. Netdev names hold no blanks
// (net/core/dev.c dev_valid_name); globbing is off while the list is split.
const countersScript = `PATH=$PATH:/usr/sbin:/sbin; ` + // ethtool lives in /usr/sbin, outside a login user's PATH on Debian
	`for d in /sys/class/infiniband/*; do ` +
	`[ -d "$d/ports" ] || continue; dev=${d##*/}; nd=; ` +
	`for n in "$d"/device/net/*; do if [ -e "$n" ]; then nd=${n##*/}; break; fi; done; ` +
	`nds=$nd; ` +
	`if [ -n "$nd" ]; then for l in /sys/class/net/"$nd"/master/lower_*; do ` +
	`l=${l##*/lower_}; [ "$l" != "$nd" ] && [ -e /sys/class/net/"$l" ] || continue; ` +
	`case $(readlink /sys/class/net/"$l"/device/driver 2>/dev/null) in */mlx5_core) ;; *) continue;; esac; ` +
	`for i in /sys/class/net/"$l"/device/infiniband/*; do [ -e "$i" ] && continue 2; done; ` +
	`nds="$nds $l"; done; fi; ` +
	`for p in "$d"/ports/*; do [ -d "$p/hw_counters" ] || continue; echo "== port $dev ${p##*/} $nds"; grep -H '' "$p"/hw_counters/* 2>/dev/null; done; ` +
	`set -f; for n in $nds; do echo "== ethtool $n"; ethtool -S "$n" 2>&1 || echo "== ethtool-failed $n"; done; set +f; ` +
	`done`

// CountersProbe reads every RDMA port's counters. It needs no root: hw_counters are world
// readable and ethtool's statistics query is unprivileged.
var CountersProbe = Probe[[]PortCounters]{Name: "roce_counters", Command: shell.Raw(countersScript), Parse: ParseCounters}

// lifespanFile is hw_counters' cache period in milliseconds (Documentation/ABI/stable/
// sysfs-class-infiniband), not a counter.
const lifespanFile = "lifespan"

// ParseCounters reads countersScript's output.
func ParseCounters(out string) ([]PortCounters, error) {
	const fact = "roce_counters"
	var ports []PortCounters
	// byNetdev finds the ports reading a netdev: the port's index and -1 for its own netdev,
	// or the index in its Bonded.
	type reader struct{ port, bonded int }
	byNetdev := map[string][]reader{}
	set := func(netdev string, stats map[string]uint64, why string) {
		for _, r := range byNetdev[netdev] {
			p := &ports[r.port]
			if r.bonded < 0 {
				p.Ethtool, p.EthtoolError = stats, why
			} else {
				p.Bonded[r.bonded].Ethtool, p.Bonded[r.bonded].EthtoolError = stats, why
			}
		}
	}
	var ethtool []string // the ethtool -S block being read
	ethNetdev := ""
	flush := func() {
		if ethNetdev == "" {
			return
		}
		stats, err := ParseEthtoolStats(strings.Join(ethtool, "\n"))
		if err != nil {
			set(ethNetdev, nil, err.Error())
		} else {
			set(ethNetdev, stats, "")
		}
		ethNetdev, ethtool = "", nil
	}
	cur := -1
	for i, line := range lines(out) {
		if rest, ok := strings.CutPrefix(line, "== "); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[0] == "ethtool-failed" {
				set(f[1], nil, "ethtool -S "+f[1]+" failed: "+strings.TrimSpace(strings.Join(ethtool, " ")))
				ethNetdev, ethtool = "", nil
				continue
			}
			flush()
			switch {
			case len(f) >= 3 && f[0] == "port":
				n, err := strconv.Atoi(f[2])
				if err != nil || n < 1 {
					return nil, lineError(fact, i+1, line, "port is not a positive number")
				}
				pc := PortCounters{Device: f[1], Port: n, HW: map[string]uint64{}}
				cur = len(ports)
				for j, nd := range f[3:] {
					if j == 0 {
						pc.Netdev = nd
					} else {
						pc.Bonded = append(pc.Bonded, NetdevCounters{Netdev: nd})
					}
					byNetdev[nd] = append(byNetdev[nd], reader{cur, j - 1})
				}
				ports = append(ports, pc)
			case len(f) == 2 && f[0] == "ethtool":
				ethNetdev, cur = f[1], -1
			default:
				return nil, lineError(fact, i+1, line, "unknown marker")
			}
			continue
		}
		if ethNetdev != "" {
			ethtool = append(ethtool, line)
			continue
		}
		if cur < 0 {
			return nil, lineError(fact, i+1, line, "counter before any port marker")
		}
		k := strings.LastIndexByte(line, ':')
		path, value, ok := line[:max(k, 0)], line[k+1:], k >= 0
		if !ok {
			return nil, lineError(fact, i+1, line, `want "<path>:<value>"`)
		}
		v, err := strconv.ParseUint(strings.TrimSpace(value), 10, 64)
		if err != nil {
			return nil, lineError(fact, i+1, line, "counter value is not a decimal")
		}
		if name := path[strings.LastIndexByte(path, '/')+1:]; name != lifespanFile {
			ports[cur].HW[name] = v
		}
	}
	flush()
	return ports, nil
}

// ParseEthtoolStats reads ethtool -S: a "NIC statistics:" header and one "name: value" line per
// counter, indented (ethtool's do_gstats prints "     %s: %llu"). Names may contain spaces or
// brackets on some drivers; the value is after the last ": ".
func ParseEthtoolStats(out string) (map[string]uint64, error) {
	const fact = "ethtool -S"
	ls := lines(out)
	if len(ls) == 0 {
		return nil, &ParseError{Fact: fact, Err: ErrEmpty}
	}
	if strings.TrimSpace(ls[0]) != "NIC statistics:" {
		return nil, lineError(fact, 1, ls[0], `want the "NIC statistics:" header`)
	}
	stats := map[string]uint64{}
	for i, line := range ls[1:] {
		if strings.TrimSpace(line) == "" {
			continue
		}
		k := strings.LastIndex(line, ": ")
		if k < 0 {
			return nil, lineError(fact, i+2, line, `want "name: value"`)
		}
		name := strings.TrimSpace(line[:k])
		v, err := strconv.ParseUint(strings.TrimSpace(line[k+2:]), 10, 64)
		if err != nil || name == "" {
			return nil, lineError(fact, i+2, line, "counter value is not a decimal")
		}
		stats[name] = v
	}
	return stats, nil
}
