package cumulus

import (
	"context"
	"errors"
	"regexp"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/health"
	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/telemetry"
)

// Driver drives NVIDIA Cumulus Linux switches (5.9 to 5.14) over the NVUE REST API: Cumulus
// has no gNMI Set.
type Driver struct{}

var _ switchcfg.Driver = Driver{}

// portName is a Cumulus switch port: swp<N>, or swp<N>s<M> on a breakout.
var portName = regexp.MustCompile(`^swp[0-9]{1,3}(s[0-9])?$`)

// About describes Cumulus Linux.
func (Driver) About() switchcfg.About {
	return switchcfg.About{
		OS: nvue.OS, Name: "Cumulus Linux", Transport: switchcfg.TransportNVUE,
		Summary: "On Cumulus Linux 5.9 to 5.14 the policy becomes NVUE profiles named `<name>` (mapping, egress-scheduler, PFC, " +
			"congestion-control) bound to the ports, the `default-lossless` traffic pool gets half the buffer memory for the PFC " +
			"profile's priority, and every apply is one NVUE revision, saved where auto-save is off.",
		Reads: "nvue read of the applied configuration", Writes: "nvue revision applied", ReadCall: "GET", WriteCall: "revision",
		CounterReads: "the QoS counters over NVUE", PortExample: "swp1",
	}
}

// CheckPort refuses what is not a switch port name.
func (Driver) CheckPort(name string) string {
	if portName.MatchString(name) {
		return ""
	}
	return `Cumulus names switch ports swp<N>, or swp<N>s<M> on a breakout (e.g. "swp1", "swp1s0").`
}

// CheckRelease refuses every pin: the backend reads the release from the switch, and the
// rules it applies do not vary with one the user could name.
func (Driver) CheckRelease(string) string {
	return `os is "cumulus": a Cumulus Linux switch's release is read from the switch and cannot be pinned; remove the setting.`
}

// Open returns the backend of the switch behind links.
func (Driver) Open(links switchcfg.Links, release string) (switchcfg.Backend, error) {
	if release != "" {
		return nil, errors.New("a Cumulus Linux switch's release cannot be pinned")
	}
	client, err := links.NVUE()
	if err != nil {
		return nil, err
	}
	return New(client), nil
}

// Counters returns the reader of the switch's QoS counters over NVUE.
func (Driver) Counters(links switchcfg.Links) (switchcfg.CounterReader, error) {
	client, err := links.NVUE()
	if err != nil {
		return nil, err
	}
	return counters{client: client}, nil
}

// Remedy says what to check when a stage fails on a Cumulus switch.
func (Driver) Remedy(stage switchcfg.Stage, err error) string {
	if _, busy := errors.AsType[*nvue.BusyError](err); busy {
		return "Apply or detach the other revision on the switch (nv config diff, nv config detach), then apply again."
	}
	switch stage {
	case switchcfg.StageRead:
		return "Check the address, the nvue credentials and CA (or certificate_pin), and that the switch serves the NVUE REST API (nv set system api state enabled)."
	case switchcfg.StagePlan:
		return "Check the switch's Cumulus Linux release (5.9 to 5.14) and its QoS mode (nv show qos roce)."
	case switchcfg.StageCounters:
		return "Check that the switch answers the NVUE REST API (nv set system api state enabled) with the provider's nvue credentials."
	}
	return ""
}

type counters struct {
	client *nvue.Client
}

func (c counters) Sample(ctx context.Context, _ int) ([]health.SwitchPort, error) {
	return telemetry.Cumulus(ctx, c.client, c.client.Address(), nil)
}

// Window is zero: NVUE reads the counters live.
func (counters) Window(context.Context) (time.Duration, string, error) { return 0, "", nil }
