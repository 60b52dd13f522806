package facts

import (
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// cmaRoCETosScript runs cma_roce_tos -d <dev> (no -t: it only prints) for
// every RDMA device and prints "<dev> <tos>" with the last line the tool
// printed. A device where it fails is left out, with the tool's last line on
// standard error; when it fails on every device the script exits 1 with that
// line last, and when the tool is missing (or says it is, as mlnx-tools'
// wrappers do without OFED) it exits 127. The last line is cut with parameter
// expansion after the last newline (nl_, made once), not with a tail pipeline
// per device. It is a trusted constant.
const cmaRoCETosScript = `command -v cma_roce_tos >/dev/null 2>&1 || { echo 'cma_roce_tos: command not found' >&2; exit 127; }; ` +
	`nl_=$(printf '\nx'); nl_=${nl_%x}; ` +
	`n=0; e=; for d in /sys/class/infiniband/*; do [ -e "$d" ] || continue; i=${d##*/}; ` +
	`v=$(cma_roce_tos -d "$i" </dev/null 2>&1); r=$?; l=${v##*"$nl_"}; ` +
	`if [ $r -eq 127 ]; then echo "$l" >&2; exit 127; fi; ` +
	`if [ $r -eq 0 ]; then printf '%s %s\n' "$i" "$l"; n=$((n + 1)); else e="cma_roce_tos -d $i: $l"; echo "$e" >&2; fi; done; ` +
	`if [ $n -eq 0 ] && [ -n "$e" ]; then exit 1; fi; exit 0`

// CMARoCETosScript returns the one command that reads the default ToS of
// RDMA-CM connections on port 1 of every RDMA device with mlnx-tools'
// cma_roce_tos, one line per device:
//
//	<dev> <tos>
//
// cma_roce_tos must run as root (it mounts configfs and creates, then
// removes, /sys/kernel/config/rdma_cm/<dev>). The script exits 127 when
// cma_roce_tos is not installed (it ships with OFED) and 1, with the tool's
// message last on standard error, when it fails on every device.
func CMARoCETosScript() shell.Script { return shell.Raw(cmaRoCETosScript) }

// CMARoCETosProbe is the RDMA-CM default ToS probe; its command must run as
// root.
var CMARoCETosProbe = Probe[map[string]int]{Name: "cma_roce_tos", Command: CMARoCETosScript(), Parse: ParseCMARoCETos}

// ParseCMARoCETos reads the output of [CMARoCETosScript] into the ToS of
// each RDMA device, 0..255.
func ParseCMARoCETos(out string) (map[string]int, error) {
	const fact = "cma_roce_tos"
	res := map[string]int{}
	for i, line := range lines(out) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return nil, lineError(fact, i+1, line, "want \"<device> <tos>\"")
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, wrapLineError(fact, i+1, line, err, "ToS")
		}
		if n < 0 || n > 255 {
			return nil, lineError(fact, i+1, line, "ToS %d is out of range 0..255", n)
		}
		if _, dup := res[f[0]]; dup {
			return nil, lineError(fact, i+1, line, "device %s listed twice", f[0])
		}
		res[f[0]] = n
	}
	return res, nil
}
