package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/float64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg/drivers"
)

// defaultMarkProbabilityPercent is ecn.mark_probability_percent when unset.
const defaultMarkProbabilityPercent = 100

// Defaults of the RDMA scheduler and the PFC watchdog (sonic-utilities pfcwd defaults: drop,
// 200 ms).
const (
	defaultRDMAWeight     = 50
	defaultWatchdogAction = "drop"
	defaultWatchdogTimeMs = 200
)

var (
	classAttrTypes     = map[string]attr.Type{"dscp": types.Int64Type, "priority": types.Int64Type}
	rdmaAttrTypes      = map[string]attr.Type{"dscp": types.ListType{ElemType: types.Int64Type}, "priority": types.Int64Type}
	schedulerAttrTypes = map[string]attr.Type{"mode": types.StringType, "weight": types.Int64Type}
)

func switchQoSSchema() schema.Schema {
	return schema.Schema{
		MarkdownDescription: "Lossless RoCE QoS on one switch, as its operating system (`os`) holds it. The provider owns the objects " +
			"it creates, all named after `name`, and points the listed ports at them; fields it changes on shared settings are restored " +
			"when the resource is destroyed. " + driverSummaries() + " See the attribute descriptions for where each value lands.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true,
				MarkdownDescription: "`<address>/<name>/<port>,<port>...`, the import ID.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"address": schema.StringAttribute{Required: true,
				MarkdownDescription: "Address of the switch, `host:port`, or `host` with the port of the provider's settings for the switch's transport (`gnmi.port`, `nvue.port`).",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"os": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(drivers.Default),
				MarkdownDescription: "Operating system of the switch: " + driverList() + ".",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"name": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(switchcfg.DefaultName),
				MarkdownDescription: landing("name", "Name of the objects this resource owns on the switch. Two resources on one switch need different names."),
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"ports": schema.ListAttribute{Required: true, ElementType: types.StringType,
				MarkdownDescription: landing("ports", "Ports that carry RoCE traffic, named as the switch's operating system names them.")},
			"cable_length_m": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(5),
				MarkdownDescription: landing("cable_length_m", "Cable length of the ports in metres, from which the switch sizes the lossless headroom.")},
			"port_speed_gbps": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Port speed in Gb/s used for the headroom and capacity checks: " + speedList() + ". By default each port's speed is read from the switch."},
			"sonic_release": schema.StringAttribute{Optional: true,
				MarkdownDescription: "SONiC release branch (`202411`, `202505`, `202511`, ... or `master`) whose GCU allowlist applies. By default it is read from `VERSIONS|DATABASE`."},
			"rdma": schema.SingleNestedAttribute{Optional: true, Computed: true,
				Default:             objectdefault.StaticValue(types.ObjectValueMust(rdmaAttrTypes, map[string]attr.Value{"dscp": int64List([]int{fabric.DefaultRDMADSCP}), "priority": types.Int64Value(fabric.DefaultRDMAPriority)})),
				MarkdownDescription: landing("rdma", "The lossless RDMA class: its DSCP values map to `priority`, the PFC-enabled, ECN-marked traffic class."),
				Attributes: map[string]schema.Attribute{
					"dscp": schema.ListAttribute{Optional: true, Computed: true, ElementType: types.Int64Type,
						Default:             listdefault.StaticValue(int64List([]int{fabric.DefaultRDMADSCP})),
						MarkdownDescription: "DSCP values of RoCE data, 0-63. Default `[26]`."},
					"priority": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(fabric.DefaultRDMAPriority),
						MarkdownDescription: "Traffic class and PFC priority of RoCE data, 0-7. Default `3`."},
				}},
			"cnp": schema.SingleNestedAttribute{Optional: true, Computed: true,
				Default:             objectdefault.StaticValue(types.ObjectValueMust(classAttrTypes, map[string]attr.Value{"dscp": types.Int64Value(fabric.DefaultCNPDSCP), "priority": types.Int64Value(fabric.DefaultCNPPriority)})),
				MarkdownDescription: "Congestion notification packets (DCQCN): mapped to their own class, served by `cnp_scheduler`. Must differ from the RDMA priority.",
				Attributes: map[string]schema.Attribute{
					"dscp": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(fabric.DefaultCNPDSCP),
						MarkdownDescription: "DSCP of CNPs (the NIC's `cnp_dscp`). Default `48`."},
					"priority": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(fabric.DefaultCNPPriority),
						MarkdownDescription: "Traffic class of CNPs (the NIC's `cnp_802p_prio`). Default `6`."},
				}},
			"ecn": schema.SingleNestedAttribute{Required: true,
				MarkdownDescription: landing("ecn", "ECN marking of the RDMA queue, in bytes of queue depth."),
				Attributes: map[string]schema.Attribute{
					"min_threshold_bytes": schema.Int64Attribute{Required: true,
						MarkdownDescription: "Marking starts here (80-120 KB is the usual range at 400G)."},
					"max_threshold_bytes": schema.Int64Attribute{Required: true,
						MarkdownDescription: "Marking probability reaches `mark_probability_percent` here. Must be above the minimum and at most the PFC pause threshold."},
					"mark_probability_percent": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(defaultMarkProbabilityPercent),
						MarkdownDescription: "Marking probability at the maximum, 1-100. Default `100`."},
				}},
			"pfc": schema.SingleNestedAttribute{Required: true,
				MarkdownDescription: landing("pfc", "The PFC side of the thresholds rule. `pause_threshold_bytes` is the pause point you design for: it is checked against the ECN thresholds (ratio window) and, with the computed headroom, against the platform's ingress lossless pool; no switch stores it."),
				Attributes: map[string]schema.Attribute{
					"pause_threshold_bytes": schema.Int64Attribute{Required: true,
						MarkdownDescription: "Designed PFC pause threshold in bytes: at least `ecn.max_threshold_bytes`, and between `ratio_min` and `ratio_max` times `ecn.min_threshold_bytes`."},
					"ratio_min": schema.Float64Attribute{Optional: true, Computed: true, Default: float64default.StaticFloat64(2.0),
						MarkdownDescription: "Smallest allowed pause / ECN-min ratio. Default `2.0`."},
					"ratio_max": schema.Float64Attribute{Optional: true, Computed: true, Default: float64default.StaticFloat64(3.0),
						MarkdownDescription: "Largest allowed pause / ECN-min ratio. Default `3.0`."},
					"ratio_target": schema.Float64Attribute{Optional: true, Computed: true, Default: float64default.StaticFloat64(2.5),
						MarkdownDescription: "Recommended ratio; a plan warns when the ratio is more than 0.25 away. Default `2.5`."},
				}},
			"rdma_scheduler": schedulerSchema(landing("rdma_scheduler", "RDMA queue. NVIDIA's RoCE default is DWRR with weight 50; strict priority can starve other classes and draws a warning."), switchcfg.SchedulerDWRR, defaultRDMAWeight),
			"cnp_scheduler":  schedulerSchema(landing("cnp_scheduler", "CNP queue. Strict by default, so congestion notifications are never queued behind data."), switchcfg.SchedulerStrict, 0),
			"pfc_watchdog": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: landing("pfc_watchdog", "The PFC watchdog on the RDMA priority. Left as it is when unset."),
				Attributes: map[string]schema.Attribute{
					"action": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(defaultWatchdogAction),
						MarkdownDescription: "`drop`, `forward` or `alert` when a queue is stuck in PFC storm. Default `drop`."},
					"detection_time_ms": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(defaultWatchdogTimeMs),
						MarkdownDescription: "Storm detection time, 100-5000 ms and at least the switch's watchdog poll interval. Default `200`."},
					"restoration_time_ms": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(defaultWatchdogTimeMs),
						MarkdownDescription: "Time before the queue is restored, 100-60000 ms and at least the switch's watchdog poll interval. Default `200`."},
				}},
			"lossless_classes": losslessClassesSchema(),
			"gnmi":             gnmiOverrideSchema(),
			"nvue": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: "Credentials for this Cumulus switch only (`os = \"cumulus\"`), overriding the provider's `nvue` settings attribute by attribute.",
				Attributes:          resourceLoginAttrs(nvueLoginAttrs)},
			"headroom": schema.SingleNestedAttribute{Computed: true,
				MarkdownDescription: landing("headroom", "Lossless headroom the switch reserves per port for the RDMA priority (the fastest listed port)."),
				Attributes: map[string]schema.Attribute{
					"xon_bytes":  schema.Int64Attribute{Computed: true, MarkdownDescription: "Resume hysteresis."},
					"xoff_bytes": schema.Int64Attribute{Computed: true, MarkdownDescription: "Bytes still arriving after PAUSE is sent."},
					"size_bytes": schema.Int64Attribute{Computed: true, MarkdownDescription: "Reservation per port."},
				}},
			"planned_operations": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: landing("planned_operations", "Operations of the change being planned, as readable lines; once applied, it keeps the operations of that last change. When a refresh finds the switch changed out of band, it lists what would put it back.")},
			"in_sync": schema.BoolAttribute{Computed: true,
				MarkdownDescription: "Whether the switch held exactly this configuration at the last refresh. An out-of-band change makes it `false`, and the next plan updates the resource."},
			"restore_point": schema.MapAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: landing("restore_point", "What destroy puts back: the value each shared setting had before this resource first changed it, as the switch held it (a setting that did not exist is absent). It is recorded before the transaction is sent, and kept in state even when an apply fails after the switch may have received it, so a tainted resource's replacement and destroy still restore the switch. Empty after an import: destroy then restores the switch's stock settings.")},
		},
	}
}

func schedulerSchema(what, mode string, weight int64) schema.SingleNestedAttribute {
	w := types.Int64Null()
	if weight > 0 {
		w = types.Int64Value(weight)
	}
	return schema.SingleNestedAttribute{Optional: true, Computed: true,
		Default:             objectdefault.StaticValue(types.ObjectValueMust(schedulerAttrTypes, map[string]attr.Value{"mode": types.StringValue(mode), "weight": w})),
		MarkdownDescription: "Scheduler of the " + what,
		Attributes: map[string]schema.Attribute{
			"mode": schema.StringAttribute{Required: true, MarkdownDescription: "`strict` or `dwrr`."},
			"weight": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "DWRR weight, 1-100 (`dwrr` only)."},
		}}
}

func gnmiOverrideSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{Optional: true,
		MarkdownDescription: "Credentials for this switch only, overriding the provider's `gnmi` settings attribute by attribute.",
		Attributes:          resourceLoginAttrs(gnmiLoginAttrs)}
}

// driverSummaries joins what each switch driver says it does with a policy.
func driverSummaries() string {
	return eachDriver(" ", func(a switchcfg.About) string { return a.Summary })
}

// driverList names each switch operating system, how it is reached and its ports.
func driverList() string {
	return eachDriver(", ", func(a switchcfg.About) string {
		return fmt.Sprintf("`%s` (%s, over the provider's `%s` settings; ports such as `%s`)", a.OS, a.Name, a.Transport, a.PortExample)
	})
}

// landing is an attribute's description: what it is, then where each switch driver puts it.
func landing(attr, what string) string {
	lands := eachDriver(" ", func(a switchcfg.About) string {
		if text := a.Lands[attr]; text != "" {
			return fmt.Sprintf("On %s: %s", a.Name, text)
		}
		return ""
	})
	return strings.TrimSpace(what + " " + lands)
}

// driverNames lists each switch operating system and its transport: "SONiC over gnmi, ...".
func driverNames() string {
	return eachDriver(", ", func(a switchcfg.About) string { return fmt.Sprintf("%s over %s", a.Name, a.Transport) })
}

// eachDriver joins what text says of each registered driver, the default first.
func eachDriver(sep string, text func(switchcfg.About) string) string {
	var parts []string
	for _, d := range drivers.All() {
		if t := text(d.About()); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, sep)
}
