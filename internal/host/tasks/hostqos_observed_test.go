package tasks

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// classHost is roceHost with the traffic_class fact gathered: ens1f0np0's
// mlx5_0 forces tc0, ens2f0np0's mlx5_1 106.
func classHost(t *testing.T, tc0 int) host.Facts {
	t.Helper()
	f := roceHost(t)
	f.Gathered = f.Gathered.Union(host.WantFacts(host.FactTrafficClass))
	f.TrafficClass = map[string]int{"mlx5_0": tc0, "mlx5_1": 106}
	return f
}

// TestHostQoSObserved reads PFC and the traffic class back from the first
// netdev; planning the result against the same facts changes nothing on it.
func TestHostQoSObserved(t *testing.T) {
	asked := HostQoS{Netdevs: []string{"ens1f0np0"}, Trust: "dscp", PFCPriorities: []int{3}, TrafficClass: 106, CMARoCETos: -1}
	cases := map[string]struct {
		pfc  []int
		tc   int
		drop bool // mlx5_0 has no tc/1/traffic_class
		want HostQoS
	}{
		"tuned": {pfc: []int{4, 3}, tc: 98,
			want: HostQoS{Netdevs: []string{"ens1f0np0"}, Trust: "dscp", PFCPriorities: []int{3, 4}, TrafficClass: 98, CMARoCETos: -1}},
		"nothing forced, PFC off": {tc: facts.NoTrafficClass,
			want: HostQoS{Netdevs: []string{"ens1f0np0"}, Trust: "dscp", PFCPriorities: []int{}, TrafficClass: -1, CMARoCETos: -1}},
		"no class file": {pfc: []int{3}, drop: true,
			want: HostQoS{Netdevs: []string{"ens1f0np0"}, Trust: "dscp", PFCPriorities: []int{3}, TrafficClass: -1, CMARoCETos: -1}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			f := classHost(t, c.tc)
			if c.drop {
				delete(f.TrafficClass, "mlx5_0")
			}
			q := f.QoS["ens1f0np0"]
			q.Trust = "dscp"
			for _, p := range c.pfc {
				q.PFC[p] = true
			}
			f.QoS["ens1f0np0"] = q
			got, err := asked.Observed(f)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("Observed (-want +got):\n%s", d)
			}
			if len(got.PFCPriorities) == 0 {
				return // PFC off cannot be applied back: an empty list turns it off, as read
			}
			cs, err := got.Plan(f)
			if err != nil {
				t.Fatal(err)
			}
			if a := actionable(cs); len(a) != 0 {
				t.Errorf("planning the observed task changes %v", plannedOf(a))
			}
		})
	}
}

func TestHostQoSObservedErrors(t *testing.T) {
	asked := HostQoS{Trust: "dscp", PFCPriorities: []int{3}, TrafficClass: 106, CMARoCETos: -1}
	f := roceHost(t)
	if _, err := asked.Observed(f); err == nil || !strings.Contains(err.Error(), "cannot read the OFED traffic_class of RDMA device mlx5_0") {
		t.Errorf("without the traffic_class fact: %v", err)
	}
	f = inboxHost(t, facts.LockdownNone)
	if _, err := asked.Observed(f); err == nil || !strings.Contains(err.Error(), "mlnx_qos is not installed") {
		t.Errorf("without mlnx_qos: %v", err)
	}
}

func TestPersistenceInstalled(t *testing.T) {
	p := Persistence{ID: "dcqcn", QoS: &HostQoS{Trust: "dscp", TrafficClass: -1, CMARoCETos: -1}}
	if p.Installed(persistHost(t, p, false)) {
		t.Error("Installed with no files: true")
	}
	if !p.Installed(persistHost(t, p, true)) {
		t.Error("Installed with all files: false")
	}
	f := persistHost(t, p, false)
	f.Files[p.UnitPath()] = rootFile(p.UnitFile(), 0o644)
	if !p.Installed(f) {
		t.Error("Installed with the unit only: false")
	}
}
