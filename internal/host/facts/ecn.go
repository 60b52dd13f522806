package facts

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// ECNState is the DCQCN state of one interface in the OFED ecn/ sysfs tree
// (/sys/class/net/<if>/ecn/roce_{rp,np}/), present only with MLNX_OFED or
// DOCA-OFED and writable only on a PF.
type ECNState struct {
	// RPEnabled reports, per priority, that this host reacts to CNPs as a
	// sender (roce_rp/enable/N).
	RPEnabled [8]bool
	// NPEnabled reports, per priority, that this host sends CNPs as a
	// receiver (roce_np/enable/N).
	NPEnabled [8]bool
	// RP holds the other roce_rp parameters by file name, e.g.
	// "dce_tcp_g": 1019, "rpg_ai_rate": 5.
	RP map[string]int64
	// NP holds the other roce_np parameters by file name, e.g.
	// "cnp_dscp": 48, "cnp_802p_prio": 6.
	NP map[string]int64
}

const ecnRoot = "/sys/class/net"

// ECNTreeScript returns the one command that prints the ecn/ tree of the
// given interfaces (all interfaces that have one when none are given), one
// space-separated line per readable file:
//
//	<iface> rp|np <name> <value>
//
// where name is a parameter file ("dce_tcp_g") or "enable/<prio>". It needs
// no privileges. Interfaces without an ecn/ tree (inbox driver) print
// nothing. It fails for a name that is not a valid interface name.
func ECNTreeScript(ifaces ...string) (shell.Script, error) { return ecnTreeScript(ecnRoot, ifaces) }

// ECNTreeProbe is the OFED DCQCN sysfs probe for the given interfaces.
func ECNTreeProbe(ifaces ...string) (Probe[map[string]ECNState], error) {
	s, err := ECNTreeScript(ifaces...)
	if err != nil {
		return Probe[map[string]ECNState]{}, err
	}
	return Probe[map[string]ECNState]{Name: "ecn", Command: s, Parse: ParseECNTree}, nil
}

// ecnLoop prints every DCQCN knob of the interface in $i, whose ecn directory is $e.
const ecnLoop = `for s in rp np; do d=$e/roce_$s; ` +
	`for f in "$d"/* "$d"/enable/*; do [ -f "$f" ] || continue; ` +
	`{ read -r v <"$f"; } 2>/dev/null || continue; ` +
	`printf '%s %s %s %s\n' "$i" "$s" "${f#"$d"/}" "$v"; ` +
	`done; done`

func ecnTreeScript(root string, ifaces []string) (shell.Script, error) {
	let := shell.Let("r_", root)
	if len(ifaces) == 0 {
		return shell.Seq(let, shell.Raw(`for e in "$r_"/*/ecn; do i=${e%/ecn}; i=${i##*/}; `+ecnLoop+`; done`)), nil
	}
	for _, ifc := range ifaces {
		if !ValidIfaceName(ifc) {
			return shell.Script{}, fmt.Errorf("ecn tree: invalid interface name %q", ifc)
		}
	}
	return shell.Seq(let, shell.ForIn("i", ifaces, `e=$r_/$i/ecn; `+ecnLoop)), nil
}

// ParseECNTree reads the output of [ECNTreeScript] into a map keyed by
// interface.
func ParseECNTree(out string) (map[string]ECNState, error) {
	const fact = "ecn"
	res := map[string]ECNState{}
	for i, line := range lines(out) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 || f[1] != "rp" && f[1] != "np" {
			return nil, lineError(fact, i+1, line, "want \"<iface> rp|np <name> <value>\"")
		}
		v, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			return nil, wrapLineError(fact, i+1, line, err, "value")
		}
		st, ok := res[f[0]]
		if !ok {
			st = ECNState{RP: map[string]int64{}, NP: map[string]int64{}}
		}
		if p, ok := strings.CutPrefix(f[2], "enable/"); ok {
			n, err := prio(p)
			if err != nil {
				return nil, wrapLineError(fact, i+1, line, err, "enable priority")
			}
			if f[1] == "rp" {
				st.RPEnabled[n] = v != 0
			} else {
				st.NPEnabled[n] = v != 0
			}
		} else if f[1] == "rp" {
			st.RP[f[2]] = v
		} else {
			st.NP[f[2]] = v
		}
		res[f[0]] = st
	}
	return res, nil
}
