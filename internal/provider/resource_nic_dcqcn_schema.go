package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/float64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
)

func nicDCQCNSchema() schema.Schema {
	def := fabric.DefaultDCQCN()
	i64 := func(desc string, v int) schema.Int64Attribute {
		return schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(int64(v)), MarkdownDescription: desc}
	}
	f64 := func(desc string, v float64) schema.Float64Attribute {
		return schema.Float64Attribute{Optional: true, Computed: true, Default: float64default.StaticFloat64(v), MarkdownDescription: desc}
	}
	dcqcnDefault := defaultDCQCNObject()
	return schema.Schema{
		MarkdownDescription: "DCQCN congestion control and host QoS of a GPU host's ConnectX ports: NP and RP enabled on the RDMA " +
			"priority and every other lossless priority of `pfc_priorities`, DCQCN parameters in human units (firmware defaults unless set), CNP DSCP and priority, trust dscp, PFC " +
			"on the lossless priorities, the OFED port traffic class, and optionally `cma_roce_tos`. It uses what the host offers: " +
			"OFED sysfs (`/sys/class/net/<if>/ecn/`), else debugfs `cc_params` when the kernel is not locked down, else the " +
			"persistent `mlxconfig` path (then `reboot_required` is true; the provider never reboots). With `persist` (default) a " +
			"systemd oneshot unit and a udev rule rendered from the same settings re-apply everything after a reboot or driver " +
			"reload. A refresh finds values reset by a reboot without that unit as drift. Virtual functions are refused: " +
			"configure their physical function.\n\n" +
			"Destroy removes the unit and the rule; the values in effect stay until the next reboot or driver reload, and values " +
			"written to NV config with `mlxconfig` stay across reboots (the destroy warns, with the command that sets them back).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The host address; the import ID.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"host": schema.StringAttribute{Required: true, MarkdownDescription: "SSH address of the host.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"devices": schema.ListAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Netdevs to configure (`ens1f0np0`, ...). Unset: every ConnectX physical function whose port's link layer is Ethernet."},
			"priority":  i64("RDMA priority: DCQCN NP and RP are enabled on it and PFC is turned on for it. Default `3`.", fabric.DefaultRDMAPriority),
			"rdma_dscp": i64("DSCP of RoCE data; the port traffic class is `rdma_dscp << 2 | 2` (106 for 26). Default `26`.", fabric.DefaultRDMADSCP),
			"cnp": schema.SingleNestedAttribute{Optional: true, Computed: true,
				Default:             objectdefault.StaticValue(defaultCNPObject()),
				MarkdownDescription: "DSCP and 802.1p priority of the CNPs this host sends (`cnp_dscp`, `cnp_802p_prio`); must match the switch's CNP class.",
				Attributes: map[string]schema.Attribute{
					"dscp":     i64("CNP DSCP. Default `48`.", fabric.DefaultCNPDSCP),
					"priority": i64("CNP priority; must differ from `priority`. Default `6`.", fabric.DefaultCNPPriority),
				}},
			"dcqcn": schema.SingleNestedAttribute{Optional: true, Computed: true, Default: objectdefault.StaticValue(dcqcnDefault),
				MarkdownDescription: "DCQCN parameters in human units; each defaults to the ConnectX firmware default.",
				Attributes: map[string]schema.Attribute{
					"gain":                   f64("EWMA gain g of alpha (unitless; `dce_tcp_g = 1024 - g*1024`). Default 5/1024.", def.Gain),
					"alpha_update_period_us": i64("Alpha update period in µs (`dce_tcp_rtt`). Default `1`.", def.AlphaUpdatePeriodUS),
					"initial_alpha":          f64("Initial alpha (`initial_alpha_value / 1024`). Default 1023/1024.", def.InitialAlpha),
					"ai_rate_mbps":           i64("Additive increase in Mb/s (`rpg_ai_rate`). Default `5`.", def.AdditiveIncreaseMbps),
					"hai_rate_mbps":          i64("Hyper increase in Mb/s (`rpg_hai_rate`). Default `50`.", def.HyperIncreaseMbps),
					"time_reset_us":          i64("Rate increase timer in µs (`rpg_time_reset`). Default `300`.", def.TimeResetUS),
					"byte_reset":             i64("Rate increase byte counter (`rpg_byte_reset`). Default `32767`.", def.ByteReset),
					"min_rate_mbps":          i64("Minimum rate in Mb/s (`rpg_min_rate`). Default `1`.", def.MinRateMbps),
					"cut_floor_percent": schema.Int64Attribute{Optional: true, Computed: true,
						PlanModifiers:       []planmodifier.Int64{aliasOf(path.Root("dcqcn").AtName(dcqcnCutFloorOld), int64(def.CutFloorPercent))},
						MarkdownDescription: "Share of the current rate that one rate cut keeps at least, in % (`rpg_min_dec_fac`): 50 means a CNP never cuts the rate below half, 100 disables cuts. Default `50`."},
					dcqcnCutFloorOld: schema.Int64Attribute{Optional: true, Computed: true,
						PlanModifiers:       []planmodifier.Int64{aliasOf(path.Root("dcqcn").AtName("cut_floor_percent"), int64(def.CutFloorPercent))},
						DeprecationMessage:  "Use cut_floor_percent: the same firmware knob (rpg_min_dec_fac) under a name that says what it does. This name keeps working and always holds the same value.",
						MarkdownDescription: "Deprecated name of `cut_floor_percent`, which it always equals."},
					"min_time_between_cnps_us": i64("Minimum time between CNPs in µs (`min_time_between_cnps`). Default `4`.", def.MinTimeBetweenCNPsUS),
				}},
			"pfc_priorities": schema.ListAttribute{Optional: true, ElementType: types.Int64Type,
				MarkdownDescription: "The lossless priorities: PFC on (`mlnx_qos --pfc`), all others off, and DCQCN's notification and reaction points enabled on each, as on `priority` " +
					"(a second lossless class such as storage on `4`, as the switch's `lossless_classes`). Default: `[priority]`; an empty list is refused (it would leave RoCE lossy), and so is the CNP priority (`cnp.priority`)."},
			"set_traffic_class": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Force the RDMA ToS on every RoCE QP of the port (OFED `tc/1/traffic_class`), which also overrides what applications ask for. Default `true`."},
			"cma_roce_tos": schema.Int64Attribute{Optional: true,
				MarkdownDescription: "Default ToS of RDMA-CM connections (`cma_roce_tos`), for applications that use RDMA-CM; NCCL does not."},
			"persist": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Install the systemd unit and udev rule that re-apply the settings at boot and driver reload. Default `true`."},
			"reboot_required": schema.BoolAttribute{Computed: true,
				MarkdownDescription: "Whether some port could only take DCQCN through `mlxconfig` (no OFED sysfs, debugfs locked down), effective after a reboot."},
			"planned_changes": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "What the change being planned does on the host, with before → after; once applied, the last change; after a refresh that found drift, what would put it back."},
			"in_sync": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the host held exactly this configuration at the last refresh."},
		},
	}
}

var dcqcnAttrTypes = map[string]attr.Type{
	"gain": types.Float64Type, "alpha_update_period_us": types.Int64Type, "initial_alpha": types.Float64Type,
	"ai_rate_mbps": types.Int64Type, "hai_rate_mbps": types.Int64Type, "time_reset_us": types.Int64Type,
	"byte_reset": types.Int64Type, "min_rate_mbps": types.Int64Type, "cut_floor_percent": types.Int64Type, dcqcnCutFloorOld: types.Int64Type,
	"min_time_between_cnps_us": types.Int64Type,
}

// defaultDCQCNObject is the dcqcn attribute at the firmware defaults.
func defaultDCQCNObject() types.Object {
	def := fabric.DefaultDCQCN()
	return types.ObjectValueMust(dcqcnAttrTypes, map[string]attr.Value{
		"gain": types.Float64Value(def.Gain), "alpha_update_period_us": types.Int64Value(int64(def.AlphaUpdatePeriodUS)),
		"initial_alpha": types.Float64Value(def.InitialAlpha), "ai_rate_mbps": types.Int64Value(int64(def.AdditiveIncreaseMbps)),
		"hai_rate_mbps": types.Int64Value(int64(def.HyperIncreaseMbps)), "time_reset_us": types.Int64Value(int64(def.TimeResetUS)),
		"byte_reset": types.Int64Value(int64(def.ByteReset)), "min_rate_mbps": types.Int64Value(int64(def.MinRateMbps)),
		"cut_floor_percent": types.Int64Value(int64(def.CutFloorPercent)), dcqcnCutFloorOld: types.Int64Value(int64(def.CutFloorPercent)),
		"min_time_between_cnps_us": types.Int64Value(int64(def.MinTimeBetweenCNPsUS)),
	})
}

// dcqcnCutFloorOld is the deprecated name of dcqcn.cut_floor_percent.
const dcqcnCutFloorOld = "min_decrease_factor_percent"

func defaultCNPObject() types.Object {
	return types.ObjectValueMust(classAttrTypes, map[string]attr.Value{"dscp": types.Int64Value(fabric.DefaultCNPDSCP), "priority": types.Int64Value(fabric.DefaultCNPPriority)})
}
