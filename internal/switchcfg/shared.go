package switchcfg

import "errors"

// Snapshot holds, for every shared field a policy sets, the value it had before the provider
// first wrote it ("TABLE|KEY|field" → value; absent = the field did not exist). Delete puts
// these values back, so destroying the resource returns the ports to the maps, schedulers
// and thresholds they had.
type Snapshot map[string]string

// LosslessProblem is a listed port that does not hold the lossless priority group the policy
// relies on, after an apply.
type LosslessProblem struct {
	Port string
	// Fatal is true when the port has no lossless priority group for the RDMA priority at all,
	// so RDMA is dropped instead of paused; false when it has one with another profile.
	Fatal  bool
	Detail string
}

// ErrNotFound means the switch holds none of the objects a policy owns: the resource is gone.
var ErrNotFound = errors.New("the switch has no QoS objects of this policy")
