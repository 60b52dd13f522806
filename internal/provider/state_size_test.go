package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// hostStateSize is what the hosts' instances add to a state file, per host, in all and by
// resource (mode.type.name, without the module path).
type hostStateSize struct {
	PerHost int
	By      map[string]int
}

// stateBytesPerHost measures the state file in dir: the state with every instance keyed by a
// host name, less the state without them, over the hosts; and the same for each resource's
// instances alone. Both sides are written as Terraform writes its state (JSON indented by two
// spaces, terraform v1.8.5, internal/states/statefile/version4.go), so the figure is the bytes
// a host costs in terraform.tfstate, what Terraform copies after every applied instance.
func stateBytesPerHost(t *testing.T, dir string, hosts []string) hostStateSize {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	var state map[string]any
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatalf("terraform.tfstate: %v", err)
	}
	resources, _ := state["resources"].([]any)
	// without returns the state's size without the host instances of the resources drop selects.
	without := func(drop func(r map[string]any) bool) int {
		var rest []any
		for _, r := range resources {
			r, _ := r.(map[string]any)
			if !drop(r) {
				rest = append(rest, r)
				continue
			}
			kept := map[string]any{}
			for k, v := range r {
				kept[k] = v
			}
			instances, _ := r["instances"].([]any)
			var left []any
			for _, i := range instances {
				if key, _ := i.(map[string]any)["index_key"].(string); !slices.Contains(hosts, key) {
					left = append(left, i)
				}
			}
			if len(left) > 0 {
				kept["instances"] = left
				rest = append(rest, kept)
			}
		}
		return indentedSize(t, map[string]any{"version": state["version"], "terraform_version": state["terraform_version"],
			"serial": state["serial"], "lineage": state["lineage"], "outputs": state["outputs"], "check_results": state["check_results"], "resources": rest})
	}
	all := without(func(map[string]any) bool { return false })
	size := hostStateSize{PerHost: (all - without(func(map[string]any) bool { return true })) / len(hosts), By: map[string]int{}}
	for _, r := range resources {
		r, _ := r.(map[string]any)
		name := fmt.Sprintf("%s.%s", r["type"], r["name"])
		if r["mode"] == "data" {
			name = "data." + name
		}
		if n := (all - without(func(o map[string]any) bool { return sameResource(o, r) })) / len(hosts); n > 0 {
			size.By[name] += n
		}
	}
	return size
}

func sameResource(a, b map[string]any) bool {
	return a["module"] == b["module"] && a["mode"] == b["mode"] && a["type"] == b["type"] && a["name"] == b["name"]
}

func indentedSize(t *testing.T, v any) int {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// TestStateBytesPerHost checks the measurement on state files written here: a switch's
// instance costs the hosts nothing, and a host instance's attribute that grows by n bytes on
// each host grows the figure by n, in all and for its resource.
func TestStateBytesPerHost(t *testing.T) {
	write := func(payload int) string {
		dir := t.TempDir()
		attrs := func(key string) map[string]any {
			return map[string]any{"index_key": key, "attributes": map[string]any{"x": strings.Repeat("a", payload)}}
		}
		writeJSON(t, filepath.Join(dir, "terraform.tfstate"), map[string]any{
			"version": 4, "serial": 3, "lineage": "l",
			"resources": []any{
				map[string]any{"mode": "managed", "type": "roce_switch_qos", "name": "leaf", "instances": []any{attrs("leaf1")}},
				map[string]any{"mode": "data", "type": "roce_host_facts", "name": "node", "instances": []any{attrs("gpu1"), attrs("gpu2")}},
			},
		})
		return dir
	}
	hosts := []string{"gpu1", "gpu2"}
	small, large := stateBytesPerHost(t, write(0), hosts), stateBytesPerHost(t, write(1000), hosts)
	if small.PerHost <= 0 || small.By["data.roce_host_facts.node"] != small.PerHost {
		t.Errorf("empty attributes: %+v, want a positive figure, all of it data.roce_host_facts.node", small)
	}
	if _, ok := small.By["roce_switch_qos.leaf"]; ok {
		t.Errorf("the switch was counted as a host's: %+v", small)
	}
	if d := large.PerHost - small.PerHost; d != 1000 {
		t.Errorf("1000 more bytes per host grew the figure by %d: %+v against %+v", d, large, small)
	}
	if d := large.By["data.roce_host_facts.node"] - small.By["data.roce_host_facts.node"]; d != 1000 {
		t.Errorf("1000 more bytes per host grew data.roce_host_facts.node by %d", d)
	}
}
