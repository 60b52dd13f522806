package sonic

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	"github.com/clusterbid/terraform-provider-roce/internal/health"
	sonicmodel "github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/sonicdb"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/telemetry"
)

// Driver drives SONiC switches: CONFIG_DB over gNMI, counters from COUNTERS_DB.
type Driver struct{}

var _ switchcfg.Driver = Driver{}

// portName is a SONiC front-panel port: Ethernet<first lane>.
var portName = regexp.MustCompile(`^Ethernet[0-9]{1,4}$`)

// About describes SONiC.
func (Driver) About() switchcfg.About {
	return switchcfg.About{
		OS: sonicmodel.OS, Name: "SONiC", Transport: switchcfg.TransportGNMI,
		Summary: "On SONiC the policy is written to CONFIG_DB over gNMI, one SetRequest per apply, which SONiC applies as one " +
			"transaction: a DSCP→TC map, TC→queue and TC→priority-group maps, two schedulers and (from SONiC 202511) a WRED " +
			"profile, all named after `name`, the listed ports pointed at them, `pfc_enable`, `CABLE_LENGTH` and the PFC " +
			"watchdog; the buffer manager derives the lossless priority groups, which the provider reads back.",
		Reads: "gnmi read of CONFIG_DB", Writes: "gnmi write of CONFIG_DB", ReadCall: "Get", WriteCall: "Set",
		CounterReads: "COUNTERS_DB over gNMI", PortExample: "Ethernet0",
	}
}

// CheckPort refuses what is not a front-panel port name.
func (Driver) CheckPort(name string) string {
	if portName.MatchString(name) {
		return ""
	}
	return `SONiC names front-panel ports Ethernet<N> (e.g. "Ethernet0", "Ethernet8").`
}

// CheckRelease refuses what is not a SONiC release branch.
func (Driver) CheckRelease(v string) string {
	if _, err := sonicmodel.ParseRelease(v); err != nil {
		return fmt.Sprintf("%v. Use the release branch, such as \"202411\", \"202505\" or \"master\", or leave it unset to read it from the switch.", err)
	}
	return ""
}

// Open returns the backend of the switch behind links.
func (Driver) Open(links switchcfg.Links, release string) (switchcfg.Backend, error) {
	var rel sonicmodel.Release
	if release != "" {
		var err error
		if rel, err = sonicmodel.ParseRelease(release); err != nil {
			return nil, fmt.Errorf("release %q: %w", release, err)
		}
	}
	client, err := links.GNMI()
	if err != nil {
		return nil, err
	}
	return New(sonicdb.New(client), rel), nil
}

// Counters returns the reader of the switch's COUNTERS_DB.
func (Driver) Counters(links switchcfg.Links) (switchcfg.CounterReader, error) {
	client, err := links.GNMI()
	if err != nil {
		return nil, err
	}
	return counters{client: client}, nil
}

// Remedy says what to check when a stage fails on a SONiC switch.
func (Driver) Remedy(stage switchcfg.Stage, _ error) string {
	switch stage {
	case switchcfg.StageRead:
		return "Check the address, the gnmi credentials and CA, and that the switch's gnmi service is running."
	case switchcfg.StagePlan:
		return "Check sonic_release, or change only what this release's GCU allows."
	case switchcfg.StageCounters:
		return "Check that the switch runs SONiC's gNMI server with COUNTERS_DB reads allowed and that its counters are enabled (counterpoll queue, pg-drop and pfcwd enable)."
	}
	return ""
}

type counters struct {
	client *gnmi.Client
}

func (c counters) Sample(ctx context.Context, priority int) ([]health.SwitchPort, error) {
	return telemetry.SONiC(ctx, c.client, c.client.Address(), priority, nil)
}

func (c counters) Window(ctx context.Context) (time.Duration, string, error) {
	every, group, err := telemetry.SONiCSlowestPoll(ctx, c.client)
	if err != nil {
		return 0, "", err
	}
	return 2 * every, fmt.Sprintf("two polls of the %s counters of %s (every %s, FLEX_COUNTER_TABLE)", group, c.client.Address(), every), nil
}
