package facts

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// CCParams holds the debugfs congestion-control parameters of one PCI
// function by file name, e.g. "rp_dce_tcp_g": 1019, "np_cnp_dscp": 48.
type CCParams map[string]int64

const ccRoot = "/sys/kernel/debug/mlx5"

// CCParamsScript returns the one command that prints the upstream debugfs
// cc_params of the given PCI functions (all mlx5 functions when none are
// given), one line per readable file:
//
//	<bdf> <name> <value>
//
// The files are mode 0600 under a root-only debugfs: run the script as root,
// e.g. shell.Sudo(shell.Sh(script), opts). Under kernel lockdown the files
// cannot be opened and the script prints nothing (see [ParseLockdown]). It
// fails for an argument that is not a PCI address.
func CCParamsScript(bdfs ...string) (shell.Script, error) { return ccParamsScript(ccRoot, bdfs) }

// ccParamsLoop prints every cc_params file of the PCI function in $b, whose directory is $c.
const ccParamsLoop = `for f in "$c"/*; do [ -f "$f" ] || continue; ` +
	`{ read -r v <"$f"; } 2>/dev/null || continue; ` +
	`printf '%s %s %s\n' "$b" "${f##*/}" "$v"; ` +
	`done`

func ccParamsScript(root string, bdfs []string) (shell.Script, error) {
	let := shell.Let("r_", root)
	if len(bdfs) == 0 {
		return shell.Seq(let, shell.Raw(`for c in "$r_"/*/cc_params; do b=${c%/cc_params}; b=${b##*/}; `+ccParamsLoop+`; done`)), nil
	}
	for _, b := range bdfs {
		if !validBDF(b) {
			return shell.Script{}, fmt.Errorf("cc_params: invalid PCI address %q", b)
		}
	}
	return shell.Seq(let, shell.ForIn("b", bdfs, `c=$r_/$b/cc_params; `+ccParamsLoop)), nil
}

// ParseCCParams reads the output of [CCParamsScript] into a map keyed by PCI
// address.
func ParseCCParams(out string) (map[string]CCParams, error) {
	const fact = "cc_params"
	res := map[string]CCParams{}
	for i, line := range lines(out) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 3 {
			return nil, lineError(fact, i+1, line, "want \"<bdf> <name> <value>\"")
		}
		v, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return nil, wrapLineError(fact, i+1, line, err, "value")
		}
		if res[f[0]] == nil {
			res[f[0]] = CCParams{}
		}
		res[f[0]][f[1]] = v
	}
	return res, nil
}
