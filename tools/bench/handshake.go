package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
)

// A one-shot `terraform apply` runs two provider processes, one per walk, and so opens two SSH
// connections per host. The handshake measurement prices the second one: the provider's own
// SSH client (internal/host/ssh, host key verified) in a child process of this binary, so that
// its CPU is its own rusage and not the switch twins' inside this process.
//
// The child runs two phases against one host: handshakeRounds fresh connections that each run
// one command (a handshake and a session each), then handshakeRounds commands on one
// connection (sessions only). The difference is the handshake.

// envHandshake makes this binary the measuring child; its value is the JSON of handshakeArgs.
const envHandshake = "ROCE_BENCH_HANDSHAKE"

const handshakeRounds = 20

type handshakeArgs struct {
	Address, User, KeyFile, KnownHosts string
	Rounds                             int
}

// phaseCost is what one phase of the child cost: median wall per round, and the child's and
// the rest of the machine's CPU over the phase.
type phaseCost struct {
	Wall, CPU, Machine time.Duration
}

type handshakeResult struct {
	Fresh, Reused phaseCost // Rounds each
	Rounds        int
}

// handshake is the cost of one SSH connection beyond the command it carries.
type handshake struct {
	wall       time.Duration // median wall, fresh connection minus reused one
	controller time.Duration // the client's CPU per handshake
	twin       time.Duration // the rest of the machine's CPU per handshake: sshd
	rtt        time.Duration
	measured   bool
}

// measureHandshake runs the child against the fleet's first host.
func measureHandshake(ctx context.Context, fleet *hosttwin.Fleet, rtt time.Duration) (handshake, error) {
	hosts := fleet.Hosts()
	if len(hosts) == 0 {
		return handshake{}, fmt.Errorf("handshake: no hosts")
	}
	h := hosts[0]
	args, err := json.Marshal(handshakeArgs{Address: h.Address, User: h.User, KeyFile: h.PrivateKeyFile, KnownHosts: h.KnownHostsFile, Rounds: handshakeRounds})
	if err != nil {
		return handshake{}, err
	}
	self, err := os.Executable()
	if err != nil {
		return handshake{}, err
	}
	cmd := exec.CommandContext(ctx, self)
	cmd.Env = append(os.Environ(), envHandshake+"="+string(args))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return handshake{}, fmt.Errorf("handshake child: %w", err)
	}
	var r handshakeResult
	if err := json.Unmarshal(out, &r); err != nil {
		return handshake{}, fmt.Errorf("handshake child: %w: %q", err, out)
	}
	n := time.Duration(r.Rounds)
	return handshake{
		wall:       r.Fresh.Wall - r.Reused.Wall,
		controller: max(r.Fresh.CPU-r.Reused.CPU, 0) / n,
		twin:       max((r.Fresh.Machine-r.Fresh.CPU)-(r.Reused.Machine-r.Reused.CPU), 0) / n,
		rtt:        rtt,
		measured:   true,
	}, nil
}

// handshakeChild is the child's main: it prints the handshakeResult as JSON.
func handshakeChild(raw string) int {
	var a handshakeArgs
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		fmt.Fprintln(os.Stderr, "handshake child:", err)
		return 1
	}
	r, err := runHandshakes(context.Background(), a)
	if err != nil {
		fmt.Fprintln(os.Stderr, "handshake child:", err)
		return 1
	}
	if err := json.NewEncoder(os.Stdout).Encode(r); err != nil {
		fmt.Fprintln(os.Stderr, "handshake child:", err)
		return 1
	}
	return 0
}

func runHandshakes(ctx context.Context, a handshakeArgs) (handshakeResult, error) {
	cfg := ssh.Config{User: a.User, PrivateKeyFile: a.KeyFile, KnownHostsFile: a.KnownHosts}
	runOnce := func(p *ssh.Pool) error {
		_, err := p.Client(a.Address).Run(ctx, "true", ssh.RunOptions{})
		return err
	}
	fresh, err := phase(a.Rounds, func() error {
		p, err := ssh.NewPool(cfg)
		if err != nil {
			return err
		}
		defer p.Close()
		return runOnce(p)
	})
	if err != nil {
		return handshakeResult{}, fmt.Errorf("fresh connections: %w", err)
	}
	p, err := ssh.NewPool(cfg)
	if err != nil {
		return handshakeResult{}, err
	}
	defer p.Close()
	if err := runOnce(p); err != nil { // the connection, outside the phase
		return handshakeResult{}, err
	}
	reused, err := phase(a.Rounds, func() error { return runOnce(p) })
	if err != nil {
		return handshakeResult{}, fmt.Errorf("one connection: %w", err)
	}
	return handshakeResult{Fresh: fresh, Reused: reused, Rounds: a.Rounds}, nil
}

// phase runs fn rounds times and returns its median wall and the CPU over all rounds.
func phase(rounds int, fn func() error) (phaseCost, error) {
	selfBefore, machineBefore, err := cpuNow()
	if err != nil {
		return phaseCost{}, err
	}
	walls := make([]time.Duration, rounds)
	for i := range walls {
		began := time.Now()
		if err := fn(); err != nil {
			return phaseCost{}, err
		}
		walls[i] = time.Since(began)
	}
	selfAfter, machineAfter, err := cpuNow()
	if err != nil {
		return phaseCost{}, err
	}
	slices.Sort(walls)
	return phaseCost{Wall: walls[rounds/2], CPU: selfAfter - selfBefore, Machine: machineAfter - machineBefore}, nil
}

// cpuNow reads this process's CPU and the machine's busy time.
func cpuNow() (self, machine time.Duration, err error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, fmt.Errorf("getrusage: %w", err)
	}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	machine, err = parseProcStat(string(b))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), machine, err
}

// render is the report's line for the measurement, with its share of the apply's controller
// CPU per host.
func (h handshake) render(applyCPUPerHost time.Duration) string {
	if !h.measured {
		return ""
	}
	share := ""
	if applyCPUPerHost > 0 {
		share = fmt.Sprintf(", %.1f%% of the apply's controller CPU per host (%s)", 100*float64(h.controller)/float64(applyCPUPerHost), applyCPUPerHost.Round(time.Millisecond))
	}
	return fmt.Sprintf("the second SSH connection per host of a one-shot apply (%d handshakes to one host at RTT %s, against as many commands on one connection): "+
		"%s wall, %s of the provider's CPU%s, and %s of the host's (sshd)",
		handshakeRounds, h.rtt, h.wall.Round(100*time.Microsecond), h.controller.Round(100*time.Microsecond), share, h.twin.Round(100*time.Microsecond))
}
