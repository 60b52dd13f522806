package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/twinvars"
)

// TestUpWritesTFVars starts a small fabric with --tfvars and checks the file against
// endpoints.json and against the variables examples/demo declares, the root module it is for.
func TestUpWritesTFVars(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "roce-twin")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	state := t.TempDir()
	// A relative path, as users type it: up resolves it before the twins start.
	work := t.TempDir()
	cmd := exec.Command(bin, "up", "--state-dir", state, "--switches", "2", "--ports", "4", "--hosts", "1", "--tfvars", "vars/terraform.tfvars.json")
	cmd.Dir = work
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("up: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command(bin, "down", "--state-dir", state).Run() })

	var ep twinvars.Endpoints
	readJSON(t, filepath.Join(state, endpointsFile), &ep)
	path := filepath.Join(work, "vars", "terraform.tfvars.json")
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("tfvars file: %v, mode %v; want it written with mode 0600 (it holds the switch password)", err, st)
	}
	var v twinvars.TFVars
	readJSON(t, path, &v)

	if len(v.Switches) != 2 || v.GNMI == nil {
		t.Fatalf("tfvars switches = %+v, gnmi = %+v", v.Switches, v.GNMI)
	}
	wantPorts := []string{"Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12"}
	for i, sw := range v.Switches {
		e := ep.Switches[i]
		if sw.Name != e.Name || sw.Address != e.Address || sw.SONiCRelease == nil || *sw.SONiCRelease != "202411" || sw.OS != "sonic" || !reflect.DeepEqual(sw.Ports, wantPorts) {
			t.Errorf("tfvars switch %d = %+v, want %s at %s with ports %v", i, sw, e.Name, e.Address, wantPorts)
		}
		// One provider gnmi block must reach every switch.
		if e.Password != v.GNMI.Password || e.Username != v.GNMI.Username || e.CAFile != v.GNMI.CAFile {
			t.Errorf("switch %s logs in as %s/%s with %s; tfvars gnmi = %+v", e.Name, e.Username, e.Password, e.CAFile, *v.GNMI)
		}
	}
	if len(v.Hosts) != 1 || v.Hosts[0].Name != "gpu1" || v.Hosts[0].Address != ep.Hosts[0].Address {
		t.Errorf("tfvars hosts = %+v, endpoints hosts = %+v", v.Hosts, ep.Hosts)
	}
	if v.SSH == nil || *v.SSH != *ep.SSH {
		t.Errorf("tfvars ssh = %+v, want the fleet login %+v", v.SSH, ep.SSH)
	}
	wantOFED := twinvars.OFED{Flavor: "doca", Version: "25.10-1.7.1", RepoURL: "file:/srv/twin-apt/doca/25.10-1.7.1",
		RepoURLs: map[string]string{"debian": "file:/srv/twin-apt/doca/25.10-1.7.1"}, Trusted: true}
	if v.OFED == nil || !reflect.DeepEqual(*v.OFED, wantOFED) {
		t.Errorf("tfvars ofed = %+v, want %+v", v.OFED, wantOFED)
	}

	// Every variable the file sets is one examples/demo declares.
	var keys map[string]json.RawMessage
	readJSON(t, path, &keys)
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "demo", "variables.tf"))
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^variable "([a-z_]+)"`).FindAllStringSubmatch(string(src), -1) {
		declared[m[1]] = true
	}
	for k := range keys {
		if !declared[k] {
			t.Errorf("tfvars sets %q, which examples/demo/variables.tf does not declare", k)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, raw)
	}
}
