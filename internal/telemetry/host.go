package telemetry

import (
	"context"

	"github.com/clusterbid/terraform-provider-roce/internal/health"
	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// Host reads every RDMA port of a host in one command. A port whose ethtool -S failed keeps
// its hw_counters and says why in EthtoolError.
func Host(ctx context.Context, r host.Runner) ([]health.HostPort, error) {
	pcs, err := host.ReadProbe(ctx, r, facts.CountersProbe)
	if err != nil {
		return nil, err
	}
	out := make([]health.HostPort, 0, len(pcs))
	for _, pc := range pcs {
		out = append(out, health.HostPort{Host: r.Address(), Device: pc.Device, Port: pc.Port, Netdev: pc.Netdev,
			Ethtool: pc.Ethtool, RDMA: pc.HW, EthtoolError: pc.EthtoolError})
	}
	return out, nil
}
