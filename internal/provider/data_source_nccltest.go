package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/nccltest"
	"github.com/clusterbid/terraform-provider-roce/internal/preflight"
	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

var (
	_ datasource.DataSourceWithConfigure      = (*ncclTestDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*ncclTestDataSource)(nil)
)

func newNCCLTestDataSource() datasource.DataSource { return &ncclTestDataSource{} }

type ncclTestDataSource struct {
	data *providerData
}

type ncclTestModel struct {
	Hosts             types.List          `tfsdk:"hosts"`
	MPIHosts          types.List          `tfsdk:"mpi_hosts"`
	GPUsPerHost       types.Int64         `tfsdk:"gpus_per_host"`
	Binary            types.String        `tfsdk:"binary"`
	MPIRun            types.String        `tfsdk:"mpirun"`
	MPIArgs           types.List          `tfsdk:"mpi_args"`
	MinBytes          types.String        `tfsdk:"min_bytes"`
	MaxBytes          types.String        `tfsdk:"max_bytes"`
	StepFactor        types.Int64         `tfsdk:"step_factor"`
	Iterations        types.Int64         `tfsdk:"iterations"`
	Check             types.Bool          `tfsdk:"check"`
	Env               types.Map           `tfsdk:"env"`
	MinBusBWGBps      types.Float64       `tfsdk:"min_busbw_gbps"`
	MinBusBWFraction  types.Float64       `tfsdk:"min_busbw_fraction"`
	Rails             types.Int64         `tfsdk:"rails"`
	RailGbps          types.Int64         `tfsdk:"rail_gbps"`
	BusBWEfficiency   types.Float64       `tfsdk:"busbw_efficiency"`
	RequireGDR        types.Bool          `tfsdk:"require_gdr"`
	TimeoutSeconds    types.Int64         `tfsdk:"timeout_seconds"`
	ID                types.String        `tfsdk:"id"`
	OK                types.Bool          `tfsdk:"ok"`
	Passed            types.Int64         `tfsdk:"passed"`
	Failed            types.Int64         `tfsdk:"failed"`
	Failures          []types.String      `tfsdk:"failures"`
	Checks            []preflightVerdicts `tfsdk:"checks"`
	BusBWGBps         types.Float64       `tfsdk:"busbw_gbps"`
	AvgBusBWGBps      types.Float64       `tfsdk:"avg_busbw_gbps"`
	ExpectedBusBWGBps types.Float64       `tfsdk:"expected_busbw_gbps"`
	BusBWRatio        types.Float64       `tfsdk:"busbw_ratio"`
	Network           types.String        `tfsdk:"network"`
	Sizes             []ncclTestSize      `tfsdk:"sizes"`
}

type ncclTestSize struct {
	SizeBytes        types.Int64   `tfsdk:"size_bytes"`
	OutOfPlaceBusBW  types.Float64 `tfsdk:"out_of_place_busbw_gbps"`
	InPlaceBusBW     types.Float64 `tfsdk:"in_place_busbw_gbps"`
	OutOfPlaceTimeUS types.Float64 `tfsdk:"out_of_place_time_us"`
}

// Defaults of the test, as nccl-tests' README runs it (-b 8 -e 8G -f 2).
const (
	defaultNCCLTestBinary  = "all_reduce_perf"
	defaultMPIRun          = "mpirun"
	defaultNCCLTestMin     = "8"
	defaultNCCLTestMax     = "8G"
	defaultNCCLTestGPUs    = 8
	defaultNCCLTestStep    = 2
	defaultNCCLTestIters   = 20
	defaultNCCLTestTimeout = 600
)

func (d *ncclTestDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_nccl_test"
}

func (d *ncclTestDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	num := func(desc string) schema.Float64Attribute {
		return schema.Float64Attribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "An NCCL bandwidth test: nccl-tests' `all_reduce_perf` on the hosts over SSH (on one host alone, or under " +
			"`mpirun` from the first host across all of them, one rank per GPU), with `NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET`. " +
			"It reads the tool's table and footer and the NCCL lines of the same run (the columns as the table's header names them, " +
			"`-C`, `-S` and `-I` layouts included; lines labelled by `mpirun --tag-output` or `-prepend-rank` too), and judges: the run completed, " +
			"its ranks ran as one job of `gpus_per_host` per host (a build without MPI prints one table per process and is named as such), " +
			"its results were right (`#wrong`, or before nccl-tests 2.13 an `error` deviation past the tool's own bound, out-of-bounds values), " +
			"the bus bandwidth at the largest size against `min_busbw_gbps` and against `min_busbw_fraction` of what the hosts' rails should carry " +
			"(`expected_busbw_gbps`), with the likely cause when short (Socket fallback, GPU Direct RDMA off, a rail missing), and the log's network and GDR verdicts. " +
			"nccl-tests (and MPI for several hosts) must be installed on the hosts. Use `ok` or `failures` in a `check` block or a postcondition.",
		Attributes: map[string]schema.Attribute{
			"hosts": schema.ListAttribute{Required: true, ElementType: types.StringType,
				MarkdownDescription: "SSH addresses of the hosts; the test is launched on the first."},
			"mpi_hosts": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "The names `mpirun -H` reaches the hosts by, one per host in the same order. Default: each SSH address without its port. mpirun starts the other hosts' ranks with its own launcher (Open MPI: ssh to port 22 as the same user, with that user's keys), not with the provider's SSH settings."},
			"gpus_per_host": schema.Int64Attribute{Optional: true, MarkdownDescription: fmt.Sprintf("Ranks (GPUs) per host. Default `%d`.", defaultNCCLTestGPUs)},
			"binary": schema.StringAttribute{Optional: true,
				MarkdownDescription: "The `all_reduce_perf` program, a path or a name on the login user's PATH. Default `all_reduce_perf`."},
			"mpirun": schema.StringAttribute{Optional: true, MarkdownDescription: "The MPI launcher for several hosts. Default `mpirun` (Open MPI)."},
			"mpi_args": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Extra `mpirun` arguments, e.g. `[\"--bind-to\", \"none\"]`; a root login needs `--allow-run-as-root`, which Open MPI otherwise refuses."},
			"min_bytes": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Smallest message size (`-b`), a whole number with an optional K, M or G. Default `8`."},
			"max_bytes":   schema.StringAttribute{Optional: true, MarkdownDescription: "Largest message size (`-e`). Default `8G`."},
			"step_factor": schema.Int64Attribute{Optional: true, MarkdownDescription: "Factor between sizes (`-f`), 2 or more. Default `2`."},
			"iterations":  schema.Int64Attribute{Optional: true, MarkdownDescription: "Iterations per size (`-n`). Default `20`."},
			"check": schema.BoolAttribute{Optional: true,
				MarkdownDescription: "Validate the results (`-c 1`), which catches corruption and costs time. Default `true`."},
			"env": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Environment for every rank (exported with `mpirun -x`), e.g. `NCCL_IB_HCA`. It may override the debug settings, at the cost of the verdicts that need them. " +
					"`NCCL_IB_HCA` is checked as NCCL reads it (`[^][=]device[:port],...`, names as prefixes unless the list starts with `=`): " +
					"a malformed list is an error, a name that would also select longer ones (`mlx5_1` also `mlx5_10`) a warning, and before the run " +
					"each host's RDMA devices (`ibv_devinfo -v`, read once for this and for `rails` and `rail_gbps`) are read to warn about names that select none of them or more than they name."},
			"min_busbw_gbps": schema.Float64Attribute{Optional: true,
				MarkdownDescription: "Bus bandwidth the largest size must reach, in GB/s, as a fixed floor. A fixed figure does not follow the fabric: a 400G rail carries about 48 GB/s, " +
					"8 of them about 384 GB/s across hosts, and a run missing a rail still clears a bar set below that; prefer `min_busbw_fraction`. " +
					"With both set, both must be met. Unset, with no fraction, only reports the bandwidth."},
			"min_busbw_fraction": schema.Float64Attribute{Optional: true,
				MarkdownDescription: "The share of `expected_busbw_gbps` the largest size must reach, more than 0 and at most 1, e.g. `0.8`. It needs two or more hosts, " +
					"and rails and a line rate (set, or read from the hosts). The run gets `NCCL_ALGO=Ring` unless `env` sets `NCCL_ALGO`: the expected figure is the ring's, " +
					"and Tree or NVLS can pass the NICs' limit on 2 nodes through NVLink."},
			"rails": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "RDMA NICs (RoCE ports) NCCL should use per host, 1-64. They set the expected bus bandwidth, and a host whose NCCL lines show fewer is named as a missing rail when the bandwidth is short. " +
					"Unset, the expected bandwidth counts the RoCE ports of each host's `ibv_devinfo -v` that `env[\"NCCL_IB_HCA\"]` selects (all without it), the most any host has."},
			"rail_gbps": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Each rail's line rate in Gb/s, 1-1600: 400 for a 400GbE ConnectX-7 port, 800 for ConnectX-8. " +
					"Unset, it is the fastest active selected port's `active_width` x `active_speed` in the hosts' `ibv_devinfo -v`."},
			"busbw_efficiency": schema.Float64Attribute{Optional: true,
				MarkdownDescription: fmt.Sprintf("The share of the rails' line rate the bus bandwidth can reach, more than 0 and at most 1. Default `%g`: RoCEv2 headers at a 4096-byte MTU "+
					"leave 98%% of the line for payload, and a 400G ConnectX-7 rail tops out near 48 of its 50 GB/s.", nccltest.DefaultEfficiency)},
			"require_gdr": schema.BoolAttribute{Optional: true, MarkdownDescription: "Fail the GPU Direct RDMA verdicts of the log when GDR is off. Default `true`."},
			"timeout_seconds": schema.Int64Attribute{Optional: true,
				MarkdownDescription: fmt.Sprintf("How long the test may run, 10-7200 seconds. Default `%d`.", defaultNCCLTestTimeout)},
			"id":             str("The hosts."),
			"ok":             schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether every verdict passed."},
			"passed":         schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of passed verdicts."},
			"failed":         schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of failed verdicts."},
			"failures":       schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "One line per failed verdict: `<check> <subject>: <detail>. Remedy: <remedy>`."},
			"busbw_gbps":     num("Bus bandwidth at the largest size, the better of out-of-place and in-place, GB/s."),
			"avg_busbw_gbps": num("nccl-tests' `# Avg bus bandwidth`: the mean over every size, GB/s."),
			"expected_busbw_gbps": num("What a Ring all-reduce across the hosts should reach, GB/s: rails x line rate / 8 x `busbw_efficiency`. nccl-tests' bus bandwidth " +
				"(algbw x 2(n-1)/n for all-reduce) makes a ring's the node's network bandwidth, whatever the node count. Null for one host, which NVLink bounds, " +
				"or when the rails or their line rate are unknown."),
			"busbw_ratio": num("`busbw_gbps` / `expected_busbw_gbps`; null without an expected figure. Well above 1 means NCCL crossed the network less than a ring does (Tree, NVLS) or the efficiency is set low."),
			"network":     str("The network NCCL used: `IB` (RoCE included), `Socket`, or a plugin's name."),
			"checks": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "Every verdict, in a stable order.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"check":   str("Check id: `nccl_test_completed`, `nccl_test_ranks`, `nccl_test_data`, `nccl_test_busbw`, then the log's `nccl_network`, `nccl_gdr_hca`, ..."),
					"subject": str("What was checked: an HCA, a warning kind, or empty for the run."),
					"pass":    schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the check passed."},
					"detail":  str("What was seen."),
					"remedy":  str("What to do; empty when the check passed."),
				}}},
			"sizes": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "The table, one entry per message size.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"size_bytes":              schema.Int64Attribute{Computed: true, MarkdownDescription: "Message size in bytes."},
					"out_of_place_busbw_gbps": num("Out-of-place bus bandwidth, GB/s."),
					"in_place_busbw_gbps":     num("In-place bus bandwidth, GB/s."),
					"out_of_place_time_us":    num("Out-of-place time per iteration, microseconds."),
				}}},
		},
	}
}

func (d *ncclTestDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// run builds the invocation from the model, with the defaults.
func (m ncclTestModel) run() nccltest.Run {
	r := nccltest.Run{GPUsPerHost: defaultNCCLTestGPUs, Binary: defaultNCCLTestBinary, MPIRun: defaultMPIRun,
		MinBytes: defaultNCCLTestMin, MaxBytes: defaultNCCLTestMax, StepFactor: defaultNCCLTestStep, Iterations: defaultNCCLTestIters,
		Check: true, Env: m.withRingForGate(knownStringMap(m.Env))}
	mpiHosts := knownStrings(m.MPIHosts)
	for i, h := range knownStrings(m.Hosts) {
		name := nccltest.MPIHost(h.ValueString())
		if i < len(mpiHosts) && isSet(mpiHosts[i]) {
			name = mpiHosts[i].ValueString()
		}
		r.Hosts = append(r.Hosts, name)
	}
	for _, a := range knownStrings(m.MPIArgs) {
		r.MPIArgs = append(r.MPIArgs, a.ValueString())
	}
	setInt := func(dst *int, v types.Int64) {
		if isSet(v) {
			*dst = int(v.ValueInt64())
		}
	}
	setInt(&r.GPUsPerHost, m.GPUsPerHost)
	setInt(&r.StepFactor, m.StepFactor)
	setInt(&r.Iterations, m.Iterations)
	for dst, v := range map[*string]types.String{&r.Binary: m.Binary, &r.MPIRun: m.MPIRun, &r.MinBytes: m.MinBytes, &r.MaxBytes: m.MaxBytes} {
		if isSet(v) {
			*dst = v.ValueString()
		}
	}
	if isSet(m.Check) {
		r.Check = m.Check.ValueBool()
	}
	return r
}

// ValidateConfig refuses what all_reduce_perf or mpirun would refuse, before anything runs.
func (d *ncclTestDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m ncclTestModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if isSet(m.Hosts) && len(m.Hosts.Elements()) == 0 {
		resp.Diagnostics.AddAttributeError(path.Root("hosts"), "No Hosts",
			"hosts is empty: list the SSH addresses of the hosts to test; the first one launches the run.")
	}
	if isSet(m.MPIHosts) && isSet(m.Hosts) && len(m.MPIHosts.Elements()) != len(m.Hosts.Elements()) {
		resp.Diagnostics.AddAttributeError(path.Root("mpi_hosts"), "Mismatched Host Lists",
			fmt.Sprintf("mpi_hosts has %d names and hosts %d addresses: give one mpirun name per host, in the same order, or leave mpi_hosts unset.", len(m.MPIHosts.Elements()), len(m.Hosts.Elements())))
	}
	for _, a := range []struct {
		name string
		v    types.Int64
		lo   int64
		hi   int64
		fix  string
	}{
		{"gpus_per_host", m.GPUsPerHost, 1, 64, "the GPUs each host gives the test (8 on an HGX node)"},
		{"step_factor", m.StepFactor, 2, 1024, "2 doubles the size each step, as nccl-tests' README runs it"},
		{"iterations", m.Iterations, 1, 100000, "20 is nccl-tests' default"},
		{"rails", m.Rails, 1, 64, "the RDMA NICs each host has for NCCL (8 on a rail-optimised node)"},
		{"rail_gbps", m.RailGbps, 1, 1600, "each rail's line rate in Gb/s: 400 for a 400GbE ConnectX-7 port, 800 for ConnectX-8"},
		{"timeout_seconds", m.TimeoutSeconds, 10, 7200, "a few minutes cover -e 8G on 2 nodes"},
	} {
		if isSet(a.v) && (a.v.ValueInt64() < a.lo || a.v.ValueInt64() > a.hi) {
			resp.Diagnostics.AddAttributeError(path.Root(a.name), "Value Out of Range",
				fmt.Sprintf("%s is %d; it takes %d-%d: set %s.", a.name, a.v.ValueInt64(), a.lo, a.hi, a.fix))
		}
	}
	if v := m.MinBusBWGBps; isSet(v) && v.ValueFloat64() < 0 {
		resp.Diagnostics.AddAttributeError(path.Root("min_busbw_gbps"), "Value Out of Range",
			fmt.Sprintf("min_busbw_gbps is %g; a bandwidth is 0 or more GB/s: set the bus bandwidth the largest size must reach, or leave it unset.", v.ValueFloat64()))
	}
	validateBusBWGate(&resp.Diagnostics, m)
	if lo, hi := m.MinBytes, m.MaxBytes; isSet(lo) && isSet(hi) && nccltest.ValidSize(lo.ValueString()) && nccltest.ValidSize(hi.ValueString()) &&
		nccltest.SizeBytes(lo.ValueString()) > nccltest.SizeBytes(hi.ValueString()) {
		resp.Diagnostics.AddAttributeError(path.Root("min_bytes"), "Message Sizes Out of Order",
			fmt.Sprintf("min_bytes %q is larger than max_bytes %q: all_reduce_perf would run no size; swap them or raise max_bytes.", lo.ValueString(), hi.ValueString()))
	}
	seen := map[string]int{}
	for i, h := range knownStrings(m.Hosts) {
		if !isSet(h) {
			continue
		}
		if j, dup := seen[h.ValueString()]; dup {
			resp.Diagnostics.AddAttributeError(path.Root("hosts").AtListIndex(i), "Duplicate Address",
				fmt.Sprintf("hosts[%d] and hosts[%d] are both %q: list each host once, or mpirun starts its ranks twice on it.", j, i, h.ValueString()))
		}
		seen[h.ValueString()] = i
	}
	for name, v := range map[string]types.String{"min_bytes": m.MinBytes, "max_bytes": m.MaxBytes} {
		if isSet(v) && !nccltest.ValidSize(v.ValueString()) {
			resp.Diagnostics.AddAttributeError(path.Root(name), "Invalid Message Size",
				fmt.Sprintf("%s is %q; nccl-tests takes a whole number of bytes with an optional K, M or G suffix, e.g. \"8\", \"1M\" or \"8G\".", name, v.ValueString()))
		}
	}
	for k := range knownStringMap(m.Env) {
		if !nccltest.ValidEnvName(k) {
			resp.Diagnostics.AddAttributeError(path.Root("env"), "Invalid Variable Name",
				fmt.Sprintf("env key %q is not a variable name (letters, digits and _, not starting with a digit): mpirun -x and the shell take no other.", k))
		}
	}
	validateEnvHCA(&resp.Diagnostics, knownStringMap(m.Env))
}

func (d *ncclTestDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m ncclTestModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	run := m.run()
	cmd, err := run.Command()
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("hosts"), "Invalid NCCL Test", err.Error()+".")
		return
	}
	var rdma []hostRDMA
	if m.needsRDMARead() {
		rdma = d.readRDMA(ctx, m)
	}
	warnEnvHCADevices(&resp.Diagnostics, m, rdma)
	hosts := knownStrings(m.Hosts)
	address := joinDefaultPort(hosts[0].ValueString(), d.data.settings.SSH.Port)
	runner, err := d.data.hostRunner(address)
	if err != nil {
		addSSHSettingsError(&resp.Diagnostics, address, err)
		return
	}
	timeout := time.Duration(defaultNCCLTestTimeout) * time.Second
	if isSet(m.TimeoutSeconds) {
		timeout = time.Duration(m.TimeoutSeconds.ValueInt64()) * time.Second
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := runner.Run(runCtx, cmd, ssh.RunOptions{AllowFailure: true, Timeout: timeout})
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("hosts").AtListIndex(0), "Unable to Run NCCL Test",
			fmt.Sprintf("Running %s on %s: %v. Nothing was changed; check the host is reachable and raise timeout_seconds if the run needs longer.", run.Binary, address, err))
		return
	}
	out := string(res.Stdout)
	result, err := nccltest.Parse(out)
	if err != nil {
		fix := "Read its last lines for the cause (a rank that died, mpirun failing to reach a host), fix it and re-run."
		if res.ExitStatus == 127 {
			fix = "The shell found no such program: install nccl-tests (and MPI for several hosts) on the hosts, or set binary and mpirun to where they are."
		}
		resp.Diagnostics.AddAttributeError(path.Root("hosts").AtListIndex(0), "NCCL Test Failed",
			fmt.Sprintf("%s on %s exited %d and printed no result (%v). Its last lines:\n%s\n%s",
				run.Binary, address, res.ExitStatus, err, lastLines(out, 8), fix))
		return
	}
	log, _ := facts.ParseNCCLLog(out)
	opts := nccltest.Options{Ranks: run.Ranks(), Preflight: preflight.DefaultOptions(), Topology: m.topology(rdma), Algo: run.Env[envAlgo]}
	if isSet(m.MinBusBWFraction) {
		opts.MinBusBWFraction = m.MinBusBWFraction.ValueFloat64()
	}
	if isSet(m.MinBusBWGBps) {
		opts.MinBusBWGBps = m.MinBusBWGBps.ValueFloat64()
	}
	if isSet(m.Rails) {
		opts.Rails = int(m.Rails.ValueInt64())
	}
	if isSet(m.RequireGDR) {
		opts.Preflight.RequireGDR = m.RequireGDR.ValueBool()
	}
	verdicts := nccltest.Judge(result, log, nccltest.ParseHostNets(out), opts)
	if res.ExitStatus != 0 {
		verdicts = append(verdicts, verdict.Verdict{Check: nccltest.CheckCompleted, Subject: "exit status",
			Detail: fmt.Sprintf("%s exited %d", run.Binary, res.ExitStatus), Remedy: "read the run's last lines for the error:\n" + lastLines(out, 8)})
	}
	var ids []string
	for _, h := range hosts {
		ids = append(ids, h.ValueString())
	}
	m.ID = types.StringValue(strings.Join(ids, ","))
	peak := 0.0
	if row, ok := result.Largest(); ok {
		peak = max(row.OutOfPlace.BusBW, row.InPlace.BusBW)
	}
	m.BusBWGBps, m.AvgBusBWGBps, m.Network = types.Float64Value(peak), types.Float64Value(result.AvgBusBW), types.StringValue(log.Network)
	m.ExpectedBusBWGBps = optionalFloat(opts.Topology.ExpectedBusBW())
	m.BusBWRatio = optionalFloat(opts.Topology.Ratio(peak))
	m.Sizes = []ncclTestSize{}
	for _, row := range result.Rows {
		m.Sizes = append(m.Sizes, ncclTestSize{SizeBytes: types.Int64Value(row.SizeBytes), OutOfPlaceBusBW: types.Float64Value(row.OutOfPlace.BusBW),
			InPlaceBusBW: types.Float64Value(row.InPlace.BusBW), OutOfPlaceTimeUS: types.Float64Value(row.OutOfPlace.TimeUS)})
	}
	passed, failed := verdict.Count(verdicts)
	m.Passed, m.Failed, m.OK = types.Int64Value(int64(passed)), types.Int64Value(int64(failed)), types.BoolValue(failed == 0)
	m.Checks, m.Failures = verdictModels(verdicts)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// lastLines returns the last n lines of out, for an error.
func lastLines(out string, n int) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// knownStringMap returns a map of strings' entries; none while it is null or unknown. An
// unknown value inside is left out: validation waits for it.
func knownStringMap(m types.Map) map[string]string {
	if m.IsNull() || m.IsUnknown() {
		return nil
	}
	out := map[string]string{}
	for k, e := range m.Elements() {
		if s, ok := e.(types.String); ok && isSet(s) {
			out[k] = s.ValueString()
		}
	}
	return out
}
