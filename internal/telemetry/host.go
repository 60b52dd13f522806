package telemetry

import (
	"context"

	"github.com/clusterbid/terraform-provider-roce/internal/health"
	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// Host reads every RDMA port of a host in one command, with the ethtool -S of each physical
// port of a RoCE LAG device (the judge reads their pauses and drops port by port). A port
// whose ethtool -S failed keeps its hw_counters and says why in EthtoolError.
func Host(ctx context.Context, r host.Runner) ([]health.HostPort, error) {
	pcs, err := host.ReadProbe(ctx, r, facts.CountersProbe)
	if err != nil {
		return nil, err
	}
	out := make([]health.HostPort, 0, len(pcs))
	for _, pc := range pcs {
		hp := health.HostPort{Host: r.Address(), Device: pc.Device, Port: pc.Port, Netdev: pc.Netdev,
			Ethtool: pc.Ethtool, RDMA: pc.HW, EthtoolError: pc.EthtoolError}
		for _, b := range pc.Bonded {
			hp.Bonded = append(hp.Bonded, health.Link{Netdev: b.Netdev, Ethtool: b.Ethtool, EthtoolError: b.EthtoolError})
		}
		out = append(out, hp)
	}
	return out, nil
}
