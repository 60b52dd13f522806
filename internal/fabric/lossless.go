package fabric

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// DefaultClassName is the name of the default lossless class, the one TrafficClass describes
// (DSCP and Priority): the class NICs and NCCL use.
const DefaultClassName = "rdma"

// LosslessClass is a lossless traffic class beside the default one: a storage class, say, on
// its own priority with its own ECN marking and PFC pause threshold. SONiC's own default QoS
// makes priorities 3 and 4 lossless (sonic-buildimage files/build_templates/qos_config.j2:
// LOSSLESS_TC = ['3','4']), so a second class on priority 4 is the stock layout.
type LosslessClass struct {
	Name       string
	DSCP       []int
	Priority   int
	Thresholds Thresholds // ECN min/max, marking probability and PFC pause
}

// FieldLossless is the list of lossless classes beside the default one; a class's own fields
// are named within its element: FieldClassDSCP.Elem(0).In(FieldLossless.Elem(1)).
var FieldLossless = violation.At("Lossless")

// A lossless class's fields, as violations name them within its element of FieldLossless.
var (
	FieldClassName     = violation.At("LosslessClass.Name")
	FieldClassDSCP     = violation.At("LosslessClass.DSCP")
	FieldClassPriority = violation.At("LosslessClass.Priority")
)

// classNamePattern keeps a class name short enough to name SONiC objects after it:
// <policy name (23)>_<class (8)> is at most 32 characters, sonic-yang-models' limit.
var classNamePattern = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9]{0,7}$`)

// reservedClassNames are names the switch drivers already give objects of the default
// class, the CNPs and the ECN profile (<name>_RDMA, <name>_CNP, <name>_LOSSLESS).
var reservedClassNames = []string{DefaultClassName, "cnp", "lossless"}

// In is field f of class i of the lossless classes beside the default one.
func In(i int, f violation.Field) violation.Field { return f.In(FieldLossless.Elem(i)) }

// CheckLossless checks the lossless classes beside c's default one: each class's name, DSCPs
// and priority, that no two classes (the default included) share a DSCP or a priority, that
// none takes the CNP's, and each class's thresholds against the ECN/PFC rule and window w.
// The window's own violations are not repeated here (the default class's check reports them).
func CheckLossless(c TrafficClass, more []LosslessClass, w RatioWindow) violation.List {
	var vs violation.List
	dscpOwner := map[int]string{}
	for _, d := range c.DSCP {
		dscpOwner[d] = DefaultClassName
	}
	prioOwner := map[int]string{c.Priority: DefaultClassName}
	names := map[string]bool{}
	windowOK := !w.Validate().HasErrors()
	for i, k := range more {
		vs = append(vs, checkClassName(i, k.Name, names)...)
		vs = append(vs, checkClassDSCPs(i, k, c, dscpOwner)...)
		vs = append(vs, checkClassPriority(i, k, c, prioOwner)...)
		for _, v := range CheckThresholds(k.Thresholds, w) {
			if windowOK || !isWindowField(v.At) {
				vs = append(vs, inClass(i, v))
			}
		}
	}
	return vs
}

func checkClassName(i int, name string, seen map[string]bool) violation.List {
	at := In(i, FieldClassName)
	lower := strings.ToLower(name)
	switch {
	case !classNamePattern.MatchString(name):
		return violation.List{violation.ErrorAt(at, ClassNameInvalid{Name: name})}
	case slices.Contains(reservedClassNames, lower):
		return violation.List{violation.ErrorAt(at, ClassNameReserved{Name: name})}
	case seen[lower]:
		return violation.List{violation.ErrorAt(at, ClassNameRepeated{Name: name})}
	}
	seen[lower] = true
	return nil
}

func checkClassDSCPs(i int, k LosslessClass, c TrafficClass, owner map[int]string) violation.List {
	at := In(i, FieldClassDSCP)
	if len(k.DSCP) == 0 {
		return violation.List{violation.ErrorAt(at, ClassDSCPMissing{Class: k.Name})}
	}
	var vs violation.List
	for j, d := range k.DSCP {
		el := In(i, FieldClassDSCP.Elem(j))
		if r := checkRange(el, "a DSCP", int64(d), 0, 63); r != nil {
			vs = append(vs, r...)
			continue
		}
		switch other, taken := owner[d]; {
		case d == c.CNPDSCP:
			vs = append(vs, violation.ErrorAt(el, ClassTakesCNP{Class: k.Name, Value: d}))
		case taken && other == k.Name:
			vs = append(vs, violation.ErrorAt(el, DSCPRepeated{DSCP: d}))
		case taken:
			vs = append(vs, violation.ErrorAt(el, ClassDSCPShared{Class: k.Name, Other: other, DSCP: d}))
		default:
			owner[d] = k.Name
			if c.Trust == TrustDSCP && k.Priority >= 0 && k.Priority <= 7 && d>>3 != k.Priority {
				vs = append(vs, violation.WarningAt(el, ClassDSCPNeedsMapping{DSCP: d, Priority: k.Priority}))
			}
		}
	}
	return vs
}

func checkClassPriority(i int, k LosslessClass, c TrafficClass, owner map[int]string) violation.List {
	at := In(i, FieldClassPriority)
	if r := checkRange(at, "a priority", int64(k.Priority), 0, 7); r != nil {
		return r
	}
	if k.Priority == c.CNPPriority {
		return violation.List{violation.ErrorAt(at, ClassTakesCNP{Class: k.Name, Priority: true, Value: k.Priority})}
	}
	if other, taken := owner[k.Priority]; taken {
		return violation.List{violation.ErrorAt(at, ClassPriorityShared{Class: k.Name, Other: other, Priority: k.Priority})}
	}
	owner[k.Priority] = k.Name
	return nil
}

// classFields are the thresholds' fields, which belong to each class; the ratio window is
// shared by all classes.
var classFields = []violation.Field{FieldECNMin, FieldECNMax, FieldPFCPause, FieldMarkProbability}

func isWindowField(f violation.Field) bool {
	return slices.Contains([]violation.Field{FieldRatioMin, FieldRatioMax, FieldRatioTarget, FieldRatioTargetBand}, f)
}

// inClass moves a thresholds violation into class i: its field, and every field its words
// mention that belongs to the class.
func inClass(i int, v violation.Violation) violation.Violation {
	move := func(f violation.Field) violation.Field {
		if f.Parent() == nil && slices.Contains(classFields, violation.At(f.Name)) {
			return In(i, f)
		}
		return f
	}
	return violation.Violation{Severity: v.Severity, At: move(v.At), Rule: violation.Moved{Rule: v.Rule, From: v.At, Move: move}}
}

// ClassNameInvalid: a class name that cannot name switch objects.
type ClassNameInvalid struct{ Name string }

func (r ClassNameInvalid) Words(at violation.Field, name violation.Names) (string, string) {
	return "Invalid Class Name", fmt.Sprintf("%s is %q; use 1-8 letters or digits starting with a letter (switch objects are named after it), e.g. \"storage\"", name(at), r.Name)
}

// ClassNameReserved: a class named like the objects of the default class or the CNPs.
type ClassNameReserved struct{ Name string }

func (r ClassNameReserved) Words(at violation.Field, name violation.Names) (string, string) {
	return "Reserved Class Name", fmt.Sprintf("%s is %q, a name the switch objects of the default class, the CNPs or the ECN profile already use (%s): choose another, e.g. \"storage\"",
		name(at), r.Name, strings.Join(reservedClassNames, ", "))
}

// ClassNameRepeated: two classes with one name.
type ClassNameRepeated struct{ Name string }

func (r ClassNameRepeated) Words(at violation.Field, name violation.Names) (string, string) {
	return "Repeated Class Name", fmt.Sprintf("%s is %q, the name of an earlier class: give each lossless class its own name", name(at), r.Name)
}

// ClassDSCPMissing: a class without DSCPs.
type ClassDSCPMissing struct{ Class string }

func (r ClassDSCPMissing) Words(at violation.Field, name violation.Names) (string, string) {
	return "Missing Class DSCP", fmt.Sprintf("%s is empty; lossless class %q needs at least one DSCP of its own", name(at), r.Class)
}

// ClassDSCPShared: a DSCP two lossless classes both claim; the switch can map it to one.
type ClassDSCPShared struct {
	Class, Other string
	DSCP         int
}

func (r ClassDSCPShared) Words(at violation.Field, name violation.Names) (string, string) {
	return "DSCP Shared Between Lossless Classes", fmt.Sprintf(
		"%s is %d, which lossless class %q already uses: a DSCP maps to one traffic class, so class %q would never see it; give each class its own DSCPs",
		name(at), r.DSCP, r.Other, r.Class)
}

// ClassPriorityShared: two lossless classes on one priority.
type ClassPriorityShared struct {
	Class, Other string
	Priority     int
}

func (r ClassPriorityShared) Words(at violation.Field, name violation.Names) (string, string) {
	return "Priority Shared Between Lossless Classes", fmt.Sprintf(
		"%s is %d, the priority of lossless class %q: each class needs its own priority (its own queue, PFC priority and ECN thresholds); SONiC's stock lossless priorities are 3 and 4",
		name(at), r.Priority, r.Other)
}

// ClassTakesCNP: a lossless class on the CNPs' DSCP or priority.
type ClassTakesCNP struct {
	Class    string
	Priority bool // the priority clashes, else the DSCP
	Value    int  // the clashing priority or DSCP
}

func (r ClassTakesCNP) Words(at violation.Field, name violation.Names) (string, string) {
	if r.Priority {
		return "Lossless Class on the CNP Priority", fmt.Sprintf(
			"%s is %d, the priority of CNPs (%s): CNPs must not wait behind paused data; use another priority, such as 4",
			name(at), r.Value, name(FieldCNPPriority))
	}
	return "Lossless Class on the CNP DSCP", fmt.Sprintf(
		"%s is %d, the DSCP of CNPs (%s): CNPs need their own DSCP; give class %q another one",
		name(at), r.Value, name(FieldCNPDSCP), r.Class)
}

// ClassDSCPNeedsMapping: a class DSCP that the NIC's default dscp2prio puts on another priority.
type ClassDSCPNeedsMapping struct{ DSCP, Priority int }

func (r ClassDSCPNeedsMapping) Words(at violation.Field, name violation.Names) (string, string) {
	return "DSCP Needs an Explicit NIC Mapping", fmt.Sprintf(
		"%s is %d, which the NIC's default dscp2prio maps to priority %d, not the class's %d: "+
			"the NIC needs an explicit mapping (mlnx_qos --dscp2prio set,%d,%d), or use a DSCP in %d..%d",
		name(at), r.DSCP, r.DSCP>>3, r.Priority, r.DSCP, r.Priority, r.Priority<<3, r.Priority<<3+7)
}
