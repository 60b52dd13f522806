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
	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/telemetry"
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
	Switches        types.List         `tfsdk:"switches"`
	CumulusSwitches types.List         `tfsdk:"cumulus_switches"`
	Hosts           types.List         `tfsdk:"hosts"`
	Priority        types.Int64        `tfsdk:"priority"`
	IntervalSeconds types.Int64        `tfsdk:"interval_seconds"`
	RequireTraffic  types.Bool         `tfsdk:"require_traffic"`
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
			"switch port's PFC frames and its lossless queue and priority group (SONiC COUNTERS_DB over gNMI; Cumulus Linux NVUE " +
			"QoS counters and PFC watchdog status), and of every host " +
			"RDMA port's `hw_counters` and `ethtool -S` (over SSH; each physical port of a RoCE LAG device such as `mlx5_bond_0`). " +
			"On SONiC a port's lossless priorities are its PORT_QOS_MAP `pfc_enable` with `priority` (SONiC's default QoS makes 3 and 4 " +
			"lossless), each judged; a port whose queues the switch does not count (a spare port without buffers, with " +
			"`create_only_config_db_buffers`) is named and judged by its PFC frames only. Verdicts, with remedies, cover drops on a " +
			"lossless priority (the PFC watchdog's among them; on NICs `rx_prioN_discards`, or `rx_discards_phy` where the mlx5 " +
			"driver predates the per-priority counter), link-level pause (`rx_global_pause`, or `rx_pause_ctrl_phy` while global pause is off), " +
			"PFC frames on other priorities, PFC storms (the switch's watchdog, the NIC's stall detection), ECN marks that " +
			"draw no CNPs (the notification point off), ignored CNPs (the reaction point off) and RDMA retransmissions. " +
			"Sample while traffic runs; use `ok` or `failures` in a `check` block or a postcondition.",
		Attributes: map[string]schema.Attribute{
			"switches": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "gNMI addresses of the SONiC switches, reached with the provider's `gnmi` settings."},
			"cumulus_switches": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "NVUE addresses of the Cumulus Linux switches, reached with the provider's `nvue` settings: per port, " +
					"`counters/qos` (PFC frames per switch priority, egress queue and ingress buffer counters) and `qos/pfc-watchdog` " +
					"at the operational revision."},
			"hosts": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "SSH addresses of the hosts, reached with the provider's `ssh` settings."},
			"priority": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "The lossless (RDMA) priority and queue, 0-7. Default `3`."},
			"interval_seconds": schema.Int64Attribute{Optional: true,
				MarkdownDescription: fmt.Sprintf("Seconds between the two samples, 1-%d. Default `%d`. A SONiC switch's COUNTERS_DB moves only when its flex counters poll "+
					"(queues, WRED/ECN and priority group drops every 10 s by default, ports every second; FLEX_COUNTER_TABLE POLL_INTERVAL): the samples are taken at least "+
					"two polls of the slowest of them apart, 20 s by default, with a warning when this is set shorter.", maxHealthInterval, defaultHealthInterval)},
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
					"check":   str("Check id: `counters_read`, `traffic`, `lossless_drops`, `pfc_priority`, `pfc_watchdog`, `ecn_cnp`, `cnp_handled`, `retransmissions`."),
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
	switches, cumulus, hosts := knownStrings(m.Switches), knownStrings(m.CumulusSwitches), knownStrings(m.Hosts)
	// Known to be empty: every list unset or empty, and one of them set (when all are unset,
	// Read says so).
	lists := []attr.Value{m.Switches, m.CumulusSwitches, m.Hosts}
	if len(switches)+len(cumulus)+len(hosts) == 0 && !slices.ContainsFunc(lists, attr.Value.IsUnknown) && slices.ContainsFunc(lists, isSet) {
		resp.Diagnostics.AddAttributeError(path.Root("switches"), "Nothing to Sample",
			nothingToSample+" are all empty or unset: "+listTargets)
	}
	if v := m.Priority; isSet(v) && (v.ValueInt64() < 0 || v.ValueInt64() > 7) {
		resp.Diagnostics.AddAttributeError(path.Root("priority"), "Value Out of Range",
			fmt.Sprintf("priority is %d; an 802.1p priority is 0-7: set the lossless priority the fabric uses (3 by convention).", v.ValueInt64()))
	}
	if v := m.IntervalSeconds; isSet(v) && (v.ValueInt64() < 1 || v.ValueInt64() > maxHealthInterval) {
		resp.Diagnostics.AddAttributeError(path.Root("interval_seconds"), "Value Out of Range",
			fmt.Sprintf("interval_seconds is %d; the samples are 1-%d seconds apart: set a few seconds while traffic runs (10 is the default).", v.ValueInt64(), maxHealthInterval))
	}
	for attr, list := range map[string][]types.String{"switches": switches, "cumulus_switches": cumulus, "hosts": hosts} {
		seen := map[string]int{}
		for i, v := range list {
			if !isSet(v) {
				continue
			}
			if j, dup := seen[v.ValueString()]; dup {
				resp.Diagnostics.AddAttributeError(path.Root(attr).AtListIndex(i), "Duplicate Address",
					fmt.Sprintf("%s[%d] and %s[%d] are both %q: list each target once, or its counters count twice.", attr, j, attr, i, v.ValueString()))
			}
			seen[v.ValueString()] = i
		}
	}
}

func (d *fabricHealthDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m fabricHealthModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if len(knownStrings(m.Switches))+len(knownStrings(m.CumulusSwitches))+len(knownStrings(m.Hosts)) == 0 {
		resp.Diagnostics.AddAttributeError(path.Root("switches"), "Nothing to Sample",
			nothingToSample+" are all empty or unset: "+listTargets)
		return
	}
	opts := health.Options{Priority: defaultLosslessPrio, RequireTraffic: true}
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
	s, diags := d.sampler(m, opts.Priority)
	if resp.Diagnostics.Append(diags...); diags.HasError() {
		return
	}
	if window, why := s.window(ctx, interval); window > interval {
		if isSet(m.IntervalSeconds) {
			resp.Diagnostics.AddAttributeWarning(path.Root("interval_seconds"), "Sample Window Lengthened",
				fmt.Sprintf("interval_seconds is %d, shorter than %s: the samples are taken %s apart, as a shorter window sees no poll or two and misjudges drops, marks and rates. "+
					"Set interval_seconds to %d or more, or poll faster on the switch (counterpoll queue interval <ms>).", m.IntervalSeconds.ValueInt64(), why, window, int(window.Seconds())))
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
	fillHealth(&m, delta, verdicts)
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

type switchTarget struct {
	attr    string // switches or cumulus_switches
	index   int
	address string
	read    func(context.Context) ([]health.SwitchPort, error)
	// what the read is, for errors; advice is what to check when it fails; logged is the
	// read's log message in the log subsystem (gnmi or nvue), and logFields its fields
	// beyond the switch, ports and duration.
	what, advice string
	subsystem    string
	logged       string
	logFields    map[string]any
	// slowestPoll is how often the switch's slowest flex counter group the verdicts read
	// polls, and the group; nil where the counters are read live.
	slowestPoll func(context.Context) (time.Duration, string, error)
}

// window is how far apart the samples must be: interval, or two polls of the slowest
// counter group of a switch (said in why) when that is longer. A switch whose poll intervals
// cannot be read keeps interval; its read errors come with the samples.
func (s *sampler) window(ctx context.Context, interval time.Duration) (time.Duration, string) {
	window, why := interval, ""
	for _, sw := range s.switches {
		if sw.slowestPoll == nil {
			continue
		}
		every, group, err := sw.slowestPoll(ctx)
		if err != nil {
			tflog.Debug(ctx, "flex counter poll intervals unread", map[string]any{"address": sw.address, "error": err.Error()})
			continue
		}
		if 2*every > window {
			window, why = 2*every, fmt.Sprintf("two polls of the %s counters of %s (every %s, FLEX_COUNTER_TABLE)", group, sw.address, every)
		}
	}
	return window, why
}

// The Nothing to Sample diagnostic.
const (
	nothingToSample = "switches, cumulus_switches and hosts"
	listTargets     = "list the SONiC switches (gNMI addresses), the Cumulus switches (NVUE addresses) or the hosts (SSH addresses) whose counters should be judged."
)

type hostTarget struct {
	index  int
	runner host.Runner
}

func (d *fabricHealthDataSource) sampler(m fabricHealthModel, priority int) (*sampler, diag.Diagnostics) {
	var diags diag.Diagnostics
	s := &sampler{priority: priority}
	for i, v := range knownStrings(m.Switches) {
		cfg, err := d.data.gnmiConfig(v.ValueString(), nil)
		if err != nil {
			diags.AddAttributeError(path.Root("switches").AtListIndex(i), "Invalid gNMI Settings",
				fmt.Sprintf("Switch %q: %v. Fix the address or the provider's gnmi block.", v.ValueString(), err))
			continue
		}
		client, err := d.data.switches.Client(cfg)
		if err != nil {
			diags.AddAttributeError(path.Root("switches").AtListIndex(i), "Invalid gNMI Settings",
				fmt.Sprintf("Switch %s: %v. Fix the provider's gnmi block.", cfg.Address, err))
			continue
		}
		s.switches = append(s.switches, switchTarget{attr: "switches", index: i, address: cfg.Address, read: func(ctx context.Context) ([]health.SwitchPort, error) {
			return telemetry.SONiC(ctx, client, cfg.Address, priority, nil)
		}, what: "COUNTERS_DB over gNMI",
			advice:    "Check that the switch runs SONiC's gNMI server with COUNTERS_DB reads allowed and that its counters are enabled (counterpoll queue, pg-drop and pfcwd enable).",
			subsystem: logGNMI, logged: "gnmi read of COUNTERS_DB", logFields: map[string]any{"rpc": "Get", "target": "COUNTERS_DB"},
			slowestPoll: func(ctx context.Context) (time.Duration, string, error) {
				return telemetry.SONiCSlowestPoll(ctx, client)
			}})
	}
	for i, v := range knownStrings(m.CumulusSwitches) {
		client, err := d.data.nvueClient(v.ValueString(), nil)
		if err != nil {
			diags.AddAttributeError(path.Root("cumulus_switches").AtListIndex(i), "Invalid NVUE Settings",
				fmt.Sprintf("Switch %q: %v. Fix the address or the provider's nvue block.", v.ValueString(), err))
			continue
		}
		s.switches = append(s.switches, switchTarget{attr: "cumulus_switches", index: i, address: client.Address(), read: func(ctx context.Context) ([]health.SwitchPort, error) {
			return telemetry.Cumulus(ctx, client, client.Address(), nil)
		}, what: "the QoS counters over NVUE",
			advice:    "Check that the switch answers the NVUE REST API (nv set system api state enabled) with the provider's nvue credentials.",
			subsystem: logNVUE, logged: "nvue read of the QoS counters", logFields: map[string]any{"rpc": "GET", "target": "counters/qos, qos/pfc-watchdog"}})
	}
	for i, v := range knownStrings(m.Hosts) {
		address := joinDefaultPort(v.ValueString(), d.data.settings.SSH.Port)
		client, err := d.data.hostClient(address)
		if err != nil {
			addSSHSettingsError(&diags, address, err)
			continue
		}
		// Not through the gather cache: a sample must not be served from, or evict, the gather.
		s.hosts = append(s.hosts, hostTarget{index: i, runner: loggingRunner{host.SSH(client)}})
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
			ports, err := t.read(ctx)
			fields := map[string]any{"switch": t.address, "ports": len(ports), "duration_ms": time.Since(began).Milliseconds()}
			maps.Copy(fields, t.logFields)
			if err != nil {
				fields["error"] = redact(err.Error())
			}
			tflog.SubsystemDebug(subsystem(ctx, t.subsystem), t.subsystem, t.logged, fields)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				diags.AddAttributeError(path.Root(t.attr).AtListIndex(t.index), "Unable to Read Switch Counters",
					fmt.Sprintf("Reading %s of %s: %v. %s", t.what, t.address, err, t.advice))
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

func fillHealth(m *fabricHealthModel, d health.Delta, verdicts []health.Verdict) {
	var ids []string
	for _, v := range slices.Concat(knownStrings(m.Switches), knownStrings(m.CumulusSwitches), knownStrings(m.Hosts)) {
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
		line := v.Check
		for _, part := range []string{v.Target, v.Subject} {
			if part != "" {
				line += " " + part
			}
		}
		m.Failures = append(m.Failures, types.StringValue(line+": "+v.Detail+". Remedy: "+v.Remedy))
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
