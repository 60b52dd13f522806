package sonic

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	"github.com/clusterbid/terraform-provider-roce/internal/health"
	sonicmodel "github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/sonicdb"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
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
		CounterReads: "gnmi read of COUNTERS_DB",
		Sampling: "COUNTERS_DB over gNMI: each port's PFC frames and its lossless queues' and priority groups' counters, with the PFC watchdog's. " +
			"A port's lossless priorities are its PORT_QOS_MAP `pfc_enable` with `priority` (SONiC's default QoS makes 3 and 4 lossless), each judged; " +
			"a port whose queues the switch does not count (a spare port without buffers, with `create_only_config_db_buffers`) is named and judged by its PFC frames only. " +
			"COUNTERS_DB moves only when its flex counters poll (queues, WRED/ECN and priority group drops every 10 s by default, ports every second; " +
			"FLEX_COUNTER_TABLE POLL_INTERVAL): the samples are taken at least two polls of the slowest of them apart, 20 s by default.", PortExample: "Ethernet0", Lands: lands,
	}
}

// lands are the CONFIG_DB entries each attribute of roce_switch_qos becomes.
var lands = map[string]string{
	"name": "Prefix of the CONFIG_DB objects: maps `<name>`, schedulers `<name>_RDMA` and `<name>_CNP`, WRED profile `<name>_LOSSLESS` (202511+).",
	"ports": "Each port gets `PORT_QOS_MAP|<port>` maps and `pfc_enable`, `QUEUE|<port>|<priority>` scheduler and WRED profile, and its `CABLE_LENGTH` entry; " +
		"its speed is read from `PORT|<port>`.",
	"cable_length_m": "Written to `CABLE_LENGTH|AZURE`; SONiC's buffer manager sizes the lossless headroom from it and the port speed. " +
		"In the traditional buffer model the length must have a row in the SKU's `pg_profile_lookup.ini` (SN5600: 5, 40 or 300): other lengths are refused at plan, because the switch would build no lossless priority group. 0 is always refused.",
	"rdma": "The DSCP values map to `priority` in `DSCP_TO_TC_MAP|<name>`.",
	"ecn": "Before 202511 GCU lets gNMI change only the green thresholds of the stock `AZURE_LOSSLESS` WRED profile, so the provider tunes that profile in place; " +
		"from 202511 it owns `WRED_PROFILE|<name>_LOSSLESS` (`ecn = ecn_all`, WRED drop off): `green_min_threshold`, `green_max_threshold`, `green_drop_probability`.",
	"pfc": "SONiC on Spectrum has no byte knob for the pause point: buffermgrd derives the lossless profile (xon, xoff, size, `dynamic_th`) from speed and `CABLE_LENGTH`, and the provider leaves `BUFFER_PG`/`BUFFER_PROFILE` to it.",
	"lossless_classes": "Each class's DSCPs map to its `priority` in `DSCP_TO_TC_MAP|<name>`, which `TC_TO_PRIORITY_GROUP_MAP|<name>` and `PFC_PRIORITY_TO_PRIORITY_GROUP_MAP|<name>` put in a priority group of its own; " +
		"`pfc_enable` lists every lossless priority (`3,4`, SONiC's stock lossless pair), from which buffermgrd builds the lossless priority groups and their headroom (`BUFFER_PG|<port>|3-4`); " +
		"`QUEUE|<port>|<priority>` gets the scheduler `SCHEDULER|<name>_<class>` and, from 202511, the WRED profile `WRED_PROFILE|<name>_<class>` (before 202511 the stock `AZURE_LOSSLESS`, so a class's ECN values must equal `ecn`'s). " +
		"The PFC watchdog, when set, watches every lossless priority.",
	"rdma_scheduler": "`SCHEDULER|<name>_RDMA`.",
	"cnp_scheduler":  "`SCHEDULER|<name>_CNP`.",
	"pfc_watchdog":   "SONiC's PFC watchdog on the RDMA priority (`PFC_WD|<port>`, `pfcwd_sw_enable`); its times must be at least the switch's poll interval (`PFC_WD|GLOBAL POLL_INTERVAL`, checked at plan).",
	"headroom": "In the traditional buffer model the SKU's `pg_profile_lookup.ini` row for the speed and `cable_length_m`, which buffermgrd copies into the profile; " +
		"in the dynamic model (`DEVICE_METADATA|localhost` `buffer_model = dynamic`) what buffermgrdyn's Mellanox script computes from the port's speed, MTU and lanes, `cable_length_m`, " +
		"the switch's `LOSSLESS_TRAFFIC_PATTERN` and shared headroom pool, by release (the 2 KiB reduced-pattern compensation only after 202511), and writes to APPL_DB. " +
		"For an SKU the provider has no table for, the Spectrum-4 formula with the worst-case pattern, what `provider::roce::pfc_headroom` returns. " +
		"After an apply the provider reads the switch's lossless priority groups back and fails, naming the port, when one is missing.",
	"planned_operations": "CONFIG_DB operations of one SetRequest, one line per change; the same change on several ports shares a line, the keys in braces " +
		"(`update CONFIG_DB/PORT_QOS_MAP/{Ethernet0,Ethernet4}/pfc_enable = 3`). A last line starting `shared:` names what an operation " +
		"changes beyond this resource: before 202511 the ECN thresholds go into the stock `AZURE_LOSSLESS` WRED profile, and the line counts and names the other queues bound to it.",
	"restore_point": "Keys are `TABLE|KEY|field`.",
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
	return ReadCounters(ctx, c.client, c.client.Address(), priority, nil)
}

func (c counters) Window(ctx context.Context) (time.Duration, string, error) {
	every, group, err := SlowestPoll(ctx, c.client)
	if err != nil {
		return 0, "", err
	}
	return 2 * every, fmt.Sprintf("two polls of the %s counters of %s (every %s, FLEX_COUNTER_TABLE; counterpoll %s interval <ms> polls faster)", group, c.client.Address(), every, counterpollGroup(group)), nil
}

// counterpollGroup is the counterpoll command's word for a FLEX_COUNTER_TABLE group
// (sonic-utilities counterpoll/main.py: port, queue, wredqueue, pg-drop).
func counterpollGroup(group string) string {
	switch group {
	case "WRED_ECN_QUEUE":
		return "wredqueue"
	case "PG_DROP":
		return "pg-drop"
	}
	return strings.ToLower(group)
}
