package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
)

// lossless_classes are the lossless classes beside the default one. The default class stays
// where it always was (rdma, ecn, pfc, rdma_scheduler), so a configuration or state from before
// the list plans no change: the list is a new optional attribute, null when left out, and the
// schema version does not move.

// losslessClassModel is one element of lossless_classes.
type losslessClassModel struct {
	Name      types.String    `tfsdk:"name"`
	DSCP      types.List      `tfsdk:"dscp"`
	Priority  types.Int64     `tfsdk:"priority"`
	ECN       *ecnModel       `tfsdk:"ecn"`
	PFC       *classPFCModel  `tfsdk:"pfc"`
	Scheduler *schedulerModel `tfsdk:"scheduler"`
}

type classPFCModel struct {
	PauseThresholdBytes types.Int64 `tfsdk:"pause_threshold_bytes"`
}

var (
	ecnAttrTypes           = map[string]attr.Type{"min_threshold_bytes": types.Int64Type, "max_threshold_bytes": types.Int64Type, "mark_probability_percent": types.Int64Type}
	classPFCAttrTypes      = map[string]attr.Type{"pause_threshold_bytes": types.Int64Type}
	losslessClassAttrTypes = map[string]attr.Type{
		"name": types.StringType, "dscp": types.ListType{ElemType: types.Int64Type}, "priority": types.Int64Type,
		"ecn": types.ObjectType{AttrTypes: ecnAttrTypes}, "pfc": types.ObjectType{AttrTypes: classPFCAttrTypes},
		"scheduler": types.ObjectType{AttrTypes: schedulerAttrTypes},
	}
	losslessClassType = types.ObjectType{AttrTypes: losslessClassAttrTypes}
)

func losslessClassesSchema() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{Optional: true,
		MarkdownDescription: landing("lossless_classes", "Lossless classes beside the default one (`rdma` with `ecn`, `pfc` and `rdma_scheduler`, the class NICs and NCCL use), "+
			"each on its own priority with its own ECN marking, PFC pause threshold and scheduler: a storage class (NVMe-oF, GPUDirect Storage) on priority 4, for example, "+
			"which SONiC's stock QoS already makes lossless beside 3. No two classes may share a DSCP or a priority, none may take the CNP's, "+
			"each class's thresholds follow the ECN/PFC rule with the ratio window of `pfc`, the lossless DWRR weights must leave the lossy rest a share, "+
			"and every class's headroom and pause threshold must fit the lossless pool on every port. Leave it out for one lossless class."),
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{Required: true,
				MarkdownDescription: "Name of the class, 1-8 letters or digits starting with a letter (`storage`); the switch objects of the class are named after it. Not `rdma`, `cnp` or `lossless`."},
			"dscp": schema.ListAttribute{Required: true, ElementType: types.Int64Type,
				MarkdownDescription: "DSCP values of the class's traffic, 0-63, none of them another class's or the CNPs'."},
			"priority": schema.Int64Attribute{Required: true,
				MarkdownDescription: "Traffic class and PFC priority of the class, 0-7, neither another class's nor the CNPs'. SONiC's stock second lossless priority is `4`."},
			"ecn": schema.SingleNestedAttribute{Required: true,
				MarkdownDescription: "ECN marking of the class's queue, in bytes of queue depth.",
				Attributes: map[string]schema.Attribute{
					"min_threshold_bytes": schema.Int64Attribute{Required: true, MarkdownDescription: "Marking starts here."},
					"max_threshold_bytes": schema.Int64Attribute{Required: true,
						MarkdownDescription: "Marking probability reaches `mark_probability_percent` here. Must be above the minimum and at most the class's PFC pause threshold."},
					"mark_probability_percent": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(defaultMarkProbabilityPercent),
						MarkdownDescription: "Marking probability at the maximum, 1-100. Default `100`."},
				}},
			"pfc": schema.SingleNestedAttribute{Required: true,
				MarkdownDescription: "The class's designed PFC pause point, checked like `pfc.pause_threshold_bytes` with the ratio window of `pfc`.",
				Attributes: map[string]schema.Attribute{
					"pause_threshold_bytes": schema.Int64Attribute{Required: true,
						MarkdownDescription: "Designed PFC pause threshold in bytes: at least `ecn.max_threshold_bytes`, and between `pfc.ratio_min` and `pfc.ratio_max` times `ecn.min_threshold_bytes`."},
				}},
			"scheduler": schema.SingleNestedAttribute{Optional: true, Computed: true,
				Default: objectdefault.StaticValue(types.ObjectValueMust(schedulerAttrTypes, map[string]attr.Value{
					"mode": types.StringValue(switchcfg.SchedulerDWRR), "weight": types.Int64Value(switchcfg.DefaultClassWeight)})),
				MarkdownDescription: "Scheduler of the class's queue. Default DWRR with weight `25`; the lossless classes' DWRR weights together must stay below 100.",
				Attributes: map[string]schema.Attribute{
					"mode":   schema.StringAttribute{Required: true, MarkdownDescription: "`strict` or `dwrr`."},
					"weight": schema.Int64Attribute{Optional: true, MarkdownDescription: "DWRR weight, 1-100 (`dwrr` only)."},
				}},
		}},
	}
}

// losslessClasses reads lossless_classes; nil when it is null, unknown or empty.
func (m *switchQoSModel) losslessClasses(ctx context.Context) []losslessClassModel {
	if m.LosslessClasses.IsNull() || m.LosslessClasses.IsUnknown() {
		return nil
	}
	var out []losslessClassModel
	if diags := m.LosslessClasses.ElementsAs(ctx, &out, false); diags.HasError() {
		return nil
	}
	return out
}

// lossless converts lossless_classes into the policy's classes; unset parts take the schema
// defaults (ValidateConfig runs before they are applied).
func (m *switchQoSModel) lossless() []switchcfg.LosslessClass {
	var out []switchcfg.LosslessClass
	for _, k := range m.losslessClasses(context.Background()) {
		c := switchcfg.LosslessClass{Name: k.Name.ValueString(), DSCP: intsOf(k.DSCP), Priority: int(k.Priority.ValueInt64()),
			Scheduler: switchcfg.Scheduler{Mode: switchcfg.SchedulerDWRR, Weight: switchcfg.DefaultClassWeight}}
		if e := k.ECN; e != nil {
			c.ECN = switchcfg.ECN{MinBytes: e.MinThresholdBytes.ValueInt64(), MaxBytes: e.MaxThresholdBytes.ValueInt64(),
				MarkProbabilityPercent: intOr(e.MarkProbabilityPercent, defaultMarkProbabilityPercent)}
		}
		if f := k.PFC; f != nil {
			c.PFC.PauseThresholdBytes = f.PauseThresholdBytes.ValueInt64()
		}
		if s := k.Scheduler; s != nil {
			c.Scheduler = switchcfg.Scheduler{Mode: stringOr(s.Mode, switchcfg.SchedulerDWRR), Weight: intOr(s.Weight, 0)}
		}
		out = append(out, c)
	}
	return out
}

// setLossless writes the classes the switch holds into lossless_classes, keeping the user's
// DSCP order when the set is the same, and a null list null when the switch holds none.
func (m *switchQoSModel) setLossless(classes []switchcfg.LosslessClass) {
	if len(classes) == 0 && (m.LosslessClasses.IsNull() || len(m.LosslessClasses.Elements()) == 0) {
		return
	}
	current := map[string][]int{}
	for _, k := range m.losslessClasses(context.Background()) {
		current[k.Name.ValueString()] = intsOf(k.DSCP)
	}
	elems := make([]attr.Value, len(classes))
	for i, c := range classes {
		dscp := c.DSCP
		if mine := current[c.Name]; sameSet(mine, dscp) {
			dscp = mine
		}
		s := schedulerModelOf(c.Scheduler)
		elems[i] = types.ObjectValueMust(losslessClassAttrTypes, map[string]attr.Value{
			"name": types.StringValue(c.Name), "dscp": int64List(dscp), "priority": types.Int64Value(int64(c.Priority)),
			"ecn": types.ObjectValueMust(ecnAttrTypes, map[string]attr.Value{
				"min_threshold_bytes": types.Int64Value(c.ECN.MinBytes), "max_threshold_bytes": types.Int64Value(c.ECN.MaxBytes),
				"mark_probability_percent": types.Int64Value(int64(c.ECN.MarkProbabilityPercent))}),
			"pfc":       types.ObjectValueMust(classPFCAttrTypes, map[string]attr.Value{"pause_threshold_bytes": types.Int64Value(c.PFC.PauseThresholdBytes)}),
			"scheduler": types.ObjectValueMust(schedulerAttrTypes, map[string]attr.Value{"mode": s.Mode, "weight": s.Weight}),
		})
	}
	m.LosslessClasses = types.ListValueMust(losslessClassType, elems)
}
