package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/twinvars"
)

// hostProfile is the hardware every host twin of the benchmark has: 8 ConnectX-7 ports.
const hostProfile = "cx7"

// fabric is the switch twins and one fleet of host twins.
type fabric struct {
	switches []*switchtwin.Twin
	ep       twinvars.Endpoints
	hosts    *hosttwin.Fleet
}

// startSwitches starts the fabric's switch twins, sharing one login, as roce-twin does.
func startSwitches(c config, dir string) (*fabric, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	switches, err := twinvars.StartSwitches(dir, "roce-bench", c.switches, twinvars.SwitchSpec{Ports: c.ports})
	if err != nil {
		return nil, err
	}
	return &fabric{switches: switches.SONiC, ep: twinvars.Endpoints{Switches: switches.Endpoints}}, nil
}

// startHosts starts n host twins, each in its own network namespace behind rtt.
func startHosts(ctx context.Context, dir string, n int, rtt time.Duration) (*hosttwin.Fleet, error) {
	specs := make([]hosttwin.HostSpec, n)
	for i := range specs {
		specs[i] = hosttwin.HostSpec{Name: fmt.Sprintf("gpu%d", i+1), Profile: hostProfile}
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	return hosttwin.Start(ctx, hosttwin.Options{
		StateDir: dir, Hosts: specs, Network: true, RTT: rtt,
		StartTimeout: time.Minute,
	})
}

// useHosts makes fleet the fabric's hosts (stopping the previous fleet).
func (f *fabric) useHosts(ctx context.Context, fleet *hosttwin.Fleet) error {
	err := f.stopHosts(ctx)
	f.hosts = fleet
	f.ep.Hosts = fleet.Hosts()
	f.ep.SSH = &twinvars.FleetSSH{User: "root", PrivateKeyFile: fleet.UserKeyFile(), KnownHostsFile: fleet.KnownHostsFile()}
	return err
}

func (f *fabric) stopHosts(ctx context.Context) error {
	if f.hosts == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
	defer cancel()
	err := f.hosts.Stop(ctx)
	f.hosts = nil
	return err
}

func (f *fabric) stopSwitches() {
	for _, tw := range f.switches {
		tw.Stop()
	}
	f.switches = nil
}

func (f *fabric) stop(ctx context.Context) error {
	err := f.stopHosts(ctx)
	f.stopSwitches()
	return err
}

// counters are what a step is measured by, read before and after it.
type counters struct {
	conns, commands map[string]int // per host
	rpcs            []map[string]int
}

func (f *fabric) counters() (counters, error) {
	c := counters{conns: map[string]int{}, commands: map[string]int{}}
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, h := range f.hosts.Hosts() {
		wg.Go(func() {
			conns, err1 := f.hosts.ConnectionCount(h.Name)
			cmds, err2 := f.hosts.CommandCount(h.Name)
			mu.Lock()
			defer mu.Unlock()
			c.conns[h.Name], c.commands[h.Name] = conns, cmds
			errs = append(errs, err1, err2)
		})
	}
	wg.Wait()
	for _, tw := range f.switches {
		c.rpcs = append(c.rpcs, tw.Stats().RPCs)
	}
	return c, errors.Join(errs...)
}

// hostStateDir is where a scenario's fleet number i keeps its files.
func hostStateDir(work string, i int) string {
	return filepath.Join(work, fmt.Sprintf("hosts-%d", i))
}
