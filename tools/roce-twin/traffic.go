package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/traffic"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/twinvars"
)

// Files of the traffic model under the state directory: the cabling serve chose, and the
// faults "roce-twin traffic" asks for, which serve reads before every tick.
const (
	linksFile  = "links.json"
	faultsFile = "faults.json"
	// Traffic ticks every trafficTick for at most trafficTicks (an hour): a bounded loop.
	trafficTick  = 200 * time.Millisecond
	trafficTicks = 18000
	rdmaPriority = 3
)

// cable is one entry of links.json.
type cable struct {
	Switch string `json:"switch"`
	Port   string `json:"port"`
	Host   string `json:"host"`
	Netdev string `json:"netdev"`
	RDMA   string `json:"rdma"`
}

// faultSet is faults.json: switch ports ("leaf1/Ethernet0") whose lossless queue drops, and
// whose host sends a PFC storm.
type faultSet struct {
	Drops  []string `json:"drops"`
	Storms []string `json:"storms"`
}

// startTraffic cables the hosts to the SONiC switch twins and moves their counters on priority
// 3 until ctx ends. Cumulus twins carry no traffic: their counters are not modelled.
func startTraffic(ctx context.Context, stateDir string, switches twinvars.Switches, fleet *hosttwin.Fleet) (<-chan struct{}, error) {
	var sw []traffic.Switch
	i := 0
	for _, ep := range switches.Endpoints {
		if ep.OS == twinvars.OSCumulus {
			continue
		}
		sw = append(sw, traffic.Switch{Name: ep.Name, Twin: switches.SONiC[i]})
		i++
	}
	done := make(chan struct{})
	if len(sw) == 0 {
		close(done)
		return done, nil
	}
	m, err := traffic.Cable(fleet, sw, rdmaPriority)
	if err != nil {
		return nil, err
	}
	var cables []cable
	for _, l := range m.Links() {
		cables = append(cables, cable{Switch: l.SwitchName, Port: l.Port, Host: l.Host, Netdev: l.Netdev, RDMA: l.RDMA})
	}
	if err := writeJSONFile(filepath.Join(stateDir, linksFile), cables); err != nil {
		return nil, err
	}
	go func() {
		tick := time.NewTicker(trafficTick)
		defer tick.Stop()
		// A tick that fails (a host rebooting, a watchdog removed under a storm) is logged and
		// the next one tried: the twins keep carrying traffic.
		for range trafficTicks {
			if err := applyFaults(stateDir, m); err != nil {
				fmt.Fprintln(os.Stderr, "traffic:", err)
			} else if err := m.Step(); err != nil {
				fmt.Fprintln(os.Stderr, "traffic:", err)
			}
			select {
			case <-ctx.Done():
				close(done)
				return
			case <-tick.C:
			}
		}
		close(done)
	}()
	return done, nil
}

// applyFaults sets the model's faults to faults.json's (none without the file).
func applyFaults(stateDir string, m *traffic.Model) error {
	var f faultSet
	raw, err := os.ReadFile(filepath.Join(stateDir, faultsFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := json.Unmarshal(raw, &f); err != nil {
			return fmt.Errorf("%s: %w", faultsFile, err)
		}
	}
	m.ClearFaults()
	for _, list := range []struct {
		keys []string
		set  func(sw, port string)
	}{{f.Drops, m.DropOn}, {f.Storms, m.StormOn}} {
		for _, k := range list.keys {
			sw, port, _ := strings.Cut(k, "/")
			list.set(sw, port)
		}
	}
	return nil
}

// trafficCommand is "roce-twin traffic": without flags it prints the cabling; --drop and
// --storm add a fault on a switch port ("leaf1/Ethernet0"), --clear removes them all.
func trafficCommand(stateDir string, drop, storm string, clearAll bool) error {
	raw, err := os.ReadFile(filepath.Join(stateDir, linksFile))
	if err != nil {
		return fmt.Errorf("no traffic in %s (it needs SONiC switch twins and hosts): %w", stateDir, err)
	}
	var cables []cable
	if err := json.Unmarshal(raw, &cables); err != nil {
		return err
	}
	if drop == "" && storm == "" && !clearAll {
		for _, c := range cables {
			fmt.Printf("%s/%s\t%s %s (%s)\n", c.Switch, c.Port, c.Host, c.RDMA, c.Netdev)
		}
		return nil
	}
	var f faultSet
	if !clearAll {
		if raw, err := os.ReadFile(filepath.Join(stateDir, faultsFile)); err == nil {
			_ = json.Unmarshal(raw, &f)
		}
	}
	for _, k := range []string{drop, storm} {
		if k != "" && !cabled(cables, k) {
			return fmt.Errorf("%s is not a cabled switch port: run roce-twin traffic --state-dir %s for the list", k, stateDir)
		}
	}
	if drop != "" {
		f.Drops = append(f.Drops, drop)
	}
	if storm != "" {
		f.Storms = append(f.Storms, storm)
	}
	return writeJSONFile(filepath.Join(stateDir, faultsFile), f)
}

func cabled(cables []cable, key string) bool {
	for _, c := range cables {
		if c.Switch+"/"+c.Port == key {
			return true
		}
	}
	return false
}

// writeJSONFile replaces path atomically, so serve never reads half a file.
func writeJSONFile(path string, v any) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
