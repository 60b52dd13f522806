package provider

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/clusterbid/terraform-provider-roce/internal/health"
	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg/drivers"
	"github.com/clusterbid/terraform-provider-roce/internal/telemetry"
	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

var (
	_ datasource.DataSourceWithConfigure      = (*fabricHealthDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*fabricHealthDataSource)(nil)
)

func newFabricHealthDataSource() datasource.DataSource { return &fabricHealthDataSource{} }

type fabricHealthDataSource struct {
	data *providerData
}

type fabricHealthModel struct {
	Switches        types.Dynamic      `tfsdk:"switches"`
	CumulusSwitches types.List         `tfsdk:"cumulus_switches"`
	Hosts           types.List         `tfsdk:"hosts"`
	Priority        types.Int64        `tfsdk:"priority"`
	Classes         types.Map          `tfsdk:"classes"`
	IntervalSeconds types.Int64        `tfsdk:"interval_seconds"`
	RequireTraffic  types.Bool         `tfsdk:"require_traffic"`
	Cables          []cableModel       `tfsdk:"cables"`
	ID              types.String       `tfsdk:"id"`
	Seconds         types.Float64      `tfsdk:"seconds"`
	OK              types.Bool         `tfsdk:"ok"`
	Passed          types.Int64        `tfsdk:"passed"`
	Failed          types.Int64        `tfsdk:"failed"`
	Failures        []types.String     `tfsdk:"failures"`
	Checks          []healthVerdict    `tfsdk:"checks"`
	SwitchPorts     []switchPortDeltas `tfsdk:"switch_ports"`
	HostPorts       []hostPortDeltas   `tfsdk:"host_ports"`
}

// cableModel is one link whose two ends the user knows.
type cableModel struct {
	Switch types.String `tfsdk:"switch"`
	Port   types.String `tfsdk:"port"`
	Host   types.String `tfsdk:"host"`
	Netdev types.String `tfsdk:"netdev"`
}

type healthVerdict struct {
	Check   types.String `tfsdk:"check"`
	Target  types.String `tfsdk:"target"`
	Subject types.String `tfsdk:"subject"`
	Pass    types.Bool   `tfsdk:"pass"`
	Detail  types.String `tfsdk:"detail"`
	Remedy  types.String `tfsdk:"remedy"`
}

type switchPortDeltas struct {
	Switch   types.String     `tfsdk:"switch"`
	Port     types.String     `tfsdk:"port"`
	Counters map[string]int64 `tfsdk:"counters"`
}

type hostPortDeltas struct {
	Host     types.String     `tfsdk:"host"`
	Device   types.String     `tfsdk:"device"`
	Netdev   types.String     `tfsdk:"netdev"`
	Counters map[string]int64 `tfsdk:"counters"`
}

// Defaults and limits of the sampling.
const (
	defaultHealthInterval = 10
	maxHealthInterval     = 600
	defaultLosslessPrio   = 3
)

func (d *fabricHealthDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_fabric_health"
}

func (d *fabricHealthDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	counters := schema.MapAttribute{Computed: true, ElementType: types.Int64Type,
		MarkdownDescription: "The counters that rose between the samples, by their source's name, with the increase."}
	switchCounters := schema.MapAttribute{Computed: true, ElementType: types.Int64Type,
		MarkdownDescription: "The counters that rose between the samples, by their neutral name, with the increase."}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Whether the fabric is lossless, judged from its counters: two samples `interval_seconds` apart of every " +
			"switch port's PFC frames and its lossless queue and priority group, as the switch's driver reads them, and of every host " +
			"RDMA port's `hw_counters` and `ethtool -S` (over SSH; each physical port of a RoCE LAG device such as `mlx5_bond_0`). " +
			driverSampling() + " Verdicts, with remedies, cover drops on a " +
			"lossless priority (the PFC watchdog's among them; on NICs `rx_prioN_discards`, or `rx_discards_phy` where the mlx5 " +
			"driver predates the per-priority counter), link-level pause (`rx_global_pause`, or `rx_pause_ctrl_phy` while global pause is off), " +
			"PFC frames on other priorities, PFC storms (the switch's watchdog, the NIC's stall detection), ECN marks that " +
			"draw no CNPs (the notification point off), ignored CNPs (the reaction point off), RDMA retransmissions (which way packets were lost: `out_of_sequence` at the receiver, " +
			"which NAKs the gap; `packet_seq_err`, the NAKs, at the sender; `local_ack_timeout_err` at the sender for a lost message tail no NAK reports) and, with `cables`, " +
			"the two ends of a link counting different PFC frames. " +
			"Sample while traffic runs; use `ok` or `failures` in a `check` block or a postcondition.",
		Attributes: map[string]schema.Attribute{
			"switches": schema.DynamicAttribute{Optional: true,
				MarkdownDescription: "The switches to sample, a list of `{ address, os }`: `os` as in `roce_switch_qos` (" + driverList() + "; default `" + drivers.Default + "`), " +
					"each switch reached with the provider's settings for its transport. A list of plain addresses is read as switches of the default `os` (the form before `os` existed)."},
			"cumulus_switches": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				DeprecationMessage:  "Use switches = [{ address = \"...\", os = \"cumulus\" }] instead.",
				MarkdownDescription: "NVUE addresses of Cumulus Linux switches: the same as `switches` entries with `os = \"cumulus\"`."},
			"hosts": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "SSH addresses of the hosts, reached with the provider's `ssh` settings."},
			"priority": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "The lossless (RDMA) priority and queue, 0-7. Default `3`."},
			"classes": schema.MapAttribute{Optional: true, ElementType: types.Int64Type,
				MarkdownDescription: "The lossless classes, class name to priority (`{ compute = 3, storage = 4 }`, as the switch's `lossless_classes` and the NICs' " +
					"`pfc_priorities` have them). Each class's priority is judged lossless beside `priority`, on its own: drops on it, pauses on it (no fault) and " +
					"outside every class (a fault), ECN marks on its queue and the CNPs they draw, and a switch port whose PFC leaves it out. " +
					"Verdicts name the class: `priority 4 (storage)`. A name on `priority` names the default class. Only `priority` must carry traffic (`require_traffic`)."},
			"interval_seconds": schema.Int64Attribute{Optional: true,
				MarkdownDescription: fmt.Sprintf("Seconds between the two samples, 1-%d. Default `%d`. Where a switch's counters move only when they poll, "+
					"the samples are taken as far apart as its driver needs (see above), with a warning when this is set shorter.", maxHealthInterval, defaultHealthInterval)},
			"cables": schema.ListNestedAttribute{Optional: true,
				MarkdownDescription: "Links whose two ends you know (a pod's cable map): each switch port and the host netdev on it. The `pfc_agreement` check then compares, " +
					"priority by priority, the PFC frames one end sent with those the other received, and where they disagree says which side is off: the NIC's count " +
					"matching exactly one other sampled switch port (the cable is elsewhere), a switch port whose PFC counters did not move (the switch is not updating them), " +
					"or a NIC whose pause counters did not. `switch` must be in `switches` and `host` in `hosts`, written the same way.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"switch": schema.StringAttribute{Required: true, MarkdownDescription: "The switch's address, as in `switches`."},
					"port":   schema.StringAttribute{Required: true, MarkdownDescription: "The switch port (`Ethernet0`, `swp1`)."},
					"host":   schema.StringAttribute{Required: true, MarkdownDescription: "The host's address, as in `hosts`."},
					"netdev": schema.StringAttribute{Required: true, MarkdownDescription: "The host's netdev on the cable (`ens1f0np0`)."},
				}}},
			"require_traffic": schema.BoolAttribute{Optional: true,
				MarkdownDescription: "Fail the `traffic` check when nothing moved on the priority: idle counters prove nothing. Default `true`."},
			"id":      str("The sampled targets."),
			"seconds": schema.Float64Attribute{Computed: true, MarkdownDescription: "Seconds between the two samples, as measured."},
			"ok":      schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether every check passed."},
			"passed":  schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of passed verdicts."},
			"failed":  schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of failed verdicts."},
			"failures": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "One line per failed verdict: `<check> <target> <subject>: <detail>. Remedy: <remedy>`."},
			"checks": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "Every verdict: one passing verdict per check that found nothing, else one per port at fault.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"check":   str("Check id: `counters_read`, `traffic`, `lossless_drops`, `pfc_priority`, `pfc_agreement` (with `cables`), `pfc_watchdog`, `ecn_cnp`, `cnp_handled`, `retransmissions`."),
					"target":  str("The switch or host address; empty for the fabric."),
					"subject": str("The port, queue or priority: `Ethernet8 queue 3`, `mlx5_0:1 (ens1f0np0)`; a RoCE LAG device's physical port `mlx5_bond_0:1 (ens1f1np1)`, the whole device `mlx5_bond_0:1 (ens1f0np0+ens1f1np1)`."),
					"pass":    schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the check passed."},
					"detail":  str("What the counters did."),
					"remedy":  str("What to do; empty when the check passed."),
				}}},
			"switch_ports": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "The raw deltas of each switch port under vendor-neutral names, " +
				"the same on SONiC and Cumulus Linux: the port's `pfc/<priority>/rx_frames` and `pfc/<priority>/tx_frames`, and " +
				"`ecn_marked_packets` where the switch counts ECN marks per port (Cumulus); each egress queue read as `queue/<n>/<name>` " +
				"(`n` the queue, or traffic class) with `tx_packets`, `dropped_packets` or `dropped_bytes` (Cumulus counts egress and ingress " +
				"buffer drops in bytes), `wred_dropped_packets`, `ecn_marked_packets` (SONiC, with its WRED_ECN_QUEUE counters on), " +
				"`watchdog_storms`, `watchdog_restored`, `watchdog_tx_dropped_packets` and `watchdog_rx_dropped_packets`; each ingress " +
				"priority group read as `priority-group/<n>/<name>` with `dropped_packets` or `dropped_bytes`. A counter the switch " +
				"does not keep is absent.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"switch": str("The switch address."), "port": str("The port."), "counters": switchCounters,
				}}},
			"host_ports": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "The raw deltas of each host RDMA port: hw_counters and ethtool -S. " +
				"A RoCE LAG device has one entry per physical port, its hw_counters in the first.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"host": str("The host address."), "device": str("The RDMA port, `mlx5_0:1`."), "netdev": str("Its netdev."), "counters": counters,
				}}},
		},
	}
}

func (d *fabricHealthDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig refuses what no sample can answer before anything is read.
func (d *fabricHealthDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m fabricHealthModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	switches, diags := m.switchEntries()
	resp.Diagnostics.Append(diags...)
	hosts := knownStrings(m.Hosts)
	// Known to be empty: every list unset or empty, and one of them set (when all are unset,
	// Read says so).
	lists := []attr.Value{m.Switches, m.CumulusSwitches, m.Hosts}
	if len(switches)+len(hosts) == 0 && !slices.ContainsFunc(lists, attr.Value.IsUnknown) && !m.Switches.IsUnderlyingValueUnknown() && slices.ContainsFunc(lists, isSet) {
		resp.Diagnostics.AddAttributeError(path.Root("switches"), "Nothing to Sample",
			nothingToSample+" are all empty or unset: "+listTargets)
	}
	if v := m.Priority; isSet(v) && (v.ValueInt64() < 0 || v.ValueInt64() > 7) {
		resp.Diagnostics.AddAttributeError(path.Root("priority"), "Value Out of Range",
			fmt.Sprintf("priority is %d; an 802.1p priority is 0-7: set the lossless priority the fabric uses (3 by convention).", v.ValueInt64()))
	}
	checkHealthClasses(m.Classes, &resp.Diagnostics)
	if v := m.IntervalSeconds; isSet(v) && (v.ValueInt64() < 1 || v.ValueInt64() > maxHealthInterval) {
		resp.Diagnostics.AddAttributeError(path.Root("interval_seconds"), "Value Out of Range",
			fmt.Sprintf("interval_seconds is %d; the samples are 1-%d seconds apart: set a few seconds while traffic runs (10 is the default).", v.ValueInt64(), maxHealthInterval))
	}
	seen := map[string]string{}
	for _, e := range switches {
		if j, dup := seen[e.address]; dup {
			resp.Diagnostics.AddAttributeError(e.at, "Duplicate Address",
				fmt.Sprintf("%s and %s are both %q: list each target once, or its counters count twice.", j, e.name, e.address))
		}
		seen[e.address] = e.name
	}
	seen = map[string]string{}
	for i, v := range hosts {
		name := fmt.Sprintf("hosts[%d]", i)
		if !isSet(v) {
			continue
		}
		if j, dup := seen[v.ValueString()]; dup {
			resp.Diagnostics.AddAttributeError(path.Root("hosts").AtListIndex(i), "Duplicate Address",
				fmt.Sprintf("%s and %s are both %q: list each target once, or its counters count twice.", j, name, v.ValueString()))
		}
		seen[v.ValueString()] = name
	}
	checkCables(m.Cables, switches, hosts, &resp.Diagnostics)
}

// checkHealthClasses refuses a class priority outside 0-7, an empty class name and two
// names for one priority.
func checkHealthClasses(classes types.Map, diags *diag.Diagnostics) {
	if !isSet(classes) {
		return
	}
	byPrio := map[int64]string{}
	names := slices.Sorted(maps.Keys(classes.Elements()))
	for _, name := range names {
		v, ok := classes.Elements()[name].(types.Int64)
		at := path.Root("classes").AtMapKey(name)
		if !ok || !isSet(v) {
			continue
		}
		p := v.ValueInt64()
		switch {
		case strings.TrimSpace(name) == "":
			diags.AddAttributeError(at, "Invalid Class Name",
				fmt.Sprintf("classes has a class with an empty name on priority %d: name it as the switch's lossless_classes do (storage).", p))
		case p < 0 || p > 7:
			diags.AddAttributeError(at, "Value Out of Range",
				fmt.Sprintf("classes[%q] is %d; an 802.1p priority is 0-7: set the class's priority as the switch's lossless_classes has it.", name, p))
		case byPrio[p] != "":
			diags.AddAttributeError(at, "Repeated Class Priority",
				fmt.Sprintf("classes[%q] and classes[%q] are both priority %d: a priority carries one lossless class; remove one of them.", byPrio[p], name, p))
		default:
			byPrio[p] = name
		}
	}
}

// healthClasses are the classes of the configuration, by name.
func healthClasses(classes types.Map) []health.Class {
	var out []health.Class
	for _, name := range slices.Sorted(maps.Keys(classes.Elements())) {
		if v, ok := classes.Elements()[name].(types.Int64); ok && isSet(v) {
			out = append(out, health.Class{Name: name, Priority: int(v.ValueInt64())})
		}
	}
	return out
}

// checkCables refuses a cable whose switch is not in switches or whose host is not in hosts:
// its ends would never be sampled.
func checkCables(cables []cableModel, switches []switchEntry, hosts []types.String, diags *diag.Diagnostics) {
	for i, c := range cables {
		at := path.Root("cables").AtListIndex(i)
		if isSet(c.Switch) && !slices.ContainsFunc(switches, func(e switchEntry) bool { return e.address == c.Switch.ValueString() }) {
			diags.AddAttributeError(at.AtName("switch"), "Cable End Not Sampled",
				fmt.Sprintf("cables[%d].switch is %q, which is not in switches: add it there, written the same way, or fix the cable.", i, c.Switch.ValueString()))
		}
		if isSet(c.Host) && !slices.ContainsFunc(hosts, func(h types.String) bool { return h.ValueString() == c.Host.ValueString() }) {
			diags.AddAttributeError(at.AtName("host"), "Cable End Not Sampled",
				fmt.Sprintf("cables[%d].host is %q, which is not in hosts: add it there, written the same way, or fix the cable.", i, c.Host.ValueString()))
		}
	}
}

// switchEntry is one switch to sample: where the configuration lists it, its address and OS.
type switchEntry struct {
	at          path.Path
	name        string // switches[1], for text
	address, os string
}

// switchEntries are the known entries of switches and cumulus_switches. switches holds
// objects { address, os } or, in the form before os, plain addresses of the default OS; an
// entry that is neither, or names an OS without a driver, is refused. Unknown entries (a
// module's input at validate time) are left out.
func (m fabricHealthModel) switchEntries() ([]switchEntry, diag.Diagnostics) {
	var out []switchEntry
	var diags diag.Diagnostics
	elems, ok := dynamicElements(m.Switches)
	if !ok {
		diags.AddAttributeError(path.Root("switches"), "Invalid Switch List",
			fmt.Sprintf("switches is %s; give a list: [{ address = \"leaf1:8080\", os = \"%s\" }, ...].", m.Switches.UnderlyingValue().Type(context.Background()), drivers.Default))
	}
	for i, v := range elems {
		e := switchEntry{at: path.Root("switches").AtListIndex(i), name: fmt.Sprintf("switches[%d]", i), os: drivers.Default}
		switch v := v.(type) {
		case types.String:
			if !isSet(v) {
				continue
			}
			e.address = v.ValueString()
		case types.Object:
			if v.IsUnknown() {
				continue
			}
			attrs := v.Attributes()
			address, ok := attrs["address"].(types.String)
			if !ok || address.IsNull() {
				diags.AddAttributeError(e.at, "Switch Without Address",
					fmt.Sprintf("%s has no address: write it as { address = \"leaf1:8080\", os = \"%s\" }.", e.name, drivers.Default))
				continue
			}
			if address.IsUnknown() {
				continue
			}
			e.address = address.ValueString()
			for k := range attrs {
				if k != "address" && k != "os" {
					diags.AddAttributeError(e.at.AtName(k), "Unknown Switch Attribute",
						fmt.Sprintf("%s has %s; a switch entry takes address and os only.", e.name, k))
				}
			}
			if os, ok := attrs["os"].(types.String); ok && !os.IsNull() {
				if os.IsUnknown() {
					continue
				}
				e.os = os.ValueString()
			}
		default:
			diags.AddAttributeError(e.at, "Invalid Switch Entry",
				fmt.Sprintf("%s is %s; give { address = \"...\", os = \"...\" } (or a plain address of a %s switch).", e.name, v.Type(context.Background()), drivers.Default))
			continue
		}
		if _, err := switchDriver(e.os); err != nil {
			diags.AddAttributeError(e.at.AtName("os"), "Unknown Switch Operating System", fmt.Sprintf("%s: %v.", e.name, err))
			continue
		}
		out = append(out, e)
	}
	for i, v := range knownStrings(m.CumulusSwitches) {
		if isSet(v) {
			out = append(out, switchEntry{at: path.Root("cumulus_switches").AtListIndex(i), name: fmt.Sprintf("cumulus_switches[%d]", i),
				address: v.ValueString(), os: nvue.OS})
		}
	}
	return out, diags
}

// dynamicElements are the elements of a dynamic list or tuple, none while it is null or
// unknown; ok is false when it holds something else.
func dynamicElements(d types.Dynamic) (elems []attr.Value, ok bool) {
	if d.IsNull() || d.IsUnknown() || d.IsUnderlyingValueNull() || d.IsUnderlyingValueUnknown() {
		return nil, true
	}
	switch v := d.UnderlyingValue().(type) {
	case types.Tuple:
		return v.Elements(), true
	case types.List:
		return v.Elements(), true
	case types.Set:
		return v.Elements(), true
	}
	return nil, false
}

func (d *fabricHealthDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m fabricHealthModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	switches, diags := m.switchEntries()
	if resp.Diagnostics.Append(diags...); diags.HasError() {
		return
	}
	checkCables(m.Cables, switches, knownStrings(m.Hosts), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if len(switches)+len(knownStrings(m.Hosts)) == 0 {
		resp.Diagnostics.AddAttributeError(path.Root("switches"), "Nothing to Sample",
			nothingToSample+" are all empty or unset: "+listTargets)
		return
	}
	opts := health.Options{Priority: defaultLosslessPrio, RequireTraffic: true, Cables: d.cables(m.Cables, switches), Classes: healthClasses(m.Classes)}
	if isSet(m.Priority) {
		opts.Priority = int(m.Priority.ValueInt64())
	}
	if isSet(m.RequireTraffic) {
		opts.RequireTraffic = m.RequireTraffic.ValueBool()
	}
	interval := time.Duration(defaultHealthInterval) * time.Second
	if isSet(m.IntervalSeconds) {
		interval = time.Duration(m.IntervalSeconds.ValueInt64()) * time.Second
	}
	s, diags := d.sampler(switches, knownStrings(m.Hosts), opts.Priority)
	if resp.Diagnostics.Append(diags...); diags.HasError() {
		return
	}
	if window, why := s.window(ctx, interval); window > interval {
		if isSet(m.IntervalSeconds) {
			resp.Diagnostics.AddAttributeWarning(path.Root("interval_seconds"), "Sample Window Lengthened",
				fmt.Sprintf("interval_seconds is %d, shorter than %s: the samples are taken %s apart, as a shorter window sees no poll or two and misjudges drops, marks and rates. "+
					"Set interval_seconds to %d or more, or poll faster on the switch.", m.IntervalSeconds.ValueInt64(), why, window, int(window.Seconds())))
		}
		tflog.Debug(ctx, "fabric health window lengthened", map[string]any{"seconds": window.Seconds(), "why": why})
		interval = window
	}
	before, diags := s.sample(ctx)
	if resp.Diagnostics.Append(diags...); diags.HasError() {
		return
	}
	select {
	case <-ctx.Done():
		resp.Diagnostics.AddError("Fabric Health Sampling Cancelled", fmt.Sprintf("Terraform stopped the read between the two samples: %v. Nothing was changed; re-run to sample again.", ctx.Err()))
		return
	case <-time.After(interval):
	}
	after, diags := s.sample(ctx)
	if resp.Diagnostics.Append(diags...); diags.HasError() {
		return
	}
	delta := health.Diff(before, after)
	verdicts := health.Judge(delta, opts)
	if len(delta.Reset) > 0 {
		resp.Diagnostics.AddWarning("Counters Went Backwards",
			fmt.Sprintf("%d counters fell between the samples (cleared, or the device or driver restarted); their increase is taken as their later value: %s.", len(delta.Reset), firstOf(delta.Reset, 10)))
	}
	fillHealth(&m, switches, delta, verdicts)
	tflog.Debug(ctx, "fabric health judged", map[string]any{"switch_ports": len(delta.Switches), "host_ports": len(delta.Hosts),
		"seconds": delta.Seconds, "failed": m.Failed.ValueInt64()})
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// sampler reads every target of one fabric health data source.
type sampler struct {
	priority int
	switches []switchTarget
	hosts    []hostTarget
}

// switchTarget is one switch, its driver and the reader of its counters.
type switchTarget struct {
	switchEntry
	driver switchcfg.Driver
	reader switchcfg.CounterReader
}

// window is how far apart the samples must be: interval, or what a switch's counters need
// (said in why) when that is longer. A switch whose need cannot be read keeps interval; its
// read errors come with the samples.
func (s *sampler) window(ctx context.Context, interval time.Duration) (time.Duration, string) {
	window, why := interval, ""
	for _, sw := range s.switches {
		need, reason, err := sw.reader.Window(ctx)
		if err != nil {
			tflog.Debug(ctx, "switch counter poll intervals unread", map[string]any{"address": sw.address, "error": err.Error()})
			continue
		}
		if need > window {
			window, why = need, reason
		}
	}
	return window, why
}

// The Nothing to Sample diagnostic.
const (
	nothingToSample = "switches, cumulus_switches and hosts"
	listTargets     = "list the switches ({ address, os }) or the hosts (SSH addresses) whose counters should be judged."
)

type hostTarget struct {
	index  int
	runner host.Runner
}

func (d *fabricHealthDataSource) sampler(switches []switchEntry, hosts []types.String, priority int) (*sampler, diag.Diagnostics) {
	var diags diag.Diagnostics
	s := &sampler{priority: priority}
	for _, e := range switches {
		drv, err := switchDriver(e.os)
		if err != nil {
			diags.AddAttributeError(e.at, "Unknown Switch Operating System", err.Error())
			continue
		}
		reader, err := drv.Counters(switchLinks{d: d.data, address: e.address})
		if err != nil {
			diags.AddAttributeError(e.at, "Invalid Switch Connection Settings",
				fmt.Sprintf("%s, switch %q: %v. Fix the address or the provider's %s block.", e.name, e.address, err, drv.About().Transport))
			continue
		}
		e.address = d.data.switchAddress(drv, e.address)
		s.switches = append(s.switches, switchTarget{switchEntry: e, driver: drv, reader: reader})
	}
	for i, v := range hosts {
		address := joinDefaultPort(v.ValueString(), d.data.settings.SSH.Port)
		runner, err := d.data.hostRunner(address)
		if err != nil {
			addSSHSettingsError(&diags, address, err)
			continue
		}
		// Not through the gather cache: a sample must not be served from, or evict, the gather.
		s.hosts = append(s.hosts, hostTarget{index: i, runner: runner})
	}
	return s, diags
}

// sample reads every target at once; an unreadable target fails the read, naming it.
func (s *sampler) sample(ctx context.Context) (health.Sample, diag.Diagnostics) {
	out := health.Sample{Taken: time.Now()}
	var mu sync.Mutex
	var diags diag.Diagnostics
	var wg sync.WaitGroup
	for _, t := range s.switches {
		wg.Go(func() {
			began := time.Now()
			ports, err := t.reader.Sample(ctx, s.priority)
			about := t.driver.About()
			fields := map[string]any{"switch": t.address, "os": about.OS, "ports": len(ports), "duration_ms": time.Since(began).Milliseconds(), "rpc": about.ReadCall}
			if err != nil {
				fields["error"] = redact(err.Error())
			}
			sub := string(about.Transport)
			tflog.SubsystemDebug(subsystem(ctx, sub), sub, about.CounterReads, fields)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				diags.AddAttributeError(t.at, "Unable to Read Switch Counters",
					fmt.Sprintf("Reading the counters of %s (%s): %v. %s", t.address, about.Name, err, t.driver.Remedy(switchcfg.StageCounters, err)))
				return
			}
			out.Switches = append(out.Switches, ports...)
		})
	}
	for _, t := range s.hosts {
		wg.Go(func() {
			ports, err := telemetry.Host(ctx, t.runner)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				diags.AddAttributeError(path.Root("hosts").AtListIndex(t.index), "Unable to Read Host Counters",
					fmt.Sprintf("Reading the RDMA counters of %s: %v. Check that the host is reachable with the provider's ssh settings.", t.runner.Address(), err))
				return
			}
			out.Hosts = append(out.Hosts, ports...)
		})
	}
	wg.Wait()
	sortSample(&out)
	return out, diags
}

// sortSample puts the ports in a stable order: by target, then SONiC's natural port order or
// RDMA device order.
func sortSample(s *health.Sample) {
	slices.SortFunc(s.Switches, func(a, b health.SwitchPort) int {
		return cmp.Or(strings.Compare(a.Switch, b.Switch), sonic.NaturalCompare(a.Port, b.Port))
	})
	slices.SortFunc(s.Hosts, func(a, b health.HostPort) int {
		return cmp.Or(strings.Compare(a.Host, b.Host), sonic.NaturalCompare(a.Device, b.Device), cmp.Compare(a.Port, b.Port))
	})
}

func fillHealth(m *fabricHealthModel, switches []switchEntry, d health.Delta, verdicts []verdict.Verdict) {
	var ids []string
	for _, e := range switches {
		ids = append(ids, e.address)
	}
	for _, v := range knownStrings(m.Hosts) {
		ids = append(ids, v.ValueString())
	}
	m.ID = types.StringValue(strings.Join(ids, ","))
	m.Seconds = types.Float64Value(d.Seconds)
	m.Checks, m.Failures = []healthVerdict{}, []types.String{}
	failed := 0
	for _, v := range verdicts {
		m.Checks = append(m.Checks, healthVerdict{Check: types.StringValue(v.Check), Target: types.StringValue(v.Target), Subject: types.StringValue(v.Subject),
			Pass: types.BoolValue(v.Pass), Detail: types.StringValue(v.Detail), Remedy: types.StringValue(v.Remedy)})
		if v.Pass {
			continue
		}
		failed++
		m.Failures = append(m.Failures, types.StringValue(v.Line()))
	}
	m.OK = types.BoolValue(failed == 0)
	m.Passed, m.Failed = types.Int64Value(int64(len(verdicts)-failed)), types.Int64Value(int64(failed))
	m.SwitchPorts, m.HostPorts = []switchPortDeltas{}, []hostPortDeltas{}
	for _, p := range d.Switches {
		c := nonZero(p.Stats)
		for q, counters := range p.Queues {
			addNonZero(c, fmt.Sprintf("queue/%d/", q), counters)
		}
		for pg, counters := range p.PriorityGroups {
			addNonZero(c, fmt.Sprintf("priority-group/%d/", pg), counters)
		}
		m.SwitchPorts = append(m.SwitchPorts, switchPortDeltas{Switch: types.StringValue(p.Switch), Port: types.StringValue(p.Port), Counters: c})
	}
	for _, p := range d.Hosts {
		for i, l := range p.Links() {
			c := nonZero(l.Ethtool)
			if i == 0 {
				addNonZero(c, "", p.RDMA)
			}
			m.HostPorts = append(m.HostPorts, hostPortDeltas{Host: types.StringValue(p.Host), Device: types.StringValue(fmt.Sprintf("%s:%d", p.Device, p.Port)),
				Netdev: types.StringValue(l.Netdev), Counters: c})
		}
	}
}

func nonZero(c health.Counters) map[string]int64 {
	out := map[string]int64{}
	addNonZero(out, "", c)
	return out
}

// addNonZero adds c's non-zero counters to dst, each name behind prefix.
func addNonZero(dst map[string]int64, prefix string, c health.Counters) {
	for k, v := range c {
		if v > 0 {
			dst[prefix+k] = int64(min(v, 1<<63-1))
		}
	}
}

// knownStrings returns the elements of a list of strings; none while it is null or unknown
// (a module's input at validate time).
func knownStrings(l types.List) []types.String {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	var out []types.String
	for _, e := range l.Elements() {
		if s, ok := e.(types.String); ok {
			out = append(out, s)
		}
	}
	return out
}

// firstOf lists up to n of items and says how many more there are.
func firstOf(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(items[:n], "; "), len(items)-n)
}

// cables are the cables with their ends' addresses as the samples name them.
func (d *fabricHealthDataSource) cables(cables []cableModel, switches []switchEntry) []health.Cable {
	var out []health.Cable
	for _, c := range cables {
		address := c.Switch.ValueString()
		if i := slices.IndexFunc(switches, func(e switchEntry) bool { return e.address == address }); i >= 0 {
			if drv, err := switchDriver(switches[i].os); err == nil {
				address = d.data.switchAddress(drv, address)
			}
		}
		out = append(out, health.Cable{Switch: address, Port: c.Port.ValueString(),
			Host: joinDefaultPort(c.Host.ValueString(), d.data.settings.SSH.Port), Netdev: c.Netdev.ValueString()})
	}
	return out
}

// driverSampling joins what each switch driver says of reading its counters.
func driverSampling() string {
	return eachDriver(" ", func(a switchcfg.About) string { return fmt.Sprintf("On %s: %s", a.Name, a.Sampling) })
}
