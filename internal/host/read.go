package host

import (
	"context"
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
)

// ReadProbe runs one probe's command on its own, past the gather and its cache, and parses
// the output: for state that changes between two reads, such as counters sampled an interval
// apart.
func ReadProbe[T any](ctx context.Context, r Runner, p facts.Probe[T]) (T, error) {
	var zero T
	res, err := r.Run(ctx, p.Command, ssh.RunOptions{})
	if err != nil {
		return zero, fmt.Errorf("read %s on %s: %w", p.Name, r.Address(), err)
	}
	v, err := p.Parse(string(res.Stdout))
	if err != nil {
		return zero, fmt.Errorf("read %s on %s: %w", p.Name, r.Address(), err)
	}
	return v, nil
}
