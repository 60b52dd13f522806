package host

import (
	"context"
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
)

// ReadFact runs one fact's command on its own, past the gather and its cache, and parses the
// output: for state that changes between two reads, such as counters sampled an interval
// apart.
func ReadFact[T any](ctx context.Context, r Runner, f facts.Fact[T]) (T, error) {
	var zero T
	res, err := r.Run(ctx, f.Command, ssh.RunOptions{})
	if err != nil {
		return zero, fmt.Errorf("read %s on %s: %w", f.Name, r.Address(), err)
	}
	v, err := f.Parse(string(res.Stdout))
	if err != nil {
		return zero, fmt.Errorf("read %s on %s: %w", f.Name, r.Address(), err)
	}
	return v, nil
}
