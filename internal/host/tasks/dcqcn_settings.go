package tasks

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
)

// dcqcnSetting is one value a DCQCN task sets, named as the OFED ecn/ sysfs
// tree names it. The live plans and the Persistence script both render
// their writes from these, so boot re-applies exactly what the task set.
type dcqcnSetting struct {
	// side is "np" or "rp".
	side string
	// name is the file under ecn/roce_<side>/, e.g. "rpg_ai_rate", or
	// "enable/<prio>" for the per-priority switch.
	name string
	// prio is the priority of an enable setting, -1 otherwise.
	prio  int
	value int64
}

// sysfsFile is the setting's file relative to /sys/class/net/<if>/ecn.
func (s dcqcnSetting) sysfsFile() string { return "roce_" + s.side + "/" + s.name }

// debugfsFile is the setting's file under cc_params; ok is false for the
// per-priority enable, which debugfs does not have.
func (s dcqcnSetting) debugfsFile() (string, bool) {
	if s.prio >= 0 {
		return "", false
	}
	return fabric.DebugfsName(s.name)
}

// nvName is the mlxconfig parameter of a value setting for NV port suffix
// port (1 for _P1); the enables are ROCE_CC_PRIO_MASK_P<port>.
func (s dcqcnSetting) nvName(port int) string {
	if s.prio >= 0 {
		return nvPrioMask(port)
	}
	return strings.ToUpper(s.name) + "_P" + strconv.Itoa(port)
}

func nvPrioMask(port int) string { return "ROCE_CC_PRIO_MASK_P" + strconv.Itoa(port) }

// knobNameRE is what a setting's name may look like: it becomes part of file
// paths and script lines, so anything else is a bug in package fabric.
var knobNameRE = regexp.MustCompile(`^[a-z0-9_]+(/[0-7])?$`)

// priorities are the priorities DCQCN is switched on for: Priority, then the
// other Lossless ones in ascending order, each once.
func (t DCQCN) priorities() []int {
	out := []int{t.Priority}
	rest := slices.Clone(t.Lossless)
	slices.Sort(rest)
	for _, p := range slices.Compact(rest) {
		if p != t.Priority {
			out = append(out, p)
		}
	}
	return out
}

// prioritiesText names the priorities as the notes and the boot script say
// them: "priority 3", or "priorities 3, 4".
func prioritiesText(prios []int) string { return counted("priority", "priorities", prios) }

// counted is ns after the word for one or for several: "bit 3", "bits 3, 4".
func counted(one, several string, ns []int) string {
	if len(ns) == 1 {
		return one + " " + strconv.Itoa(ns[0])
	}
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return several + " " + strings.Join(s, ", ")
}

// settings validates the task and returns every value it sets: the NP and RP
// enables of each priority (Priority first), the RP knobs in OFED sysfs
// order, then the NP knobs (min_time_between_cnps, cnp_dscp, cnp_802p_prio).
func (t DCQCN) settings() ([]dcqcnSetting, error) {
	if t.Priority < 0 || t.Priority > 7 {
		return nil, fmt.Errorf("priority %d: want 0..7 (conventionally %d)", t.Priority, fabric.DefaultRDMAPriority)
	}
	for _, p := range t.Lossless {
		if p < 0 || p > 7 {
			return nil, fmt.Errorf("lossless priority %d: want 0..7", p)
		}
		if p == t.CNPPriority {
			return nil, fmt.Errorf("lossless priority %d is the CNP priority: CNPs must not queue behind the data they throttle, "+
				"and a lossless priority pauses them; move the CNPs to a lossy priority (firmware default %d) or drop %d from the lossless priorities",
				p, fabric.DefaultCNPPriority, p)
		}
	}
	if t.CNPDSCP < 0 || t.CNPDSCP > 63 {
		return nil, fmt.Errorf("CNP DSCP %d: want 0..63 (firmware default %d)", t.CNPDSCP, fabric.DefaultCNPDSCP)
	}
	if t.CNPPriority < 0 || t.CNPPriority > 7 {
		return nil, fmt.Errorf("CNP priority %d: want 0..7 (firmware default %d)", t.CNPPriority, fabric.DefaultCNPPriority)
	}
	if t.CNPPriority == t.Priority {
		return nil, fmt.Errorf("CNP priority %d is the RoCE data priority: CNPs must not queue behind the data they throttle; "+
			"use another priority (firmware default %d)", t.CNPPriority, fabric.DefaultCNPPriority)
	}
	knobs, err := t.Params.Knobs()
	if err != nil {
		return nil, err
	}
	cnp := fabric.TrafficClass{CNPDSCP: t.CNPDSCP, CNPPriority: t.CNPPriority}.CNPKnobs()
	var out []dcqcnSetting
	for _, p := range t.priorities() {
		enable := "enable/" + strconv.Itoa(p)
		out = append(out, dcqcnSetting{side: "np", name: enable, prio: p, value: 1},
			dcqcnSetting{side: "rp", name: enable, prio: p, value: 1})
	}
	for _, k := range knobs.RP {
		out = append(out, dcqcnSetting{side: "rp", name: k.Name, prio: -1, value: k.Value})
	}
	for _, k := range append(knobs.NP, cnp...) {
		out = append(out, dcqcnSetting{side: "np", name: k.Name, prio: -1, value: k.Value})
	}
	for _, s := range out {
		if !knobNameRE.MatchString(s.name) {
			return nil, fmt.Errorf("DCQCN knob name %q is not a plain file name", s.name)
		}
	}
	return out, nil
}
