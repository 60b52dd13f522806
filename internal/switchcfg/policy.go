package switchcfg

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// Scheduler modes a traffic class can have.
const (
	SchedulerStrict = "strict"
	SchedulerDWRR   = "dwrr"
)

// Policy is the lossless RoCE QoS one switch resource asks for.
type Policy struct {
	// Name prefixes every object the provider owns on the switch (maps, schedulers,
	// WRED profile), so two policies on one switch must use different names.
	Name         string
	Ports        []string
	CableLengthM int
	Class        fabric.TrafficClass
	ECN          ECN
	PFC          PFC
	RDMA         Scheduler
	CNP          Scheduler
	// Watchdog is nil when the PFC watchdog is left alone. It watches every lossless
	// priority.
	Watchdog *Watchdog
	// Lossless are the lossless classes beside the default one (Class, ECN, PFC and RDMA
	// above, which NICs and NCCL use): a storage class on priority 4, say.
	Lossless []LosslessClass
}

// LosslessClass is a lossless class beside the default one, with its own DSCPs, priority,
// ECN marking, PFC pause threshold and scheduler.
type LosslessClass struct {
	Name      string
	DSCP      []int
	Priority  int
	ECN       ECN
	PFC       PFC
	Scheduler Scheduler
}

// DefaultClassWeight is the DWRR weight of a lossless class beside the default one when the
// configuration gives none: with the default class's 50 it leaves the lossy rest a quarter.
const DefaultClassWeight = 25

// Fabric is the class as the fabric's rules check it.
func (c LosslessClass) Fabric() fabric.LosslessClass {
	return fabric.LosslessClass{Name: c.Name, DSCP: c.DSCP, Priority: c.Priority, Thresholds: fabric.Thresholds{
		ECNMinBytes: c.ECN.MinBytes, ECNMaxBytes: c.ECN.MaxBytes, PFCPauseBytes: c.PFC.PauseThresholdBytes,
	}}
}

// ClassReservations are what each lossless class reserves on a port whose lossless priority
// groups get headroom h each: the default class first.
func (p Policy) ClassReservations(headroomBytes int64) []fabric.ClassReservation {
	out := []fabric.ClassReservation{{Class: fabric.DefaultClassName, HeadroomBytes: headroomBytes, PauseBytes: p.PFC.PauseThresholdBytes}}
	for _, c := range p.Lossless {
		out = append(out, fabric.ClassReservation{Class: c.Name, HeadroomBytes: headroomBytes, PauseBytes: c.PFC.PauseThresholdBytes})
	}
	return out
}

// LosslessPriorities are the priorities of every lossless class, the default one first.
func (p Policy) LosslessPriorities() []int {
	out := []int{p.Class.Priority}
	for _, c := range p.Lossless {
		out = append(out, c.Priority)
	}
	return out
}

// ECN is the marking of the RDMA queue, thresholds in bytes.
type ECN struct {
	MinBytes, MaxBytes     int64
	MarkProbabilityPercent int
}

// PFC is the pause side of the contract. PauseThresholdBytes is validated against the ECN
// thresholds and the buffer pool; SONiC itself derives the pause point from the lossless
// buffer profile that buffermgrd builds from speed and cable length.
type PFC struct {
	PauseThresholdBytes int64
}

// Scheduler is how a traffic class's queue is served.
type Scheduler struct {
	Mode   string // SchedulerStrict or SchedulerDWRR
	Weight int    // 1..100, DWRR only
}

// Watchdog is SONiC's PFC watchdog on the RDMA priority.
type Watchdog struct {
	Action          string // drop, forward or alert
	DetectionTimeMs int    // 100..5000
	RestoreTimeMs   int    // 100..60000
}

// DefaultName is the object name prefix when the resource does not set one.
const DefaultName = "ROCE"

var (
	objectNamePattern = regexp.MustCompile(`^[a-zA-Z0-9][-a-zA-Z0-9_]{0,22}$`)
)

// The policy's fields, as violations name them. The traffic class and thresholds are
// named by fabric's fields.
var (
	FieldName              = violation.At("Policy.Name")
	FieldPorts             = violation.At("Policy.Ports")
	FieldCableLength       = violation.At("Policy.CableLengthM")
	FieldECN               = violation.At("Policy.ECN")
	FieldPFC               = violation.At("Policy.PFC")
	FieldRDMASchedulerMode = violation.At("Policy.RDMA.Mode")
	FieldRDMAWeight        = violation.At("Policy.RDMA.Weight")
	FieldCNPSchedulerMode  = violation.At("Policy.CNP.Mode")
	FieldCNPWeight         = violation.At("Policy.CNP.Weight")
	FieldWatchdog          = violation.At("Policy.Watchdog")
	FieldWatchdogAction    = violation.At("Policy.Watchdog.Action")
	FieldWatchdogDetection = violation.At("Policy.Watchdog.DetectionTimeMs")
	FieldWatchdogRestore   = violation.At("Policy.Watchdog.RestoreTimeMs")
	// The scheduler of a lossless class beside the default one, within its element of
	// fabric.FieldLossless (fabric.In).
	FieldClassSchedulerMode = violation.At("LosslessClass.Scheduler.Mode")
	FieldClassWeight        = violation.At("LosslessClass.Scheduler.Weight")
	FieldClassMarkProb      = violation.At("LosslessClass.ECN.MarkProbabilityPercent")
	// FieldOS is the switch's operating system, which the caller chose the driver by.
	FieldOS = violation.At("OS")
	// FieldSpeedOverride is the port speed the caller gives instead of the switch's.
	FieldSpeedOverride = violation.At("SpeedOverride")
)

// Validate checks the policy without looking at a switch: the traffic class, the ECN/PFC
// rule, schedulers, the watchdog and the syntax of names, the ports' as ports names them.
func (p Policy) Validate(window fabric.RatioWindow, ports PortNamer) violation.List {
	var vs violation.List
	vs = append(vs, p.Class.Validate()...)
	vs = append(vs, fabric.CheckThresholds(fabric.Thresholds{
		ECNMinBytes:   p.ECN.MinBytes,
		ECNMaxBytes:   p.ECN.MaxBytes,
		PFCPauseBytes: p.PFC.PauseThresholdBytes,
	}, window)...)
	// A policy always writes its probability (green_drop_probability), so 0 is a value here.
	vs = append(vs, fabric.CheckMarkProbability(p.ECN.MarkProbabilityPercent)...)
	vs = append(vs, p.validateNames(ports)...)
	vs = append(vs, p.RDMA.validate(FieldRDMASchedulerMode, FieldRDMAWeight)...)
	vs = append(vs, p.CNP.validate(FieldCNPSchedulerMode, FieldCNPWeight)...)
	if p.RDMA.Mode == SchedulerStrict {
		vs = append(vs, WarningAt(FieldRDMASchedulerMode, "Strict Priority for RDMA", func(name violation.Names) string {
			return name(FieldRDMASchedulerMode) + " is strict: RDMA traffic can starve every other class on these ports. " +
				"NVIDIA's RoCE defaults serve the RDMA class with DWRR (weight 50) and only CNPs strict; use mode = \"dwrr\" unless the ports carry nothing else."
		}))
	}
	if p.Watchdog != nil {
		vs = append(vs, p.Watchdog.validate()...)
	}
	vs = append(vs, p.validateLossless(window)...)
	if p.CableLengthM < 0 || p.CableLengthM > 10000 {
		vs = append(vs, ErrorAt(FieldCableLength, "Cable Length Out of Range", func(name violation.Names) string {
			return fmt.Sprintf("%s is %d; use the real cable length in metres, 0 to 10000.", name(FieldCableLength), p.CableLengthM)
		}))
	}
	return vs
}

// validateLossless checks the lossless classes beside the default one: the fabric's class
// rules, each class's marking probability and scheduler, and that the lossless classes' DWRR
// weights leave the lossy rest a share.
func (p Policy) validateLossless(window fabric.RatioWindow) violation.List {
	if len(p.Lossless) == 0 {
		return nil
	}
	more := make([]fabric.LosslessClass, len(p.Lossless))
	for i, c := range p.Lossless {
		more[i] = c.Fabric()
	}
	vs := fabric.CheckLossless(p.Class, more, window)
	sum, parts := 0, []string{}
	if p.RDMA.Mode == SchedulerDWRR {
		sum += p.RDMA.Weight
		parts = append(parts, fmt.Sprintf("%s %d", fabric.DefaultClassName, p.RDMA.Weight))
	}
	for i, c := range p.Lossless {
		if r := fabric.CheckMarkProbability(c.ECN.MarkProbabilityPercent); r != nil {
			vs = append(vs, ErrorAt(fabric.In(i, FieldClassMarkProb), "Value Out of Range", func(name violation.Names) string {
				return fmt.Sprintf("%s is %d; a probability must be 1..100: set a value in that range", name(fabric.In(i, FieldClassMarkProb)), c.ECN.MarkProbabilityPercent)
			}))
		}
		vs = append(vs, c.Scheduler.validate(fabric.In(i, FieldClassSchedulerMode), fabric.In(i, FieldClassWeight))...)
		if c.Scheduler.Mode == SchedulerDWRR {
			sum += c.Scheduler.Weight
			parts = append(parts, fmt.Sprintf("%s %d", c.Name, c.Scheduler.Weight))
		}
	}
	if sum >= 100 && len(parts) > 1 {
		at := fabric.In(len(p.Lossless)-1, FieldClassWeight)
		vs = append(vs, violation.ErrorAt(at, WeightsExhausted{Sum: sum, Parts: parts}))
	}
	return vs
}

// WeightsExhausted: the lossless classes' DWRR weights (percent of a port) add up to 100 or
// more, leaving the lossy rest nothing.
type WeightsExhausted struct {
	Sum   int
	Parts []string
}

func (r WeightsExhausted) Words(at violation.Field, name violation.Names) (string, string) {
	return "Lossless Weights Leave No Share", fmt.Sprintf(
		"the lossless classes' DWRR weights add up to %d (%s): the weights are shares of a port in percent, and the lossy rest needs some; lower %s or %s so they total at most 99 (NVIDIA's RoCE default gives RDMA 50)",
		r.Sum, strings.Join(r.Parts, ", "), name(at), name(FieldRDMAWeight))
}

func (p Policy) validateNames(names PortNamer) violation.List {
	var vs violation.List
	if !objectNamePattern.MatchString(p.Name) {
		vs = append(vs, ErrorAt(FieldName, "Invalid Object Name", func(name violation.Names) string {
			return fmt.Sprintf("%s is %q; use 1-23 letters, digits, '-' or '_', starting with a letter or digit (SONiC object names are at most 32 characters, and the provider adds \"_LOSSLESS\" to name its WRED profile).", name(FieldName), p.Name)
		}))
	}
	if len(p.Ports) == 0 {
		vs = append(vs, ErrorAt(FieldPorts, "No Ports", func(name violation.Names) string {
			return name(FieldPorts) + " is empty; list the switch ports that carry RoCE traffic."
		}))
	}
	seen := map[string]bool{}
	for i, port := range p.Ports {
		at := FieldPorts.Elem(i)
		switch why := names.CheckPort(port); {
		case why != "":
			vs = append(vs, ErrorAt(at, "Invalid Port Name", func(name violation.Names) string { return fmt.Sprintf("%s is %q; %s", name(at), port, why) }))
		case seen[port]:
			vs = append(vs, ErrorAt(at, "Repeated Port", func(name violation.Names) string {
				return fmt.Sprintf("%s repeats %q; list each port once.", name(at), port)
			}))
		}
		seen[port] = true
	}
	return vs
}

func (s Scheduler) validate(mode, weight violation.Field) violation.List {
	switch s.Mode {
	case SchedulerStrict:
		return nil
	case SchedulerDWRR:
		if s.Weight < 1 || s.Weight > 100 {
			return violation.List{ErrorAt(weight, "DWRR Weight Out of Range", func(name violation.Names) string {
				return fmt.Sprintf("%s is %d; a DWRR weight is 1 to 100.", name(weight), s.Weight)
			})}
		}
		return nil
	}
	return violation.List{ErrorAt(mode, "Unknown Scheduler Mode", func(name violation.Names) string {
		return fmt.Sprintf("%s is %q; use \"strict\" or \"dwrr\".", name(mode), s.Mode)
	})}
}

func (w Watchdog) validate() violation.List {
	var vs violation.List
	switch w.Action {
	case "drop", "forward", "alert":
	default:
		vs = append(vs, ErrorAt(FieldWatchdogAction, "Unknown Watchdog Action", func(name violation.Names) string {
			return fmt.Sprintf("%s is %q; use \"drop\", \"forward\" or \"alert\".", name(FieldWatchdogAction), w.Action)
		}))
	}
	if w.DetectionTimeMs < 100 || w.DetectionTimeMs > 5000 {
		vs = append(vs, ErrorAt(FieldWatchdogDetection, "Detection Time Out of Range", func(name violation.Names) string {
			return fmt.Sprintf("%s is %d; SONiC accepts 100 to 5000 ms.", name(FieldWatchdogDetection), w.DetectionTimeMs)
		}))
	}
	if w.RestoreTimeMs < 100 || w.RestoreTimeMs > 60000 {
		vs = append(vs, ErrorAt(FieldWatchdogRestore, "Restoration Time Out of Range", func(name violation.Names) string {
			return fmt.Sprintf("%s is %d; SONiC accepts 100 to 60000 ms.", name(FieldWatchdogRestore), w.RestoreTimeMs)
		}))
	}
	return vs
}

// PortNamer says why a name cannot be a port of a switch ("" when it can): a Driver.
type PortNamer interface {
	CheckPort(name string) string
}

// ErrorAt is an error on field at, worded by detail in the caller's names.
func ErrorAt(at violation.Field, summary string, detail func(violation.Names) string) violation.Violation {
	return violation.ErrorAt(at, violation.Worded{Summary: summary, Detail: detail})
}

// WarningAt is a warning on field at, worded by detail in the caller's names.
func WarningAt(at violation.Field, summary string, detail func(violation.Names) string) violation.Violation {
	return violation.WarningAt(at, violation.Worded{Summary: summary, Detail: detail})
}
