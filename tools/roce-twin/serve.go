package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/twinvars"
)

// hostsDir is where, under the state directory, the host fleet keeps its state.
const hostsDir = "hosts"

// serve runs the twins in this process until SIGTERM or SIGINT.
func serve(o options) error {
	if err := os.WriteFile(filepath.Join(o.stateDir, pidFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		return err
	}
	switches, err := twinvars.StartSwitches(o.stateDir, "roce-twin", o.switches,
		twinvars.SwitchSpec{OS: strings.Split(o.switchOS, ","), Release: o.release, HWSKU: o.hwsku, Ports: o.ports,
			BufferModel: o.bufferModel, CumulusRelease: o.cumulusRelease})
	if err != nil {
		return err
	}
	defer switches.Stop()
	ep := twinvars.Endpoints{Switches: switches.Endpoints}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	if o.hosts > 0 {
		fleet, err := startHosts(o)
		if err != nil {
			return err
		}
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
			defer cancel()
			if err := fleet.Stop(ctx); err != nil {
				fmt.Fprintln(os.Stderr, "stop host twins:", err)
			}
		}()
		ep.Hosts = fleet.Hosts()
		ep.SSH = &twinvars.FleetSSH{User: "root", PrivateKeyFile: fleet.UserKeyFile(), KnownHostsFile: fleet.KnownHostsFile()}
		ctx, cancel := context.WithCancel(context.Background())
		done, err := startTraffic(ctx, o.stateDir, switches, fleet)
		if err != nil {
			cancel()
			return fmt.Errorf("traffic: %w", err)
		}
		defer func() {
			cancel()
			<-done
		}()
	}
	if o.tfvars != "" {
		v, err := twinvars.New(ep)
		if err != nil {
			return err
		}
		if err := twinvars.Write(o.tfvars, v); err != nil {
			return fmt.Errorf("write %s: %w", o.tfvars, err)
		}
	}
	// endpoints.json last: up waits for it, so everything else is in place when it appears.
	if err := writeEndpoints(o.stateDir, ep); err != nil {
		return err
	}
	<-stop
	return nil
}

func startHosts(o options) (*hosttwin.Fleet, error) {
	specs := make([]hosttwin.HostSpec, o.hosts)
	for i := range specs {
		specs[i] = hosttwin.HostSpec{Name: fmt.Sprintf("gpu%d", i+1), Profile: hostProfile(o.profile, i)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	fleet, err := hosttwin.Start(ctx, hosttwin.Options{StateDir: filepath.Join(o.stateDir, hostsDir), Hosts: specs})
	if err != nil {
		return nil, fmt.Errorf("host twins: %w", err)
	}
	return fleet, nil
}

func writeEndpoints(dir string, ep twinvars.Endpoints) error {
	raw, err := json.MarshalIndent(ep, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, endpointsFile+".tmp")
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, endpointsFile))
}

// hostProfile is the profile of host i: --profile is one profile or a comma-separated list
// the hosts take in turn ("cx7,rocky9": gpu1 cx7, gpu2 rocky9, gpu3 cx7, ...).
func hostProfile(profiles string, i int) string {
	list := strings.Split(profiles, ",")
	return strings.TrimSpace(list[i%len(list)])
}
