package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// tfvars is the terraform.tfvars.json that up --tfvars writes: the variables of
// examples/demo, in the shapes examples/modules/rail-optimized-pod takes. Every key is always
// present (null when the fabric has no switches or no hosts), so a root module can declare the
// variables once and run against any fabric roce-twin starts.
type tfvars struct {
	Switches []tfSwitch `json:"switches"`
	Hosts    []tfHost   `json:"hosts"`
	// GNMI is the provider's gnmi block: every switch twin of a fabric shares one login.
	GNMI *tfGNMI `json:"gnmi"`
	// SSH is the provider's ssh block: one key and known_hosts file reach every host twin.
	SSH *fleetSSH `json:"ssh"`
	// OFED is the stack the host twins run and the twin repository that carries it, as
	// roce_host_bootstrap's ofed attribute takes it.
	OFED *tfOFED `json:"ofed"`
}

type tfSwitch struct {
	Name         string   `json:"name"`
	Address      string   `json:"address"`
	Ports        []string `json:"ports"`
	SONiCRelease string   `json:"sonic_release"`
	HWSKU        string   `json:"hwsku"`
}

type tfHost struct {
	Name    string `json:"name"`
	Address string `json:"address"`
	Profile string `json:"profile"`
}

type tfGNMI struct {
	Username string `json:"username"`
	Password string `json:"password"`
	CAFile   string `json:"ca_file"`
}

type tfOFED struct {
	Flavor  string `json:"flavor"`
	Version string `json:"version"`
	RepoURL string `json:"repo_url"`
	Trusted bool   `json:"trusted"`
}

// newTFVars builds the variables of a running fabric from its endpoints, the switch twins
// (for their ports) and the host profile.
func newTFVars(ep endpoints, twins []*switchtwin.Twin, profile string) (tfvars, error) {
	v := tfvars{Switches: []tfSwitch{}, Hosts: []tfHost{}, SSH: ep.SSH}
	for i, sw := range ep.Switches {
		v.Switches = append(v.Switches, tfSwitch{
			Name: sw.Name, Address: sw.Address, Ports: frontPanelPorts(twins[i]),
			SONiCRelease: sw.Release, HWSKU: sw.HWSKU,
		})
		v.GNMI = &tfGNMI{Username: sw.Username, Password: sw.Password, CAFile: sw.CAFile}
	}
	for _, h := range ep.Hosts {
		v.Hosts = append(v.Hosts, tfHost{Name: h.Name, Address: h.Address, Profile: h.Profile})
	}
	if len(ep.Hosts) > 0 {
		ofed, err := twinOFED(profile)
		if err != nil {
			return v, err
		}
		v.OFED = &ofed
	}
	return v, nil
}

// frontPanelPorts are the twin's ports in front-panel order (Ethernet0, Ethernet4, ...).
func frontPanelPorts(tw *switchtwin.Twin) []string {
	var ports []string
	for name := range tw.Table("PORT") {
		ports = append(ports, name)
	}
	index := func(name string) int {
		n, err := strconv.Atoi(strings.TrimPrefix(name, "Ethernet"))
		if err != nil {
			return -1
		}
		return n
	}
	slices.SortFunc(ports, func(a, b string) int {
		if d := index(a) - index(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return ports
}

// twinOFED is the OFED stack a host of profile runs, from the twin apt repository; a host on
// the inbox stack gets the newest DOCA-OFED the repository carries.
func twinOFED(profile string) (tfOFED, error) {
	p, ok := hostprofile.Lookup(profile)
	if !ok {
		return tfOFED{}, fmt.Errorf("unknown host profile %q (have %v)", profile, hostprofile.Names())
	}
	repo := hostprofile.Repo{Flavor: p.Stack, Version: p.OFEDVersion}
	if p.OFEDVersion == "" {
		for _, r := range hostprofile.Repos() {
			if r.Flavor == hostprofile.StackDOCA {
				repo = r // Repos lists versions in ascending order: keep the last
			}
		}
	}
	return tfOFED{Flavor: repo.Flavor, Version: repo.Version, RepoURL: "file:" + repo.Path(), Trusted: true}, nil
}

// writeTFVars writes v to path atomically; it holds the switches' password, so only the
// owner may read it.
func writeTFVars(path string, v tfvars) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
