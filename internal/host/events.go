package host

import (
	"context"
	"time"
)

// Events hears what an [Engine] does on its host, so that the caller can log it: each gather
// (through the cache or not) and each plan of its tasks. The engine calls it on the goroutine
// that runs it; several engines may share one Events.
type Events interface {
	// Gathered reports a gather of want: where its answer came from, how long it took, the
	// facts it read (f, with f.Absent naming what the host could not give), or the error.
	Gathered(ctx context.Context, host string, want Want, from GatherSource, f Facts, took time.Duration, err error)
	// Planned reports the tasks planned against the facts just gathered; phase is "plan"
	// (check mode), "apply" (the plan an apply carries out) or "verify" (the plan after
	// it, which must be empty).
	Planned(ctx context.Context, host, phase string, tasks []TaskReport)
}

// GatherSource says where a gather's answer came from: what it cost the host.
type GatherSource string

const (
	// FromHost is a gather run on the host: one command.
	FromHost GatherSource = "host"
	// FromCache is an answer from facts gathered before: no command.
	FromCache GatherSource = "cache"
	// FromCacheAndFiles is an answer from facts gathered before and a read of the files
	// written since: one command.
	FromCacheAndFiles GatherSource = "cache and a read of files"
	// FromGatherInFlight is an answer from another request's gather that was running: no
	// command of its own.
	FromGatherInFlight GatherSource = "another request's gather"
)
