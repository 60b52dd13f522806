package tasks

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// The debugfs and NV config plans read views of rdmaState; most tests give
// them directly, the last ones through host.Facts (rdmaStateOf).

func TestDCQCNDebugfsPlan(t *testing.T) {
	f := inboxHost(t, facts.LockdownNone)
	cc1, cc2 := defaultCC(t), defaultCC(t)
	cc2["rp_ai_rate"] = 10
	cc2[cnpPrioMode] = 1 // CNPs ignore np_cnp_prio: it must be written
	st := rdmaState{f: f, cc: map[string]facts.CCParams{"0000:17:00.0": cc1, "0000:29:00.0": cc2}}
	got, err := tunedDCQCN().plan(st)
	if err != nil {
		t.Fatal(err)
	}
	note := func(nd string) plannedChange {
		return plannedChange{Summary: nd + ": debugfs has no per-priority enable; DCQCN acts on the priorities of the " +
			"firmware's ROCE_CC_PRIO_MASK (default all), priority 3 included unless that mask was changed"}
	}
	const cc = "/sys/kernel/debug/mlx5/0000:17:00.0/cc_params/"
	want := []plannedChange{
		note("ens1f0np0"),
		{
			Summary: "set DCQCN of ens1f0np0 through debugfs 0000:17:00.0: 1 of 19 values differ",
			Before:  "rp_ai_rate=5", After: "rp_ai_rate=10",
			Lines: []string{"run: echo 10 >" + cc + "rp_ai_rate (as root)"},
		},
		note("ens2f0np0"),
		{
			Summary: "set DCQCN of ens2f0np0 through debugfs 0000:29:00.0: 1 of 19 values differ",
			Before:  "np_cnp_prio=6 (np_cnp_prio_mode=1)", After: "np_cnp_prio=6 (np_cnp_prio_mode=0)",
			Lines: []string{"run: echo 6 >/sys/kernel/debug/mlx5/0000:29:00.0/cc_params/np_cnp_prio (as root)"},
		},
	}
	if d := cmp.Diff(want, plannedOf(got)); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}

	cc1["rp_ai_rate"] = 10
	cc2[cnpPrioMode] = 0
	got, err = tunedDCQCN().plan(st)
	if err != nil {
		t.Fatal(err)
	}
	if a := actionable(got); len(a) != 0 {
		t.Errorf("second plan has changes: %+v", plannedOf(a))
	}
}

func TestDCQCNDebugfsErrors(t *testing.T) {
	f := inboxHost(t, facts.LockdownNone)
	_, err := tunedDCQCN().plan(rdmaState{f: f, cc: map[string]facts.CCParams{"0000:17:00.0": defaultCC(t)}})
	if err == nil || !strings.Contains(err.Error(), "netdev ens2f0np0: /sys/kernel/debug/mlx5/0000:29:00.0/cc_params is missing or unreadable") {
		t.Errorf("err = %v", err)
	}
	old := defaultCC(t)
	delete(old, "np_min_time_between_cnps")
	_, err = tunedDCQCN().plan(rdmaState{f: f, cc: map[string]facts.CCParams{"0000:17:00.0": old, "0000:29:00.0": old}})
	if err == nil || !strings.Contains(err.Error(), "cc_params/np_min_time_between_cnps is missing: this kernel's mlx5 driver does not expose it") {
		t.Errorf("err = %v", err)
	}
	_, err = tunedDCQCN().Plan(f)
	want := "cannot read the debugfs cc_params of netdev ens1f0np0 (/sys/kernel/debug/mlx5/0000:17:00.0/cc_params): " +
		"it was not gathered (the facts given to the plan lack it), and a value that cannot be read back cannot be kept converged; " +
		"install DOCA-OFED or MLNX_OFED so the netdev gets its ecn/ sysfs tree, or let a Persistence task write the values at the next boot"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

func TestDCQCNNVConfigPlan(t *testing.T) {
	f := inboxHost(t, facts.LockdownIntegrity)
	f.Netdevs[1].PCIAddr = "0000:17:00.1" // second port of the same card: _P2
	nv1, nv2 := defaultNV(t, 1), defaultNV(t, 2)
	nv1[nvPrioMask(1)] = 0x07 // priorities 0..2 only: 3 is added, the others kept
	nv2["RPG_AI_RATE_P2"] = 10
	st := rdmaState{f: f, nv: map[string]map[string]int64{"0000:17:00.0": nv1, "0000:17:00.1": nv2}}
	task := tunedDCQCN()
	got, err := task.plan(st)
	if err != nil {
		t.Fatal(err)
	}
	note := func(nd string) plannedChange {
		return plannedChange{Summary: nd + ": no OFED ecn/ tree and debugfs is locked down, so DCQCN goes to the NV " +
			"configuration, which the NIC applies at the next reboot or mlxfwreset"}
	}
	want := []plannedChange{
		note("ens1f0np0"),
		{
			Summary: "store DCQCN of ens1f0np0 in NV config (mlxconfig 0000:17:00.0): 2 of 20 values differ",
			Before:  "ROCE_CC_PRIO_MASK_P1=7, RPG_AI_RATE_P1=5",
			After:   "ROCE_CC_PRIO_MASK_P1=15, RPG_AI_RATE_P1=10 (effective after reboot or mlxfwreset)",
			Lines:   []string{"run: mlxconfig -d 0000:17:00.0 -y set ROCE_CC_PRIO_MASK_P1=15 RPG_AI_RATE_P1=10 (as root)"},
		},
		note("ens2f0np0"),
		{Summary: "ens2f0np0 has its DCQCN values in NV config (0000:17:00.1, 20 checked)"},
	}
	if d := cmp.Diff(want, plannedOf(got)); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
	if !task.RebootRequired(f) {
		t.Error("RebootRequired = false, want true")
	}
}

func TestDCQCNNVConfigErrors(t *testing.T) {
	f := inboxHost(t, facts.LockdownIntegrity)
	task := tunedDCQCN()
	task.Netdevs = []string{"ens1f0np0"}
	_, err := task.Plan(f)
	wantFix := "set it once by hand and reboot: mlxconfig -d 0000:17:00.0 -y set CLAMP_TGT_RATE_P1=0 "
	if err == nil || !strings.Contains(err.Error(), wantFix) || !strings.Contains(err.Error(), "RPG_AI_RATE_P1=10") ||
		!strings.Contains(err.Error(), "CNP_802P_PRIO_P1=6 (and ROCE_CC_PRIO_MASK_P1 with bit 3 set") {
		t.Errorf("err = %v\nwant the mlxconfig command to run by hand", err)
	}
	nv := defaultNV(t, 1)
	delete(nv, "RPG_MAX_RATE_P1")
	_, err = task.plan(rdmaState{f: f, nv: map[string]map[string]int64{"0000:17:00.0": nv}})
	if err == nil || !strings.Contains(err.Error(), "netdev ens1f0np0: the NIC's NV configuration has no RPG_MAX_RATE_P1") {
		t.Errorf("err = %v", err)
	}
	_, err = task.plan(rdmaState{f: f, nv: map[string]map[string]int64{}})
	if err == nil || !strings.Contains(err.Error(), "mlxconfig could not query 0000:17:00.0") {
		t.Errorf("err = %v", err)
	}
}

func TestDCQCNSettingNames(t *testing.T) {
	task := tunedDCQCN()
	task.Params = fabric.DefaultDCQCN()
	want, err := task.settings()
	if err != nil {
		t.Fatal(err)
	}
	var sysfs, debugfs, nv []string
	for _, s := range want {
		sysfs = append(sysfs, s.sysfsFile())
		if d, ok := s.debugfsFile(); ok {
			debugfs = append(debugfs, d)
		}
		nv = append(nv, s.nvName(1))
	}
	wantSysfs := []string{"roce_np/enable/3", "roce_rp/enable/3", "roce_rp/clamp_tgt_rate", "roce_rp/clamp_tgt_rate_after_time_inc",
		"roce_rp/rpg_time_reset", "roce_rp/rpg_byte_reset", "roce_rp/rpg_threshold", "roce_rp/rpg_max_rate", "roce_rp/rpg_ai_rate",
		"roce_rp/rpg_hai_rate", "roce_rp/rpg_gd", "roce_rp/rpg_min_dec_fac", "roce_rp/rpg_min_rate", "roce_rp/rate_to_set_on_first_cnp",
		"roce_rp/dce_tcp_g", "roce_rp/dce_tcp_rtt", "roce_rp/rate_reduce_monitor_period", "roce_rp/initial_alpha_value",
		"roce_np/min_time_between_cnps", "roce_np/cnp_dscp", "roce_np/cnp_802p_prio"}
	if d := cmp.Diff(wantSysfs, sysfs); d != "" {
		t.Errorf("sysfs files (-want +got):\n%s", d)
	}
	if len(debugfs) != len(wantSysfs)-2 || debugfs[0] != "rp_clamp_tgt_rate" || debugfs[len(debugfs)-1] != "np_cnp_prio" {
		t.Errorf("debugfs files = %v", debugfs)
	}
	if nv[0] != "ROCE_CC_PRIO_MASK_P1" || nv[14] != "DCE_TCP_G_P1" || nv[20] != "CNP_802P_PRIO_P1" {
		t.Errorf("NV names = %v", nv)
	}
}

// nvConfigOf is an NV configuration as mlxconfig -e q reads, from next-boot
// values: default and current at the firmware defaults, plus parameters
// without a number.
func nvConfigOf(next map[string]int64) facts.NVConfig {
	cfg := facts.NVConfig{
		"LINK_TYPE_P1":                   {Default: "ETH(2)", Current: "ETH(2)", Next: "ETH(2)"},
		"ESWITCH_HAIRPIN_DESCRIPTORS_P1": {Default: "Array[0..7]", Current: "Array[0..7]", Next: "Array[0..7]"},
	}
	for name, v := range next {
		cfg[name] = facts.NVParam{Default: "0", Current: "0", Next: strconv.FormatInt(v, 10)}
	}
	return cfg
}

func TestRDMAStateOf(t *testing.T) {
	f := roceHost(t)
	if st := rdmaStateOf(f); st.cc != nil || st.nv != nil || st.tc != nil || st.tos != nil {
		t.Errorf("views of facts gathered without them: %+v", st)
	}
	f.Gathered = f.Gathered.Union(host.WantFacts(host.FactCCParams, host.FactNVConfig, host.FactTrafficClass, host.FactCMARoCETos))
	st := rdmaStateOf(f) // gathered, all absent: empty maps
	if st.cc == nil || st.nv == nil || st.tc == nil || st.tos == nil || len(st.cc)+len(st.nv)+len(st.tc)+len(st.tos) != 0 {
		t.Errorf("views of absent facts: %+v", st)
	}
	f.CCParams = map[string]facts.CCParams{"0000:17:00.0": defaultCC(t)}
	f.NVConfig = map[string]facts.NVConfig{"0000:17:00.0": {
		"ROCE_CC_PRIO_MASK_P1": {Default: "255", Current: "255", Next: "8"},
		"QOS_TRUST_STATE_P1":   {Default: "TRUST_PCP(1)", Current: "TRUST_PCP(1)", Next: "TRUST_DSCP(2)"},
		"ARRAY_P1":             {Default: "Array[0..7]", Current: "Array[0..7]", Next: "Array[0..7]"},
	}}
	f.TrafficClass = map[string]int{"mlx5_0": facts.NoTrafficClass, "mlx5_1": 106}
	f.CMARoCETos = map[string]int{"mlx5_0": 0}
	st = rdmaStateOf(f)
	if d := cmp.Diff(map[string]map[string]int64{"0000:17:00.0": {"ROCE_CC_PRIO_MASK_P1": 8, "QOS_TRUST_STATE_P1": 2}}, st.nv); d != "" {
		t.Errorf("nv (-want +got):\n%s", d)
	}
	if st.cc["0000:17:00.0"]["rp_dce_tcp_g"] != 1019 || st.tc["mlx5_0"] != -1 || st.tc["mlx5_1"] != 106 || st.tos["mlx5_0"] != 0 {
		t.Errorf("views: %+v", st)
	}
}

// The inbox host plans DCQCN through the gathered debugfs cc_params.
func TestDCQCNDebugfsFromFacts(t *testing.T) {
	f := inboxHost(t, facts.LockdownNone)
	task := tunedDCQCN()
	f.Gathered = f.Gathered.Union(task.Needs())
	f.CCParams = map[string]facts.CCParams{"0000:17:00.0": defaultCC(t), "0000:29:00.0": defaultCC(t)}
	got, err := task.Plan(f)
	if err != nil {
		t.Fatal(err)
	}
	if a := actionable(got); len(a) != 2 || a[0].Summary != "set DCQCN of ens1f0np0 through debugfs 0000:17:00.0: 1 of 19 values differ" {
		t.Errorf("plan = %+v", plannedOf(got))
	}
	// Gathered but absent (not root, no debugfs): the plan names the
	// directory it could not read.
	f.CCParams = map[string]facts.CCParams{}
	f.Absent["cc_params"] = "exit status 1: debugfs cc_params can be read by root only: gather as root or with sudo"
	_, err = task.Plan(f)
	if err == nil || !strings.Contains(err.Error(), "/sys/kernel/debug/mlx5/0000:17:00.0/cc_params is missing or unreadable") ||
		!strings.Contains(err.Error(), "only root can read it") {
		t.Errorf("err = %v", err)
	}
}

// Under lockdown the inbox host plans DCQCN through the gathered NV
// configuration; a missing mlxconfig is named.
func TestDCQCNNVConfigFromFacts(t *testing.T) {
	f := inboxHost(t, facts.LockdownIntegrity)
	task := tunedDCQCN()
	f.Gathered = f.Gathered.Union(task.Needs())
	nv := defaultNV(t, 1)
	nv["RPG_AI_RATE_P1"] = 10
	f.NVConfig = map[string]facts.NVConfig{"0000:17:00.0": nvConfigOf(nv), "0000:29:00.0": nvConfigOf(defaultNV(t, 1))}
	got, err := task.Plan(f)
	if err != nil {
		t.Fatal(err)
	}
	a := actionable(got)
	if len(a) != 1 || a[0].Apply.Lines()[0] != "run: mlxconfig -d 0000:29:00.0 -y set RPG_AI_RATE_P1=10 (as root)" {
		t.Errorf("plan = %+v", plannedOf(got))
	}
	f.NVConfig = map[string]facts.NVConfig{}
	f.Absent["mlxconfig"] = "exit status 127: mlxconfig: command not found"
	if _, err := task.Plan(f); err == nil || !strings.Contains(err.Error(), "mlxconfig could not query 0000:17:00.0: install mstflint or MFT") {
		t.Errorf("err = %v", err)
	}
}
