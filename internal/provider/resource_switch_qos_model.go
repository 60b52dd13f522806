package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg/drivers"
)

// switchQoSModel mirrors switchQoSSchema.
type switchQoSModel struct {
	ID                types.String    `tfsdk:"id"`
	Address           types.String    `tfsdk:"address"`
	Name              types.String    `tfsdk:"name"`
	Ports             types.List      `tfsdk:"ports"`
	CableLengthM      types.Int64     `tfsdk:"cable_length_m"`
	PortSpeedGbps     types.Int64     `tfsdk:"port_speed_gbps"`
	SONiCRelease      types.String    `tfsdk:"sonic_release"`
	OS                types.String    `tfsdk:"os"`
	RDMA              *rdmaClassModel `tfsdk:"rdma"`
	CNP               *cnpClassModel  `tfsdk:"cnp"`
	ECN               *ecnModel       `tfsdk:"ecn"`
	PFC               *pfcModel       `tfsdk:"pfc"`
	RDMAScheduler     *schedulerModel `tfsdk:"rdma_scheduler"`
	CNPScheduler      *schedulerModel `tfsdk:"cnp_scheduler"`
	PFCWatchdog       *watchdogModel  `tfsdk:"pfc_watchdog"`
	LosslessClasses   types.List      `tfsdk:"lossless_classes"`
	GNMI              *gnmiLoginModel `tfsdk:"gnmi"`
	NVUE              *nvueLoginModel `tfsdk:"nvue"`
	Headroom          types.Object    `tfsdk:"headroom"`
	PlannedOperations types.List      `tfsdk:"planned_operations"`
	InSync            types.Bool      `tfsdk:"in_sync"`
	RestorePoint      types.Map       `tfsdk:"restore_point"`
	Timeouts          timeouts.Value  `tfsdk:"timeouts"`
}

type rdmaClassModel struct {
	DSCP     types.List  `tfsdk:"dscp"`
	Priority types.Int64 `tfsdk:"priority"`
}

type cnpClassModel struct {
	DSCP     types.Int64 `tfsdk:"dscp"`
	Priority types.Int64 `tfsdk:"priority"`
}

type ecnModel struct {
	MinThresholdBytes      types.Int64 `tfsdk:"min_threshold_bytes"`
	MaxThresholdBytes      types.Int64 `tfsdk:"max_threshold_bytes"`
	MarkProbabilityPercent types.Int64 `tfsdk:"mark_probability_percent"`
}

type pfcModel struct {
	PauseThresholdBytes types.Int64   `tfsdk:"pause_threshold_bytes"`
	RatioMin            types.Float64 `tfsdk:"ratio_min"`
	RatioMax            types.Float64 `tfsdk:"ratio_max"`
	RatioTarget         types.Float64 `tfsdk:"ratio_target"`
}

type schedulerModel struct {
	Mode   types.String `tfsdk:"mode"`
	Weight types.Int64  `tfsdk:"weight"`
}

type watchdogModel struct {
	Action            types.String `tfsdk:"action"`
	DetectionTimeMs   types.Int64  `tfsdk:"detection_time_ms"`
	RestorationTimeMs types.Int64  `tfsdk:"restoration_time_ms"`
}

// known reports whether every input the policy is built from is known, which at validate
// and plan time it may not be (values from variables or other resources).
func (m *switchQoSModel) known() bool {
	if m.ECN == nil || m.PFC == nil { // required, so nil only while the objects are unknown
		return false
	}
	vals := []attr.Value{m.Address, m.Name, m.Ports, m.CableLengthM, m.PortSpeedGbps, m.LosslessClasses}
	if m.RDMA != nil {
		vals = append(vals, m.RDMA.DSCP, m.RDMA.Priority)
	}
	if m.CNP != nil {
		vals = append(vals, m.CNP.DSCP, m.CNP.Priority)
	}
	if m.ECN != nil {
		vals = append(vals, m.ECN.MinThresholdBytes, m.ECN.MaxThresholdBytes, m.ECN.MarkProbabilityPercent)
	}
	if m.PFC != nil {
		vals = append(vals, m.PFC.PauseThresholdBytes, m.PFC.RatioMin, m.PFC.RatioMax, m.PFC.RatioTarget)
	}
	for _, s := range []*schedulerModel{m.RDMAScheduler, m.CNPScheduler} {
		if s != nil {
			vals = append(vals, s.Mode, s.Weight)
		}
	}
	if w := m.PFCWatchdog; w != nil {
		vals = append(vals, w.Action, w.DetectionTimeMs, w.RestorationTimeMs)
	}
	return !anyUnknown(vals...)
}

// os is the switch's operating system: the default one unless the resource says another.
func (m *switchQoSModel) os() string {
	if !isSet(m.OS) {
		return drivers.Default
	}
	return m.OS.ValueString()
}

// policy converts the model into the domain policy; unset parts take the schema defaults, so
// a state read back after import (where pfc is unknown) still converts.
func (m *switchQoSModel) policy() switchcfg.Policy {
	p := switchcfg.Policy{
		Name:         m.Name.ValueString(),
		CableLengthM: int(m.CableLengthM.ValueInt64()),
		Class:        fabric.DefaultTrafficClass(),
		RDMA:         switchcfg.Scheduler{Mode: switchcfg.SchedulerDWRR, Weight: 50},
		CNP:          switchcfg.Scheduler{Mode: switchcfg.SchedulerStrict},
	}
	if m.Name.IsNull() || m.Name.IsUnknown() {
		p.Name = switchcfg.DefaultName // name = "" stays empty, and Validate refuses it
	}
	p.Ports = stringsOf(m.Ports)
	if r := m.RDMA; r != nil {
		if !r.DSCP.IsNull() {
			p.Class.DSCP = intsOf(r.DSCP)
		}
		p.Class.Priority = intOr(r.Priority, fabric.DefaultRDMAPriority)
	}
	if c := m.CNP; c != nil {
		p.Class.CNPDSCP, p.Class.CNPPriority = intOr(c.DSCP, fabric.DefaultCNPDSCP), intOr(c.Priority, fabric.DefaultCNPPriority)
	}
	if e := m.ECN; e != nil {
		p.ECN = switchcfg.ECN{MinBytes: e.MinThresholdBytes.ValueInt64(), MaxBytes: e.MaxThresholdBytes.ValueInt64(), MarkProbabilityPercent: intOr(e.MarkProbabilityPercent, defaultMarkProbabilityPercent)}
	}
	if f := m.PFC; f != nil {
		p.PFC.PauseThresholdBytes = f.PauseThresholdBytes.ValueInt64()
	}
	if s := m.RDMAScheduler; s != nil {
		p.RDMA = switchcfg.Scheduler{Mode: stringOr(s.Mode, switchcfg.SchedulerDWRR), Weight: intOr(s.Weight, defaultRDMAWeight)}
	}
	if s := m.CNPScheduler; s != nil {
		p.CNP = switchcfg.Scheduler{Mode: stringOr(s.Mode, switchcfg.SchedulerStrict), Weight: intOr(s.Weight, 0)}
	}
	if w := m.PFCWatchdog; w != nil {
		// Null nested attributes are those left out (ValidateConfig runs before defaults).
		p.Watchdog = &switchcfg.Watchdog{Action: stringOr(w.Action, defaultWatchdogAction),
			DetectionTimeMs: intOr(w.DetectionTimeMs, defaultWatchdogTimeMs), RestoreTimeMs: intOr(w.RestorationTimeMs, defaultWatchdogTimeMs)}
	}
	p.Lossless = m.lossless()
	return p
}

// ratioWindow is the ECN/PFC ratio window the resource checks against.
func (m *switchQoSModel) ratioWindow() fabric.RatioWindow {
	w := fabric.DefaultRatioWindow()
	if f := m.PFC; f != nil {
		if !f.RatioMin.IsNull() {
			w.Min = f.RatioMin.ValueFloat64()
		}
		if !f.RatioMax.IsNull() {
			w.Max = f.RatioMax.ValueFloat64()
		}
		if !f.RatioTarget.IsNull() {
			w.Target = f.RatioTarget.ValueFloat64()
		}
	}
	return w
}

// setPolicy writes what the switch holds into the model, keeping the user's DSCP order when
// the set of values is the same, and leaving the PFC design values (not on the switch) alone.
func (m *switchQoSModel) setPolicy(p switchcfg.Policy) {
	m.CableLengthM = types.Int64Value(int64(p.CableLengthM))
	var current []int
	if m.RDMA != nil {
		current = intsOf(m.RDMA.DSCP)
	}
	dscp := p.Class.DSCP
	if sameSet(current, dscp) {
		dscp = current
	}
	m.RDMA = &rdmaClassModel{DSCP: int64List(dscp), Priority: types.Int64Value(int64(p.Class.Priority))}
	m.CNP = &cnpClassModel{DSCP: types.Int64Value(int64(p.Class.CNPDSCP)), Priority: types.Int64Value(int64(p.Class.CNPPriority))}
	m.ECN = &ecnModel{
		MinThresholdBytes:      types.Int64Value(p.ECN.MinBytes),
		MaxThresholdBytes:      types.Int64Value(p.ECN.MaxBytes),
		MarkProbabilityPercent: types.Int64Value(int64(p.ECN.MarkProbabilityPercent)),
	}
	m.setLossless(p.Lossless)
	m.RDMAScheduler = schedulerModelOf(p.RDMA)
	m.CNPScheduler = schedulerModelOf(p.CNP)
	if p.Watchdog == nil {
		m.PFCWatchdog = nil
	} else {
		m.PFCWatchdog = &watchdogModel{
			Action:            types.StringValue(p.Watchdog.Action),
			DetectionTimeMs:   types.Int64Value(int64(p.Watchdog.DetectionTimeMs)),
			RestorationTimeMs: types.Int64Value(int64(p.Watchdog.RestoreTimeMs)),
		}
	}
}

func schedulerModelOf(s switchcfg.Scheduler) *schedulerModel {
	w := types.Int64Null()
	if s.Mode == switchcfg.SchedulerDWRR {
		w = types.Int64Value(int64(s.Weight))
	}
	return &schedulerModel{Mode: types.StringValue(s.Mode), Weight: w}
}

func sameSet(a, b []int) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func (m *switchQoSModel) setComputed(ctx context.Context, h fabric.Headroom, lines []string, inSync bool) diag.Diagnostics {
	diags := m.setHeadroom(h)
	diags.Append(m.setLines(ctx, lines)...)
	m.InSync = types.BoolValue(inSync)
	return diags
}

func (m *switchQoSModel) setHeadroom(h fabric.Headroom) diag.Diagnostics {
	obj, diags := types.ObjectValue(headroomAttrTypes, map[string]attr.Value{
		"xon_bytes": types.Int64Value(h.XonBytes), "xoff_bytes": types.Int64Value(h.XoffBytes), "size_bytes": types.Int64Value(h.SizeBytes),
	})
	m.Headroom = obj
	return diags
}

func (m *switchQoSModel) setLines(ctx context.Context, lines []string) diag.Diagnostics {
	list, diags := types.ListValueFrom(ctx, types.StringType, lines)
	m.PlannedOperations = list
	return diags
}

func (m *switchQoSModel) setComputedUnknown() {
	m.Headroom = types.ObjectUnknown(headroomAttrTypes)
	m.PlannedOperations = types.ListUnknown(types.StringType)
	m.InSync = types.BoolUnknown()
	m.RestorePoint = types.MapUnknown(types.StringType)
}

// restorePoint returns the values to restore on destroy; nil after an import.
func (m *switchQoSModel) restorePoint() switchcfg.Snapshot {
	if m.RestorePoint.IsNull() || m.RestorePoint.IsUnknown() {
		return nil
	}
	snap := switchcfg.Snapshot{}
	for k, v := range m.RestorePoint.Elements() {
		if s, ok := v.(types.String); ok {
			snap[k] = s.ValueString()
		}
	}
	return snap
}

func (m *switchQoSModel) setRestorePoint(snap switchcfg.Snapshot) {
	if snap == nil {
		m.RestorePoint = types.MapNull(types.StringType)
		return
	}
	elems := make(map[string]attr.Value, len(snap))
	for k, v := range snap {
		elems[k] = types.StringValue(v)
	}
	m.RestorePoint = types.MapValueMust(types.StringType, elems)
}

// switchQoSID is the resource ID and import ID: address/name/port,port.
func switchQoSID(address, name string, ports []string) string {
	return address + "/" + name + "/" + strings.Join(ports, ",")
}

// parseSwitchQoSID reads an import ID: address/name/ports or address/ports (default name),
// with "<os>/" in front for a switch of another operating system than the default
// ("cumulus/").
func parseSwitchQoSID(id string) (os, address, name string, ports []string, err error) {
	os = drivers.Default
	if first, rest, ok := strings.Cut(id, "/"); ok {
		if _, known := drivers.Lookup(first); known {
			os, id = first, rest
		}
	}
	address, name, ports, err = parseQoSTarget(id)
	return os, address, name, ports, err
}

func parseQoSTarget(id string) (address, name string, ports []string, err error) {
	parts := strings.Split(id, "/")
	switch len(parts) {
	case 2:
		address, name, ports = parts[0], switchcfg.DefaultName, strings.Split(parts[1], ",")
	case 3:
		address, name, ports = parts[0], parts[1], strings.Split(parts[2], ",")
	default:
		return "", "", nil, fmt.Errorf("import ID %q: want <address>/<name>/<port>,<port>... or <address>/<port>,<port>..., e.g. 10.0.0.1:50051/ROCE/Ethernet0,Ethernet8 (cumulus/10.0.0.2:8765/ROCE/swp1,swp2 for a Cumulus switch)", id)
	}
	if address == "" || name == "" || slices.Contains(ports, "") {
		return "", "", nil, fmt.Errorf("import ID %q has an empty address, name or port: want <address>/<name>/<port>,<port>", id)
	}
	return address, name, ports, nil
}
