package hosttwin

import "encoding/json"

// Endpoints is the content of endpoints.json: how to reach every host.
type Endpoints struct {
	// Hosts are the fleet's hosts in order.
	Hosts []Host `json:"hosts"`
	// KnownHostsFile has the entries of all hosts (Fleet.KnownHostsFile).
	KnownHostsFile string `json:"known_hosts_file"`
}

// WriteEndpoints writes the fleet's endpoints as JSON to path (typically
// endpoints.json), for tools and Terraform configurations that use the
// fleet: jsondecode(file(path)).hosts.
func (f *Fleet) WriteEndpoints(path string) error {
	e := Endpoints{Hosts: f.Hosts(), KnownHostsFile: f.KnownHostsFile()}
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(b, '\n'), 0o644)
}
