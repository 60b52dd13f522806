package host

import (
	"slices"
	"strconv"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// OFEDPackages are the package patterns whose versions FactPackages reads:
// the OFED metapackages and the packages an OFED install replaces.
var OFEDPackages = []string{
	"doca-*", "mlnx-*", "ofed-scripts",
	"rdma-core", "ibverbs-utils", "ibverbs-providers", "libibverbs1",
}

// OFEDRPMPackages are the package patterns whose versions FactRPMPackages
// reads on a RHEL-family host: the OFED metapackages, the kernel packages in
// their RPM names (mlnx-ofa_kernel and its -modules, kmod- and -devel
// variants) and the packages an OFED install replaces.
var OFEDRPMPackages = []string{
	"doca-*", "mlnx-*", "kmod-mlnx-*", "ofed-scripts",
	"rdma-core", "libibverbs", "libibverbs-utils",
}

// step is one part of the gather script: a fact's command, or a loop that
// prints one section per ConnectX netdev.
type step struct {
	// label names the fact in errors and in Facts.Absent.
	label string
	// cmd is the fact's command (see isolated), when inline is nil.
	cmd shell.Command
	// inline, when set, returns a trusted constant run in the gather shell
	// itself (it may use the mlx5_ and mark_ functions); it is given the
	// step's index.
	inline func(index int) shell.Script
	// loop reports an inline step that marks one section per netdev (or PCI
	// function) itself, keyed by its name; others get one section, marked
	// after them. A loop that cannot run at all (its tool is missing) marks
	// one section without a key instead, which makes the fact absent.
	loop bool
	// key checks the keys of a loop's sections; nil means netdev names.
	key func(string) bool
	// ok lists the exit statuses whose output is parsed; others make the fact
	// absent. Empty means 0 only.
	ok []int
	// parse stores the output of a section in f.
	parse func(f *Facts, key, out string) error
}

// validKey reports whether key may name a section of the loop s.
func (s step) validKey(key string) bool {
	if s.key != nil {
		return s.key(key)
	}
	return facts.ValidIfaceName(key)
}

func (s step) accepts(status int) bool {
	if len(s.ok) == 0 {
		return status == 0
	}
	return slices.Contains(s.ok, status)
}

// isolated returns r as it runs in the gather script: a simple command as it
// is, a compound script in its own "sh -c" so that its variables and exits
// cannot touch the gather shell.
func isolated(r shell.Runnable) shell.Command {
	if c, ok := r.(shell.Command); ok {
		return c
	}
	return shell.Sh(r)
}

// gatherSteps returns the steps that read want, in the order of the FactID
// constants and then the files.
func gatherSteps(want Want) ([]step, error) {
	var steps []step
	for _, id := range want.IDs() {
		s, err := stepFor(id)
		if err != nil {
			return nil, err
		}
		steps = append(steps, s)
	}
	for _, p := range want.files {
		steps = append(steps, fileStep(p))
	}
	return steps, nil
}

func stepFor(id FactID) (step, error) {
	if id >= numFactIDs {
		return step{}, &unknownFactError{id}
	}
	s, err := factSteps[id]()
	s.label = factNames[id]
	return s, err
}

type unknownFactError struct{ f FactID }

func (e *unknownFactError) Error() string { return "unknown fact " + e.f.String() }

// netdevStep lists the ConnectX netdevs from sysfs.
func netdevStep() step {
	return step{
		inline: func(int) shell.Script { return shell.Raw(netdevLoop) },
		parse: func(f *Facts, _, out string) error {
			v, err := ParseNetdevs(out)
			f.Netdevs = v
			return err
		},
	}
}

// qosStep runs mlnx_qos on every ConnectX netdev that is not a VF (a VF
// prints only "not supported" lines), one section per netdev: mlnx_qos -i
// <netdev>, the name taken from a shell variable.
func qosStep() step {
	return step{
		loop: true,
		inline: func(index int) shell.Script {
			return shell.Raw(`for d_ in /sys/class/net/*; do mlx5_ "$d_" || continue; ` +
				`if [ -e "$d_/device/physfn" ]; then continue; fi; ` +
				`mlnx_qos -i "${d_##*/}" </dev/null; mark_ ` + strconv.Itoa(index) + ` $? "${d_##*/}"; done`)
		},
		parse: func(f *Facts, key, out string) error {
			v, err := facts.ParseMlnxQoS(out)
			if err != nil {
				return err
			}
			f.QoS[key] = v
			return nil
		},
	}
}

// ccParamsGuard runs before facts.CCParamsScript and turns the silence of an
// unreadable debugfs into a failure with a reason: not root, no debugfs, or
// a cc_params file that cannot be opened (kernel lockdown). It is a trusted
// constant.
const ccParamsGuard = `if [ "$(id -u)" != 0 ]; then ` +
	`echo 'debugfs cc_params can be read by root only: gather as root or with sudo' >&2; exit 1; fi; ` +
	`if [ ! -d /sys/kernel/debug/mlx5 ]; then ` +
	`echo '/sys/kernel/debug/mlx5 does not exist: debugfs is not mounted or mlx5_core made no directory there' >&2; exit 1; fi; ` +
	`for f in /sys/kernel/debug/mlx5/*/cc_params/*; do ` +
	`if [ ! -e "$f" ] && [ ! -h "$f" ]; then continue; fi; ` +
	`if ! e=$( { read -r v <"$f"; } 2>&1 ); then ` +
	`echo "debugfs refused (kernel lockdown?): ${f#/sys/kernel/debug/mlx5/}: ${e##*: }" >&2; exit 1; fi; ` +
	`break; done`

// ccParamsStep reads the debugfs cc_params of every mlx5 PCI function, in
// a shell of its own (facts.CCParamsScript uses plain variable names).
func ccParamsStep() (step, error) {
	script, err := facts.CCParamsScript()
	if err != nil {
		return step{}, err
	}
	return step{
		cmd: shell.Sh(shell.Seq(shell.Raw(ccParamsGuard), script)),
		parse: func(f *Facts, _, out string) error {
			v, err := facts.ParseCCParams(out)
			if err != nil {
				return err
			}
			f.CCParams = v
			return nil
		},
	}, nil
}

// nvConfigStep runs mlxconfig on every ConnectX PF without an OFED ecn/ tree
// (where the tree exists, DCQCN is set through it and mlxconfig, slow on real
// cards, is not needed), one section per PCI function keyed by its address
// (functions with several netdevs are queried once; VFs are skipped, mlxconfig
// refuses them): mlxconfig -d <bdf> -e q (default, current and next-boot
// values; root), the address taken from a shell variable.
// Without mlxconfig the loop marks one section without a key, status 127.
func nvConfigStep() step {
	return step{
		loop: true,
		key:  facts.ValidPCIAddr,
		inline: func(index int) shell.Script {
			i := strconv.Itoa(index)
			return shell.Raw(`if command -v mlxconfig >/dev/null 2>&1; then s_=' '; ` +
				`for d_ in /sys/class/net/*; do mlx5_ "$d_" || continue; ` +
				`if [ -e "$d_/device/physfn" ] || [ -d "$d_/ecn" ]; then continue; fi; ` +
				`cd -P "$d_/device" 2>/dev/null || continue; b_=${PWD##*/}; cd /; ` +
				`case $b_ in *[!0-9a-f:.]*|'') continue;; esac; ` +
				`case $s_ in *" $b_ "*) continue;; esac; s_="$s_$b_ "; ` +
				`mlxconfig -d "$b_" -e q </dev/null; mark_ ` + i + ` $? "$b_"; done; ` +
				`else echo 'mlxconfig: command not found' >&2; mark_ ` + i + ` 127; fi`)
		},
		parse: func(f *Facts, key, out string) error {
			v, err := facts.ParseMlxconfigQuery(out)
			if err != nil {
				return err
			}
			f.NVConfig[key] = v
			return nil
		},
	}
}

// fileStep reads one file.
func fileStep(path string) step {
	return step{
		label: fileLabel(path),
		cmd:   fileCommand(path),
		parse: func(f *Facts, _, out string) error {
			fi, err := ParseFileProbe(path, out)
			if err != nil {
				return err
			}
			f.Files[path] = fi
			return nil
		},
	}
}
