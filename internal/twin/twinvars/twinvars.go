// Package twinvars describes a running twin fabric to its users: endpoints.json for tests and
// tools, and the Terraform variables of examples/demo.
package twinvars

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// Endpoints is the endpoints.json of roce-twin: what a test or a tfvars file needs to reach the twins.
type Endpoints struct {
	Switches []SwitchEndpoint `json:"switches"`
	Hosts    []hosttwin.Host  `json:"hosts"`
	// SSH is one login that reaches every host, for a provider's ssh block.
	SSH *FleetSSH `json:"ssh,omitempty"`
}

// FleetSSH is one login that reaches every host of a fleet.
type FleetSSH struct {
	User           string `json:"user"`
	PrivateKeyFile string `json:"private_key_file"`
	KnownHostsFile string `json:"known_hosts_file"`
}

// SwitchEndpoint is how to reach one switch twin.
type SwitchEndpoint struct {
	Name     string `json:"name"`
	Address  string `json:"address"`
	Username string `json:"username"`
	Password string `json:"password"`
	CAFile   string `json:"ca_file"`
	Release  string `json:"release"`
	HWSKU    string `json:"hwsku"`
	// OS is sonic (gNMI) or cumulus (NVUE).
	OS string `json:"os"`
	// Ports are the front-panel ports in order (Ethernet0, Ethernet4, ... or swp1, swp2, ...).
	Ports []string `json:"ports"`
}

// TFVars is the terraform.tfvars.json that roce-twin up --tfvars writes: the variables of
// examples/demo, in the shapes examples/modules/rail-optimized-pod takes. Every key is always
// present (null when the fabric has no switches or no hosts), so a root module can declare the
// variables once and run against any fabric roce-twin starts.
type TFVars struct {
	Switches []Switch `json:"switches"`
	Hosts    []Host   `json:"hosts"`
	// GNMI is the provider's gnmi block: every switch twin of a fabric shares one login.
	GNMI *GNMI `json:"gnmi"`
	// NVUE is the provider's nvue block, for the Cumulus twins (null without them).
	NVUE *NVUE `json:"nvue"`
	// SSH is the provider's ssh block: one key and known_hosts file reach every host twin.
	SSH *FleetSSH `json:"ssh"`
	// OFED is the stack the host twins run and the twin repository that carries it, as
	// roce_host_bootstrap's ofed attribute takes it.
	OFED *OFED `json:"ofed"`
}

// Switch is one switch as examples/demo takes it.
type Switch struct {
	Name    string   `json:"name"`
	Address string   `json:"address"`
	OS      string   `json:"os"`
	Ports   []string `json:"ports"`
	// SONiCRelease is null on a Cumulus switch.
	SONiCRelease *string `json:"sonic_release"`
	HWSKU        string  `json:"hwsku"`
}

// Host is one host as examples/demo takes it.
type Host struct {
	Name    string `json:"name"`
	Address string `json:"address"`
	Profile string `json:"profile"`
}

// NVUE is the provider's nvue block.
type NVUE struct {
	Username string `json:"username"`
	Password string `json:"password"`
	CAFile   string `json:"ca_file"`
}

// GNMI is the provider's gnmi block.
type GNMI struct {
	Username string `json:"username"`
	Password string `json:"password"`
	CAFile   string `json:"ca_file"`
}

// OFED is roce_host_bootstrap's ofed attribute.
type OFED struct {
	Flavor  string `json:"flavor"`
	Version string `json:"version"`
	RepoURL string `json:"repo_url"`
	// RepoURLs is the repository of each package family among the hosts ("debian": the apt
	// one, "rhel": the dnf one), for a fleet of both.
	RepoURLs map[string]string `json:"repo_urls"`
	Trusted  bool              `json:"trusted"`
}

// New builds the variables of a running fabric from its endpoints; the OFED stack is the
// hosts' profiles', which must agree on it.
func New(ep Endpoints) (TFVars, error) {
	v := TFVars{Switches: []Switch{}, Hosts: []Host{}, SSH: ep.SSH}
	for _, sw := range ep.Switches {
		s := Switch{Name: sw.Name, Address: sw.Address, OS: sw.OS, Ports: sw.Ports, HWSKU: sw.HWSKU}
		if sw.OS == OSCumulus {
			v.NVUE = &NVUE{Username: sw.Username, Password: sw.Password, CAFile: sw.CAFile}
		} else {
			s.OS, s.SONiCRelease = OSSONiC, &sw.Release
			v.GNMI = &GNMI{Username: sw.Username, Password: sw.Password, CAFile: sw.CAFile}
		}
		v.Switches = append(v.Switches, s)
	}
	for _, h := range ep.Hosts {
		v.Hosts = append(v.Hosts, Host{Name: h.Name, Address: h.Address, Profile: h.Profile})
	}
	for _, h := range ep.Hosts {
		ofed, err := TwinOFED(h.Profile)
		if err != nil {
			return v, err
		}
		if v.OFED == nil {
			v.OFED = &ofed
			continue
		}
		if ofed.Flavor != v.OFED.Flavor || ofed.Version != v.OFED.Version {
			return v, fmt.Errorf("host %s runs %s %s, host %s %s %s: the hosts of one fabric share one OFED stack",
				h.Name, ofed.Flavor, ofed.Version, ep.Hosts[0].Name, v.OFED.Flavor, v.OFED.Version)
		}
		for fam, url := range ofed.RepoURLs {
			v.OFED.RepoURLs[fam] = url
		}
	}
	return v, nil
}

// FrontPanelPorts are the twin's ports in front-panel order (Ethernet0, Ethernet4, ...).
func FrontPanelPorts(tw *switchtwin.Twin) []string {
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

// TwinOFED is the OFED stack a host of profile runs, from the twin apt repository (the dnf
// one for a Rocky profile); a host on
// the inbox stack gets the newest DOCA-OFED the repository carries.
func TwinOFED(profile string) (OFED, error) {
	p, ok := hostprofile.Lookup(profile)
	if !ok {
		return OFED{}, fmt.Errorf("unknown host profile %q (have %v)", profile, hostprofile.Names())
	}
	repo := hostprofile.Repo{Flavor: p.Stack, Version: p.OFEDVersion}
	if p.OFEDVersion == "" {
		for _, r := range hostprofile.Repos() {
			if r.Flavor == hostprofile.StackDOCA {
				repo = r // Repos lists versions in ascending order: keep the last
			}
		}
	}
	url, family := "file:"+repo.Path(), hostprofile.FamilyDebian
	if p.RHEL() {
		url, family = "file://"+hostprofile.RHELRepoPath(repo.Flavor, repo.Version), hostprofile.FamilyRHEL
	}
	return OFED{Flavor: repo.Flavor, Version: repo.Version, RepoURL: url, RepoURLs: map[string]string{family: url}, Trusted: true}, nil
}

// Write writes v to path atomically; it holds the switches' password, so only the
// owner may read it.
func Write(path string, v TFVars) error {
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
