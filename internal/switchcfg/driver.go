package switchcfg

import (
	"context"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	"github.com/clusterbid/terraform-provider-roce/internal/health"
	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

// Driver is one switch operating system: how to reach it, configure it, sample its counters
// and speak of it. The provider holds no knowledge of any OS beyond what a Driver tells it;
// drivers are found by the name users write in `os` (package switchcfg/drivers).
type Driver interface {
	// About describes the OS for the provider's schemas, diagnostics and logs.
	About() About
	// CheckPort returns why name cannot be a port of this OS ("" when it can), with the
	// naming rule and an example.
	CheckPort(name string) string
	// CheckRelease returns why v cannot be pinned as this OS's release ("" when it can).
	CheckRelease(v string) string
	// Open returns the backend of one switch, reached through links. release, when not
	// empty, pins the OS release whose rules apply instead of the one the switch reports.
	Open(links Links, release string) (Backend, error)
	// Counters returns the reader of one switch's counters, reached through links.
	Counters(links Links) (CounterReader, error)
	// Remedy says what to do about err, which the stage failed with on this OS.
	Remedy(stage Stage, err error) string
}

// About is what a driver says of itself.
type About struct {
	// OS is the value of `os` that selects the driver: "sonic".
	OS string
	// Name is the OS as users call it: "SONiC".
	Name string
	// Transport is how the driver reaches a switch, and so which provider settings and log
	// subsystem it uses.
	Transport Transport
	// Summary is a sentence on what the driver does with a policy, for the resource's docs.
	Summary string
	// Reads and Writes name one read and one transaction in logs: "gnmi read of CONFIG_DB".
	Reads, Writes string
	// ReadCall and WriteCall are the protocol calls behind them: "Get", "Set".
	ReadCall, WriteCall string
	// CounterReads names one read of the counters in logs: "gnmi read of COUNTERS_DB".
	CounterReads string
	// Sampling says how the counters are read and judged on this OS, for roce_fabric_health's
	// docs.
	Sampling string
	// PortExample is a port name of the OS: "Ethernet0".
	PortExample string
	// Lands says, by the switch resource's attribute path ("ecn", "pfc_watchdog"), where the
	// value lands on this OS and what the OS derives from it, for the attribute's docs.
	Lands map[string]string
}

// Transport is the protocol a driver speaks to a switch.
type Transport string

// The transports the provider has settings for.
const (
	TransportGNMI Transport = "gnmi"
	TransportNVUE Transport = "nvue"
)

// Links open the transports to one switch, on the provider's pooled connection to its
// address, with the provider's settings and a resource's overrides.
type Links interface {
	GNMI() (*gnmi.Client, error)
	NVUE() (*nvue.Client, error)
}

// Stage is what the provider was doing with a switch when it failed.
type Stage int

// Stages of work on a switch.
const (
	// StageRead is reading the switch: a plan, a refresh, the read before an apply.
	StageRead Stage = iota
	// StagePlan is computing a transaction from what was read.
	StagePlan
	// StageApply is sending a transaction.
	StageApply
	// StageCounters is reading the counters for fabric health.
	StageCounters
)

// CounterReader samples one switch's counters.
type CounterReader interface {
	// Sample reads every port's counters, vendor-neutral, with priority judged lossless
	// besides what the switch itself says is.
	Sample(ctx context.Context, priority int) ([]health.SwitchPort, error)
	// Window is how far apart two samples must be for their deltas to mean something, and
	// why (two polls of the slowest counter group the verdicts read); zero where the switch's
	// counters are read live.
	Window(ctx context.Context) (time.Duration, string, error)
}
