package switchcfg

import (
	"fmt"
	"regexp"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
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
	// Watchdog is nil when the PFC watchdog is left alone.
	Watchdog *Watchdog
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

// Validate checks the policy without looking at a switch: the traffic class, the ECN/PFC
// rule, schedulers, the watchdog and the syntax of names, the ports' as ports names them.
// Findings carry the resource's attribute paths.
func (p Policy) Validate(window fabric.RatioWindow, ports PortNamer) fabric.Findings {
	var fs fabric.Findings
	fs = append(fs, p.Class.Validate()...)
	fs = append(fs, fabric.CheckThresholds(fabric.Thresholds{
		ECNMinBytes:   p.ECN.MinBytes,
		ECNMaxBytes:   p.ECN.MaxBytes,
		PFCPauseBytes: p.PFC.PauseThresholdBytes,
	}, window)...)
	// A policy always writes its probability (green_drop_probability), so 0 is a value here.
	fs = append(fs, fabric.CheckMarkProbability(p.ECN.MarkProbabilityPercent)...)
	fs = append(fs, p.validateNames(ports)...)
	fs = append(fs, p.RDMA.validate("rdma_scheduler")...)
	fs = append(fs, p.CNP.validate("cnp_scheduler")...)
	if p.RDMA.Mode == SchedulerStrict {
		fs = append(fs, fabric.Finding{
			Severity: fabric.SeverityWarning, Path: "rdma_scheduler.mode",
			Summary: "Strict Priority for RDMA",
			Detail: "rdma_scheduler.mode is strict: RDMA traffic can starve every other class on these ports. " +
				"NVIDIA's RoCE defaults serve the RDMA class with DWRR (weight 50) and only CNPs strict; use mode = \"dwrr\" unless the ports carry nothing else.",
		})
	}
	if p.Watchdog != nil {
		fs = append(fs, p.Watchdog.validate()...)
	}
	if p.CableLengthM < 0 || p.CableLengthM > 10000 {
		fs = append(fs, ErrorAt("cable_length_m", "Cable Length Out of Range",
			fmt.Sprintf("cable_length_m is %d; use the real cable length in metres, 0 to 10000.", p.CableLengthM)))
	}
	return fs
}

func (p Policy) validateNames(names PortNamer) fabric.Findings {
	var fs fabric.Findings
	if !objectNamePattern.MatchString(p.Name) {
		fs = append(fs, ErrorAt("name", "Invalid Object Name",
			fmt.Sprintf("name is %q; use 1-23 letters, digits, '-' or '_', starting with a letter or digit (SONiC object names are at most 32 characters, and the provider adds \"_LOSSLESS\" to name its WRED profile).", p.Name)))
	}
	if len(p.Ports) == 0 {
		fs = append(fs, ErrorAt("ports", "No Ports", "ports is empty; list the switch ports that carry RoCE traffic."))
	}
	seen := map[string]bool{}
	for i, port := range p.Ports {
		at := fmt.Sprintf("ports[%d]", i)
		switch why := names.CheckPort(port); {
		case why != "":
			fs = append(fs, ErrorAt(at, "Invalid Port Name", fmt.Sprintf("%s is %q; %s", at, port, why)))
		case seen[port]:
			fs = append(fs, ErrorAt(at, "Repeated Port", fmt.Sprintf("%s repeats %q; list each port once.", at, port)))
		}
		seen[port] = true
	}
	return fs
}

func (s Scheduler) validate(at string) fabric.Findings {
	switch s.Mode {
	case SchedulerStrict:
		return nil
	case SchedulerDWRR:
		if s.Weight < 1 || s.Weight > 100 {
			return fabric.Findings{ErrorAt(at+".weight", "DWRR Weight Out of Range",
				fmt.Sprintf("%s.weight is %d; a DWRR weight is 1 to 100.", at, s.Weight))}
		}
		return nil
	}
	return fabric.Findings{ErrorAt(at+".mode", "Unknown Scheduler Mode",
		fmt.Sprintf("%s.mode is %q; use \"strict\" or \"dwrr\".", at, s.Mode))}
}

func (w Watchdog) validate() fabric.Findings {
	var fs fabric.Findings
	switch w.Action {
	case "drop", "forward", "alert":
	default:
		fs = append(fs, ErrorAt("pfc_watchdog.action", "Unknown Watchdog Action",
			fmt.Sprintf("pfc_watchdog.action is %q; use \"drop\", \"forward\" or \"alert\".", w.Action)))
	}
	if w.DetectionTimeMs < 100 || w.DetectionTimeMs > 5000 {
		fs = append(fs, ErrorAt("pfc_watchdog.detection_time_ms", "Detection Time Out of Range",
			fmt.Sprintf("pfc_watchdog.detection_time_ms is %d; SONiC accepts 100 to 5000 ms.", w.DetectionTimeMs)))
	}
	if w.RestoreTimeMs < 100 || w.RestoreTimeMs > 60000 {
		fs = append(fs, ErrorAt("pfc_watchdog.restoration_time_ms", "Restoration Time Out of Range",
			fmt.Sprintf("pfc_watchdog.restoration_time_ms is %d; SONiC accepts 100 to 60000 ms.", w.RestoreTimeMs)))
	}
	return fs
}

// PortNamer says why a name cannot be a port of a switch ("" when it can): a Driver.
type PortNamer interface {
	CheckPort(name string) string
}

// ErrorAt is an error finding on the resource attribute path.
func ErrorAt(path, summary, detail string) fabric.Finding {
	return fabric.Finding{Severity: fabric.SeverityError, Path: path, Summary: summary, Detail: detail}
}
