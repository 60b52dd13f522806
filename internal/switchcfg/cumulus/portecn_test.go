package cumulus

import (
	"context"
	"strconv"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

// On a switch that runs a port's congestion-control profile in place of default-global (the
// twin, after the 5.14 QoS guide's Port Groups), the policy's ports still mark traffic class 0
// with Cumulus' default band beside the RDMA class.
func TestNVUEBoundPortsRunTrafficClassZeroECN(t *testing.T) {
	_, b := startNVUETwin(t, "5.14")
	p := cumulusPolicy()
	o := nvueObserve(t, b)
	c, err := o.PlanUpdate(nil, p, o.Snapshot(nil, p, nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := b.Apply(ctx, c); err != nil {
		t.Fatal(err)
	}
	rdma := strconv.Itoa(p.Class.Priority)
	for _, port := range p.Ports {
		raw, err := b.client.Get(ctx, "interface/"+port+"/qos/congestion-control", nvue.RevOperational)
		if err != nil {
			t.Fatal(err)
		}
		run, err := nvue.DecodeTree(raw)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := nvue.Lookup(run, "profile"); v != p.Name {
			t.Errorf("%s runs congestion-control profile %v, want %s", port, v, p.Name)
		}
		for _, c := range []struct {
			path []string
			want any
		}{
			{[]string{"traffic-class", "0", "ecn"}, "enable"},
			{[]string{"traffic-class", "0", "min-threshold"}, 150000.0},
			{[]string{"traffic-class", "0", "max-threshold"}, 1500000.0},
			{[]string{"traffic-class", rdma, "ecn"}, "enable"},
			{[]string{"traffic-class", rdma, "min-threshold"}, float64(p.ECN.MinBytes)},
		} {
			if v, _ := nvue.Lookup(run, c.path...); v != c.want {
				t.Errorf("%s running %v = %v, want %v", port, c.path, v, c.want)
			}
		}
	}
}
