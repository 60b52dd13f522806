package host_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// The RDMA state facts of a ConnectX-7 host with OFED, as the host changes:
// debugfs cc_params, traffic_class in both forms OFED versions print,
// cma_roce_tos and the mlxconfig NV configuration; all in one round trip.
func TestGatherRDMAState(t *testing.T) {
	f, c := twin(t, "rdma")
	ctx := context.Background()
	want := host.WantFacts(host.FactCCParams, host.FactTrafficClass, host.FactCMARoCETos, host.FactNVConfig)
	gather := func() host.Facts {
		t.Helper()
		r := &countingRunner{Runner: c}
		fs, err := host.Gather(ctx, r, want)
		if err != nil {
			t.Fatalf("Gather: %v", err)
		}
		if r.runs != 1 || r.writes != 0 {
			t.Errorf("gather made %d Run and %d WriteFile calls, want 1 and 0", r.runs, r.writes)
		}
		if len(fs.Absent) != 0 {
			t.Errorf("absent: %v", fs.Absent)
		}
		return fs
	}
	// mlxconfig is read only for PFs without an OFED ecn/ tree: take the trees away, as on a
	// host whose OFED sysfs is missing, so every view is gathered.
	twinRun(t, f, "rdma", "rm -rf /sys/class/net/*/ecn")
	const bdf = "0000:17:00.0"
	fs := gather()
	cc := fs.CCParams[bdf]
	if len(fs.CCParams) != 8 || len(cc) != 22 || cc["rp_dce_tcp_g"] != 1019 || cc["np_cnp_dscp"] != 48 || cc["np_cnp_prio_mode"] != 0 {
		t.Errorf("cc_params of %s: %v (%d functions)", bdf, cc, len(fs.CCParams))
	}
	if len(fs.TrafficClass) != 8 || fs.TrafficClass["mlx5_0"] != facts.NoTrafficClass {
		t.Errorf("traffic_class = %v, want 8 devices without a class", fs.TrafficClass)
	}
	if len(fs.CMARoCETos) != 8 || fs.CMARoCETos["mlx5_0"] != 0 {
		t.Errorf("cma_roce_tos = %v, want 8 devices with ToS 0", fs.CMARoCETos)
	}
	if d := cmp.Diff(facts.NVParam{Default: "255", Current: "255", Next: "255"}, fs.NVConfig[bdf]["ROCE_CC_PRIO_MASK_P1"]); d != "" || len(fs.NVConfig) != 8 {
		t.Errorf("NV config of %s (%d functions) (-want +got):\n%s", bdf, len(fs.NVConfig), d)
	}
	if p := fs.NVConfig[bdf]["QOS_TRUST_STATE_P1"]; p.Next != "TRUST_PCP(1)" {
		t.Errorf("QOS_TRUST_STATE_P1 = %+v", p)
	}

	twinRun(t, f, "rdma", "echo 26 >/sys/kernel/debug/mlx5/"+bdf+"/cc_params/np_cnp_dscp; "+
		"echo 106 >/sys/class/infiniband/mlx5_0/tc/1/traffic_class; "+
		"echo 'Global tclass=105' >/sys/class/infiniband/mlx5_1/tc/1/traffic_class; "+
		"cma_roce_tos -d mlx5_2 -t 96 >/dev/null; "+
		"mlxconfig -d "+bdf+" -y set CNP_DSCP_P1=26 >/dev/null")
	fs = gather()
	if fs.CCParams[bdf]["np_cnp_dscp"] != 26 {
		t.Errorf("np_cnp_dscp = %d, want 26", fs.CCParams[bdf]["np_cnp_dscp"])
	}
	if fs.TrafficClass["mlx5_0"] != 106 || fs.TrafficClass["mlx5_1"] != 105 || fs.TrafficClass["mlx5_2"] != facts.NoTrafficClass {
		t.Errorf("traffic_class = %v, want mlx5_0 106 and mlx5_1 105", fs.TrafficClass)
	}
	if fs.CMARoCETos["mlx5_2"] != 96 {
		t.Errorf("cma_roce_tos = %v, want mlx5_2 96", fs.CMARoCETos)
	}
	p := fs.NVConfig[bdf]["CNP_DSCP_P1"]
	if cur, _ := p.CurrentValue(); cur != 48 {
		t.Errorf("CNP_DSCP_P1 current = %q, want 48 until a reboot", p.Current)
	}
	if next, _ := p.NextValue(); next != 26 {
		t.Errorf("CNP_DSCP_P1 next boot = %q, want 26", p.Next)
	}
}

// A full gather that cannot run mlxconfig (not installed) records it as
// absent, once, and reads the rest.
func TestGatherWithoutMlxconfig(t *testing.T) {
	f, c := twin(t, "rdma")
	twinRun(t, f, "rdma", "mv /usr/local/sbin/mlxconfig /usr/local/sbin/mlxconfig.off")
	t.Cleanup(func() { twinRun(t, f, "rdma", "mv /usr/local/sbin/mlxconfig.off /usr/local/sbin/mlxconfig") })
	fs, err := host.Gather(context.Background(), c, host.AllFacts())
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	var absent []string
	for k, why := range fs.Absent {
		absent = append(absent, k+": "+why)
	}
	slices.Sort(absent)
	want := append([]string{"mlxconfig: exit status 127: mlxconfig: command not found"}, rhelFactsAbsent...)
	slices.Sort(want)
	if d := cmp.Diff(want, absent); d != "" {
		t.Errorf("absent (-want +got):\n%s", d)
	}
	if fs.NVConfig == nil || len(fs.NVConfig) != 0 || fs.Has(host.FactNVConfig) || !fs.Has(host.FactCCParams) {
		t.Errorf("NVConfig = %v, Has = %v", fs.NVConfig, fs.Has(host.FactNVConfig))
	}
	if !strings.HasPrefix(fs.NICs()[0].Model, "ConnectX") {
		t.Errorf("NICs = %+v", fs.NICs())
	}
}
