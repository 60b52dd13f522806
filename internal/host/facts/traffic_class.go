package facts

import (
	"errors"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// NoTrafficClass is the traffic class of a port that forces none: the
// applications choose their class.
const NoTrafficClass = -1

// trafficClassScript prints every line of tc/1/traffic_class of every RDMA
// device, prefixed with the device and a space; an empty file prints the
// device and a space alone. A file that cannot be read is left out, with
// cat's message on standard error. The lines are split with parameter
// expansion on a newline made once (nl_), not with a pipeline per device. It
// is a trusted constant.
const trafficClassScript = `nl_=$(printf '\nx'); nl_=${nl_%x}; for f in /sys/class/infiniband/*/tc/1/traffic_class; do ` +
	`[ -e "$f" ] || continue; d=${f%/tc/1/traffic_class}; d=${d##*/}; ` +
	`v=$(cat -- "$f") || continue; ` +
	`while :; do case $v in *"$nl_"*) printf '%s %s\n' "$d" "${v%%"$nl_"*}"; v=${v#*"$nl_"};; ` +
	`*) printf '%s %s\n' "$d" "$v"; break;; esac; done; done`

// TrafficClassScript returns the one command that prints the OFED
// port-global RoCE traffic class of port 1 of every RDMA device that has
// one (/sys/class/infiniband/<dev>/tc/1/traffic_class), one line per line of
// the file:
//
//	<dev> <line of the file>
//
// and "<dev> " for an empty file. It needs no privileges. The file exists
// only with MLNX_OFED or DOCA-OFED: an inbox host prints nothing.
func TrafficClassScript() shell.Script { return shell.Raw(trafficClassScript) }

// TrafficClassProbe is the OFED traffic_class probe of every RDMA device.
var TrafficClassProbe = Probe[map[string]int]{Name: "traffic_class", Command: TrafficClassScript(), Parse: ParseTrafficClasses}

// ParseTrafficClasses reads the output of [TrafficClassScript] into the
// traffic class of each RDMA device ([NoTrafficClass] when none is forced).
func ParseTrafficClasses(out string) (map[string]int, error) {
	const fact = "traffic_class"
	var order []string
	content := map[string][]string{}
	for i, line := range lines(out) {
		dev, rest, ok := strings.Cut(line, " ")
		if !ok || dev == "" {
			return nil, lineError(fact, i+1, line, "want \"<device> <line of traffic_class>\"")
		}
		if _, seen := content[dev]; !seen {
			order = append(order, dev)
		}
		content[dev] = append(content[dev], rest)
	}
	res := make(map[string]int, len(order))
	for _, dev := range order {
		v, err := ParseTrafficClass(strings.Join(content[dev], "\n"))
		if err != nil {
			var pe *ParseError
			if errors.As(err, &pe) {
				pe.Fact = fact + " " + dev
			}
			return nil, err
		}
		res[dev] = v
	}
	return res, nil
}

// ParseTrafficClass reads one tc/<port>/traffic_class file. OFED prints
// "Global tclass=106" when a port-global class is set, followed by one line
// per address rule ("dst_ip=10.0.0.0/8,tclass=106"), and nothing when none
// is; some versions print the bare number. The result is the global class,
// 0..255, or [NoTrafficClass] when there is none (empty file, rules only, or
// a negative value, which is how OFED clears it). Rules are not returned.
func ParseTrafficClass(content string) (int, error) {
	const fact = "traffic_class"
	global := NoTrafficClass
	found := false
	for i, raw := range lines(content) {
		line := strings.TrimSpace(raw)
		var num string
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "Global"):
			k, v, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(line, "Global")), "=")
			if !ok || strings.TrimSpace(k) != "tclass" {
				return 0, lineError(fact, i+1, raw, "want \"Global tclass=<n>\"")
			}
			num = strings.TrimSpace(v)
		case strings.Contains(line, "tclass="):
			continue // an address rule
		default:
			num = line
		}
		if found {
			return 0, lineError(fact, i+1, raw, "a second global traffic class")
		}
		n, err := strconv.Atoi(num)
		if err != nil {
			return 0, wrapLineError(fact, i+1, raw, err, "want a number")
		}
		if n > 255 {
			return 0, lineError(fact, i+1, raw, "traffic class %d is out of range 0..255", n)
		}
		if n >= 0 {
			global = n
		}
		found = true
	}
	return global, nil
}
