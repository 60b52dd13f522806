package health

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Class is a lossless traffic class of the fabric: a name for its priority's verdicts
// ("priority 4 (storage)"). A class on Options.Priority names the default class; any other
// is judged beside it.
type Class struct {
	Name     string
	Priority int
}

// judged are the priorities judged lossless end to end: Options.Priority first, then the
// classes' others in ascending order, each once.
func (j *judge) judged() []int {
	out := []int{j.o.Priority}
	var rest []int
	for _, c := range j.o.Classes {
		if !slices.Contains(out, c.Priority) && !slices.Contains(rest, c.Priority) {
			rest = append(rest, c.Priority)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// label names priority p in verdicts: "priority 4 (storage)", or "priority 4" when no class
// names it.
func (j *judge) label(p int) string {
	s := "priority " + strconv.Itoa(p)
	var names []string
	for _, c := range j.o.Classes {
		if c.Priority == p && !slices.Contains(names, c.Name) {
			names = append(names, c.Name)
		}
	}
	if len(names) > 0 {
		s += " (" + strings.Join(names, ", ") + ")"
	}
	return s
}

// of is " of priority 4 (storage)" for a priority a class names, for details that said no
// priority before classes were named; "" otherwise.
func (j *judge) of(p int) string {
	if l := j.label(p); l != "priority "+strconv.Itoa(p) {
		return " of " + l
	}
	return ""
}

// losslessText names the judged priorities: "the lossless priority 3", or "the lossless
// priorities 3, 4 (storage)".
func (j *judge) losslessText() string { return "the lossless " + j.losslessList() }

// losslessList is losslessText without its article: "priority 3", "priorities 3, 4 (storage)".
func (j *judge) losslessList() string {
	ps := j.judged()
	if len(ps) == 1 {
		return j.label(ps[0])
	}
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strings.TrimPrefix(j.label(p), "priority ")
	}
	return "priorities " + strings.Join(s, ", ")
}

// pfcVector is mlnx_qos's --pfc argument with PFC on prios: "0,0,0,1,1,0,0,0".
func pfcVector(prios []int) string {
	v := make([]string, numPriorities)
	for i := range v {
		v[i] = "0"
		if slices.Contains(prios, i) {
			v[i] = "1"
		}
	}
	return strings.Join(v, ",")
}

// nicPFCFix is how a NIC port gets PFC on the judged priorities, after verb ("enable PFC on",
// "set the NIC's PFC to"): for one priority its position in mlnx_qos's vector, for several
// the whole vector.
func (j *judge) nicPFCFix(verb, netdev string) string {
	ps := j.judged()
	if len(ps) == 1 {
		return fmt.Sprintf("%s %s only (mlnx_qos -i %s --pfc with 1 at position %d), as the switch has it", verb, j.label(ps[0]), netdev, ps[0])
	}
	return fmt.Sprintf("%s %s only (mlnx_qos -i %s --pfc %s), as the switch has them", verb, j.losslessList(), netdev, pfcVector(ps))
}

// ecnEnables names the files that enable DCQCN's point on every judged priority of h.
func (j *judge) ecnEnables(h HostPort, point string) string {
	var files []string
	for _, p := range j.judged() {
		files = append(files, ecnEnable(h, point, p))
	}
	return strings.Join(files, " and ")
}

// classesNotLossless are the class priorities a switch port that lists its lossless
// priorities leaves out: its PFC is not on for them, so the class drops under load.
func (j *judge) classesNotLossless(sp SwitchPort) []int {
	if len(sp.Lossless) == 0 {
		return nil
	}
	var out []int
	for _, p := range j.judged()[1:] {
		if !slices.Contains(sp.Lossless, p) {
			out = append(out, p)
		}
	}
	return out
}
