package cumulus

import (
	"context"
	"errors"
	"regexp"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/health"
	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
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
			"profile's priorities (the default class's and each of `lossless_classes`), and every apply is one NVUE revision, saved where auto-save is off. On a switch with Cumulus' RoCE mode on " +
			"(`nv set qos roce`, lossless) the profiles are written on top of it and no traffic pool is, RoCE's own serving the lossless priority; " +
			"RoCE mode stays on after destroy. RoCE lossy mode takes no PFC profile, and RoCE lossless mode one lossless priority: both refuse `lossless_classes` at plan (lossy mode refuses PFC altogether).",
		Reads: "nvue read of the applied configuration", Writes: "nvue revision applied", ReadCall: "GET", WriteCall: "revision",
		CounterReads: "nvue read of the QoS counters",
		Sampling: "NVUE at the operational revision, read live: each port's `counters/qos` (PFC frames per switch priority, egress queue and ingress buffer " +
			"counters, the port's ECN marks) and `qos/pfc-watchdog`, each priority mapped to its traffic class and priority group through the applied `qos` tree.", PortExample: "swp1", Lands: lands,
	}
}

// lands are the NVUE objects each attribute of roce_switch_qos becomes (desired.go).
var lands = map[string]string{
	"name":           "Name of the NVUE profiles: `qos mapping`, `egress-scheduler`, `pfc` and `congestion-control` `<name>`.",
	"ports":          "Each port is bound to the four profiles (`interface <port> qos <object> profile <name>`); its speed is read from the operational state.",
	"cable_length_m": "The PFC profile's `cable-length` (1 to 100000 m), from which Cumulus sizes the headroom itself.",
	"rdma": "The mapping profile trusts `l3` and maps every DSCP: these to `priority`, the CNP's to its priority, the rest to 0; " +
		"switch priority n goes to traffic class n in the shared `egress-queue-mapping default-global`.",
	"ecn": "The congestion-control profile's traffic class `priority`: `min-threshold`, `max-threshold`, `probability`, ECN on, RED off; traffic class 0 keeps " +
		"Cumulus' default band (150000 to 1500000 bytes), which the profile would otherwise drop.",
	"pfc": "The PFC profile enables `tx` and `rx` on `priority`, and the `default-lossless` traffic pool gets half the buffer memory; " +
		"with Cumulus' RoCE lossless mode on, RoCE's own lossless pool serves it and no pool is written (RoCE lossy mode is refused).",
	"lossless_classes": "Each class's priority joins the PFC profile's `switch-priority` list (one profile for every lossless priority, buffered in the `default-lossless` pool), " +
		"the mapping profile maps its DSCPs to it, `egress-queue-mapping default-global` sends it to traffic class `priority`, and the egress-scheduler and congestion-control " +
		"profiles get its traffic class (`mode`, `bw-percent`; `min-threshold`, `max-threshold`, `probability`, ECN on, RED off). NVUE holds no class name: an import names " +
		"each class `class<priority>`. Refused at plan with Cumulus' RoCE lossless mode on, which buffers one lossless priority.",
	"rdma_scheduler": "The egress-scheduler profile's traffic class `priority` (`mode`, `bw-percent`); what DWRR leaves goes to traffic class 0.",
	"cnp_scheduler":  "The egress-scheduler profile's CNP traffic class.",
	"pfc_watchdog": "Switched on per port (`interface <port> qos pfc-watchdog state enable`); Cumulus detects a storm after its own robustness x polling-interval and restores by itself, " +
		"so `action` and the times are not written (a plan warns).",
	"headroom":           "The Spectrum-4 formula with the worst-case pattern for the fastest port: Cumulus sizes the headroom itself from the PFC cable-length.",
	"planned_operations": "NVUE settings of one revision, one line each (`set qos/pfc/ROCE/cable-length = 5`, `unset ...`); the removals and the sets are two PATCHes of that revision.",
	"restore_point":      "Keys are NVUE paths (`qos/traffic-pool/default-lossy/memory-percent`).",
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
	if _, rolledBack := errors.AsType[*nvue.RolledBackError](err); rolledBack {
		return "The change applied but did not read back, so it was not confirmed and the switch rolled it back: " +
			"check that the switch still answers NVUE from here after the change (management path, ACLs) and nv config history, then apply again."
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
	return ReadCounters(ctx, c.client, c.client.Address(), nil)
}

// Window is zero: NVUE reads the counters live.
func (counters) Window(context.Context) (time.Duration, string, error) { return 0, "", nil }
