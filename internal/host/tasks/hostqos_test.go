package tasks

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// losslessQoS is the HostQoS most tests plan: DSCP trust, PFC on 3, traffic
// class and RDMA-CM ToS left alone.
func losslessQoS() HostQoS {
	return HostQoS{Trust: "dscp", PFCPriorities: []int{3}, TrafficClass: -1, CMARoCETos: -1}
}

func TestHostQoSMlnxQoS(t *testing.T) {
	f := roceHost(t)
	q := f.QoS["ens2f0np0"]
	q.Trust = "dscp"
	f.QoS["ens2f0np0"] = q
	got, err := losslessQoS().Plan(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []plannedChange{
		{
			Summary: "set trust dscp and pfc 0,0,0,1,0,0,0,0 on ens1f0np0 with mlnx_qos",
			Before:  "trust pcp, pfc 0,0,0,0,0,0,0,0", After: "trust dscp, pfc 0,0,0,1,0,0,0,0",
			Lines: []string{"run: mlnx_qos -i ens1f0np0 --trust dscp --pfc 0,0,0,1,0,0,0,0 (as root)"},
		},
		{
			Summary: "set pfc 0,0,0,1,0,0,0,0 on ens2f0np0 with mlnx_qos",
			Before:  "pfc 0,0,0,0,0,0,0,0", After: "pfc 0,0,0,1,0,0,0,0",
			Lines: []string{"run: mlnx_qos -i ens2f0np0 --pfc 0,0,0,1,0,0,0,0 (as root)"},
		},
	}
	if d := cmp.Diff(want, plannedOf(got)); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}

	q.PFC[3] = true
	f.QoS["ens2f0np0"] = q
	f.QoS["ens1f0np0"] = q
	got, err = losslessQoS().Plan(f)
	if err != nil {
		t.Fatal(err)
	}
	want = []plannedChange{
		{Summary: "ens1f0np0 has trust dscp and PFC 0,0,0,1,0,0,0,0"},
		{Summary: "ens2f0np0 has trust dscp and PFC 0,0,0,1,0,0,0,0"},
	}
	if d := cmp.Diff(want, plannedOf(got)); d != "" {
		t.Errorf("second plan (-want +got):\n%s", d)
	}

	// PFC off everywhere: an empty, non-nil list.
	off := HostQoS{Netdevs: []string{"ens1f0np0"}, PFCPriorities: []int{}, TrafficClass: -1, CMARoCETos: -1}
	got, err = off.Plan(f)
	if err != nil {
		t.Fatal(err)
	}
	if a := actionable(got); len(a) != 1 || a[0].Apply.Lines()[0] != "run: mlnx_qos -i ens1f0np0 --pfc 0,0,0,0,0,0,0,0 (as root)" {
		t.Errorf("PFC off: %+v", plannedOf(got))
	}
}

func TestHostQoSClassAndTos(t *testing.T) {
	f := roceHost(t)
	task := HostQoS{Netdevs: []string{"ens1f0np0", "ens2f0np0"}, TrafficClass: 106, CMARoCETos: 106}
	st := rdmaState{f: f, tc: map[string]int{"mlx5_0": -1, "mlx5_1": 106}, tos: map[string]int{"mlx5_0": 106, "mlx5_1": 0}}
	got, err := task.plan(st)
	if err != nil {
		t.Fatal(err)
	}
	want := []plannedChange{
		{
			Summary: "set the RoCE traffic class of mlx5_0 (ens1f0np0) to 106",
			Before:  "none (applications choose)", After: "traffic_class 106",
			Lines: []string{"run: echo 106 >/sys/class/infiniband/mlx5_0/tc/1/traffic_class (as root)"},
		},
		{Summary: "mlx5_0 (ens1f0np0) has RDMA-CM ToS 106"},
		{Summary: "mlx5_1 (ens2f0np0) has traffic class 106"},
		{
			Summary: "set the RDMA-CM default ToS of mlx5_1 (ens2f0np0) to 106",
			Before:  "tos 0", After: "tos 106",
			Lines: []string{"run: cma_roce_tos -d mlx5_1 -t 106 (as root)"},
		},
	}
	if d := cmp.Diff(want, plannedOf(got)); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
	if got := task.Needs().String(); got != "ofed_info,ibv_devinfo,netdevs,traffic_class,cma_roce_tos" {
		t.Errorf("Needs = %s: mlnx_qos is not needed without trust or PFC", got)
	}
}

// The traffic class and RDMA-CM ToS come from the gathered facts; only
// the named values are gathered.
func TestHostQoSClassFromFacts(t *testing.T) {
	f := roceHost(t)
	task := HostQoS{Netdevs: []string{"ens1f0np0", "ens2f0np0"}, TrafficClass: 106, CMARoCETos: 106}
	f.Gathered = f.Gathered.Union(task.Needs())
	f.TrafficClass = map[string]int{"mlx5_0": facts.NoTrafficClass, "mlx5_1": 106}
	f.CMARoCETos = map[string]int{"mlx5_0": 106, "mlx5_1": 0}
	got, err := task.Plan(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"run: echo 106 >/sys/class/infiniband/mlx5_0/tc/1/traffic_class (as root)",
		"run: cma_roce_tos -d mlx5_1 -t 106 (as root)",
	}
	var lines []string
	for _, c := range actionable(got) {
		lines = append(lines, c.Apply.Lines()...)
	}
	if d := cmp.Diff(want, lines); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
	if got := (HostQoS{TrafficClass: 106, CMARoCETos: -1}).Needs().String(); got != "ofed_info,ibv_devinfo,netdevs,traffic_class" {
		t.Errorf("Needs = %s", got)
	}
	// cma_roce_tos gathered but absent: the plan says it ships with OFED.
	f.CMARoCETos = map[string]int{}
	f.Absent["cma_roce_tos"] = "exit status 127: cma_roce_tos: command not found"
	if _, err := task.Plan(f); err == nil || !strings.Contains(err.Error(), "cannot read its RDMA-CM default ToS: cma_roce_tos ships with DOCA-OFED") {
		t.Errorf("err = %v", err)
	}
}

func TestHostQoSUnreadable(t *testing.T) {
	f := roceHost(t)
	var uf *unreadFactError
	_, err := HostQoS{TrafficClass: 106, CMARoCETos: -1}.Plan(f)
	if !errors.As(err, &uf) || !strings.Contains(err.Error(),
		"cannot read the OFED traffic_class of RDMA device mlx5_0 (netdev ens1f0np0, /sys/class/infiniband/mlx5_0/tc/1/traffic_class)") ||
		!strings.HasSuffix(err.Error(), "set TrafficClass to -1 and give NCCL its class with NCCL_IB_TC=106") {
		t.Errorf("err = %v", err)
	}
	_, err = HostQoS{TrafficClass: -1, CMARoCETos: 106}.Plan(f)
	if !errors.As(err, &uf) || !strings.Contains(err.Error(), "RDMA-CM default ToS (cma_roce_tos) of RDMA device mlx5_0") {
		t.Errorf("err = %v", err)
	}
	// Read but absent: inbox has no tc/ directory.
	_, err = HostQoS{TrafficClass: 106, CMARoCETos: -1}.plan(rdmaState{f: f, tc: map[string]int{}})
	if err == nil || !strings.Contains(err.Error(), "the port-global traffic class is an OFED feature") {
		t.Errorf("err = %v", err)
	}
}

func TestHostQoSErrors(t *testing.T) {
	tests := []struct {
		name string
		task HostQoS
		edit func(*testing.T) map[string]string // Absent entries
		want string
	}{
		{"trust", HostQoS{Trust: "DSCP", TrafficClass: -1, CMARoCETos: -1}, nil, `trust "DSCP": want "dscp", "pcp" or empty`},
		{"pfc range", HostQoS{PFCPriorities: []int{8}, TrafficClass: -1, CMARoCETos: -1}, nil, "PFC priority 8: want 0..7"},
		{"pfc twice", HostQoS{PFCPriorities: []int{3, 3}, TrafficClass: -1, CMARoCETos: -1}, nil, "PFC priority 3 is listed twice"},
		{"class", HostQoS{TrafficClass: 256, CMARoCETos: -1}, nil, "traffic class 256: want a ToS byte 0..255"},
		{"tos", HostQoS{TrafficClass: -1, CMARoCETos: -2}, nil, "RDMA-CM ToS -2: want 0..255 or -1"},
		{"hostile name", HostQoS{Netdevs: []string{"a b"}, Trust: "dscp", TrafficClass: -1, CMARoCETos: -1}, nil, "not a valid interface name"},
		{"VF", HostQoS{Netdevs: []string{"ens1f0np0"}, Trust: "dscp", TrafficClass: -1, CMARoCETos: -1}, nil, "virtual function: mlnx_qos cannot set a VF's trust or PFC"},
		{"class on inbox", HostQoS{TrafficClass: 106, CMARoCETos: -1}, func(t *testing.T) map[string]string {
			return map[string]string{}
		}, "the traffic class (tc/1/traffic_class) and cma_roce_tos are OFED features and this host runs the inbox rdma-core stack"},
		{"mlnx_qos missing", losslessQoS(), func(t *testing.T) map[string]string {
			return inboxHost(t, facts.LockdownNone).Absent
		}, "netdev ens1f0np0: mlnx_qos is not installed (exit status 127: mlnx_qos: command not found): it ships with DOCA-OFED and MLNX_OFED"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := roceHost(t)
			if tc.name == "VF" {
				f.Netdevs[0].IsVF = true
			}
			if tc.edit != nil {
				f.Absent = tc.edit(t)
				f.OFED = facts.OFEDInfo{Flavor: facts.OFEDInbox}
				delete(f.QoS, "ens1f0np0")
			}
			_, err := tc.task.Plan(f)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v\nwant it to contain %s", err, tc.want)
			}
		})
	}
}

func TestHostQoSNothingToSet(t *testing.T) {
	got, err := HostQoS{TrafficClass: -1, CMARoCETos: -1}.Plan(roceHost(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Apply != nil || !strings.HasPrefix(got[0].Summary, "nothing to set") {
		t.Errorf("plan = %+v", plannedOf(got))
	}
}
