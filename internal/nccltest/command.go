package nccltest

import (
	"fmt"
	"maps"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// Run is one all_reduce_perf invocation. One host runs the test alone (every GPU of the node,
// NVLink and the NICs' loopback paths); more run it under mpirun from the first host, one rank
// per GPU (nccl-tests README: mpirun -np <hosts*gpus> ... all_reduce_perf -g 1).
type Run struct {
	// Hosts are the hosts as mpirun's -H names them (address without SSH port).
	Hosts []string
	// GPUsPerHost is the ranks per host.
	GPUsPerHost int
	// Binary and MPIRun are the programs, by path or on PATH.
	Binary, MPIRun string
	// MinBytes and MaxBytes are -b and -e ("8", "8G"); StepFactor is -f; Iterations is -n.
	MinBytes, MaxBytes string
	StepFactor         int
	Iterations         int
	// Check is -c: validate the results (slower, but catches corruption).
	Check bool
	// Env is exported to every rank (mpirun -x), after NCCL_DEBUG=INFO and
	// NCCL_DEBUG_SUBSYS=INIT,NET, which the verdicts need; Env may override them.
	Env map[string]string
	// MPIArgs are extra mpirun arguments before the program ("--bind-to", "none").
	MPIArgs []string
}

// sizeRE is nccl-tests' size syntax: a whole number with an optional K, M or G suffix.
var sizeRE = regexp.MustCompile(`^[0-9]+[KMGkmg]?$`)

// envName is a variable name mpirun -x and a POSIX shell accept.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ValidSize reports whether s is a message size all_reduce_perf takes.
func ValidSize(s string) bool { return sizeRE.MatchString(s) }

// SizeBytes is a valid size in bytes (K, M and G are powers of 1024, as nccl-tests'
// parsesize reads them).
func SizeBytes(s string) int64 {
	mult := int64(1)
	switch s[len(s)-1] {
	case 'K', 'k':
		mult, s = 1<<10, s[:len(s)-1]
	case 'M', 'm':
		mult, s = 1<<20, s[:len(s)-1]
	case 'G', 'g':
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, _ := strconv.ParseInt(s, 10, 64)
	return n * mult
}

// ValidEnvName reports whether k is a variable name mpirun -x and the shell take.
func ValidEnvName(k string) bool { return envName.MatchString(k) }

// Validate refuses what all_reduce_perf or mpirun would refuse, naming the field.
func (r Run) Validate() error {
	switch {
	case len(r.Hosts) == 0:
		return fmt.Errorf("no hosts")
	case r.GPUsPerHost < 1:
		return fmt.Errorf("gpus_per_host is %d; each host runs at least one rank", r.GPUsPerHost)
	case !sizeRE.MatchString(r.MinBytes):
		return fmt.Errorf("min_bytes %q is not a size such as 8, 64K, 1M or 8G", r.MinBytes)
	case !sizeRE.MatchString(r.MaxBytes):
		return fmt.Errorf("max_bytes %q is not a size such as 8, 64K, 1M or 8G", r.MaxBytes)
	case r.StepFactor < 2:
		return fmt.Errorf("step_factor is %d; sizes grow by a factor of 2 or more", r.StepFactor)
	case r.Iterations < 1:
		return fmt.Errorf("iterations is %d; at least 1", r.Iterations)
	}
	for k := range r.Env {
		if !envName.MatchString(k) {
			return fmt.Errorf("env key %q is not a variable name", k)
		}
	}
	return nil
}

// Command returns the command to run on the first host.
func (r Run) Command() (shell.Command, error) {
	if err := r.Validate(); err != nil {
		return shell.Command{}, err
	}
	env := map[string]string{"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "INIT,NET"}
	maps.Copy(env, r.Env)
	names := slices.Sorted(maps.Keys(env))
	check := "0"
	if r.Check {
		check = "1"
	}
	test := []string{"-b", r.MinBytes, "-e", r.MaxBytes, "-f", strconv.Itoa(r.StepFactor), "-n", strconv.Itoa(r.Iterations), "-c", check}
	if len(r.Hosts) == 1 {
		c := shell.New(r.Binary, append(test, "-g", strconv.Itoa(r.GPUsPerHost))...)
		for _, k := range names {
			c = c.Env(k, env[k])
		}
		return c.With(shell.Dup(2, 1)), nil
	}
	slots := make([]string, len(r.Hosts))
	for i, h := range r.Hosts {
		slots[i] = h + ":" + strconv.Itoa(r.GPUsPerHost)
	}
	args := []string{"-np", strconv.Itoa(len(r.Hosts) * r.GPUsPerHost), "-H", strings.Join(slots, ",")}
	for _, k := range names {
		args = append(args, "-x", k)
	}
	args = append(args, r.MPIArgs...)
	args = append(args, r.Binary)
	args = append(args, test...)
	c := shell.New(r.MPIRun, append(args, "-g", "1")...)
	for _, k := range names {
		c = c.Env(k, env[k])
	}
	return c.With(shell.Dup(2, 1)), nil
}

// Ranks is the number of ranks the run has: one per GPU of every host.
func (r Run) Ranks() int { return len(r.Hosts) * r.GPUsPerHost }

// MPIHost is the name mpirun reaches a host by: its SSH address without the port.
func MPIHost(sshAddress string) string {
	if h, _, err := net.SplitHostPort(sshAddress); err == nil {
		return h
	}
	return sshAddress
}
