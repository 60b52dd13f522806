package facts

import "github.com/clusterbid/terraform-provider-roce/internal/shell"

// Probe pairs the command that prints a piece of host state with the parser of
// its output. Probes are values: the engine may render the command, batch it
// with others and hand each command's standard output to Parse.
type Probe[T any] struct {
	// Name identifies the probe in plans and errors, e.g. "ofed_info".
	Name string
	// Command prints the state; run it unprivileged unless the probe says so.
	Command shell.Runnable
	// Parse reads the command's standard output.
	Parse func(out string) (T, error)
}
