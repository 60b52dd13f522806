// Package layers holds the test that keeps the import graph of the module in its layers
// (DESIGN.md): each package imports only the layers below it, twins only reach products
// from tests and tools, and the domain packages do no I/O.
package layers

import (
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/clusterbid/terraform-provider-roce/"

// allowed lists, for each package of the module, the packages of the module its non-test
// files may import. A package missing here fails the test: place it in a layer first.
var allowed = map[string][]string{
	"":                                    {"internal/provider"},
	"internal/shell":                      {},
	"internal/configcheck":                {},                                       // the transports' problem type: no I/O
	"internal/tlspin":                     {},                                       // certificate pins for the TLS transports: no I/O
	"internal/violation":                  {},                                       // the plan-time rules' result shape: no I/O
	"internal/fabric":                     {"internal/shell", "internal/violation"}, // quoting for the rendered nccl.conf only: no I/O
	"internal/sonic":                      {"internal/fabric"},
	"internal/gnmi":                       {"internal/configcheck", "internal/tlspin"},   // the transport: no switch data model
	"internal/gnmi/gnmitest":              {"internal/gnmi", "internal/twin/switchtwin"}, // test support
	"internal/sonicdb":                    {"internal/gnmi", "internal/sonic"},
	"internal/nvue":                       {"internal/configcheck", "internal/tlspin"},
	"internal/switchcfg":                  {"internal/fabric", "internal/gnmi", "internal/health", "internal/nvue", "internal/violation"}, // the driver seam: no OS
	"internal/switchcfg/sonic":            {"internal/fabric", "internal/gnmi", "internal/health", "internal/sonic", "internal/sonicdb", "internal/switchcfg", "internal/violation"},
	"internal/switchcfg/cumulus":          {"internal/fabric", "internal/health", "internal/nvue", "internal/sonic", "internal/switchcfg", "internal/violation"}, // sonic: natural port order
	"internal/switchcfg/drivers":          {"internal/sonic", "internal/switchcfg", "internal/switchcfg/cumulus", "internal/switchcfg/sonic"},                    // the registry
	"internal/switchcfg/switchcfgtest":    {"internal/fabric", "internal/switchcfg", "internal/violation"},                                                       // test support
	"internal/host/ssh":                   {"internal/configcheck", "internal/shell"},
	"internal/host/facts":                 {"internal/shell"},
	"internal/host":                       {"internal/host/facts", "internal/host/ssh", "internal/shell"},
	"internal/host/hostreplay":            {"internal/host", "internal/host/ssh", "internal/shell"}, // test support: recorded hosts
	"internal/host/tasks":                 {"internal/fabric", "internal/host", "internal/host/facts", "internal/host/ssh", "internal/shell"},
	"internal/ncclprofile":                {"internal/fabric", "internal/host/facts", "internal/violation"},
	"internal/verdict":                    {}, // the one verdict shape: no I/O
	"internal/preflight":                  {"internal/host", "internal/host/facts", "internal/verdict"},
	"internal/health":                     {"internal/verdict"}, // verdicts from counter deltas: no I/O
	"internal/nccltest":                   {"internal/host/facts", "internal/preflight", "internal/shell", "internal/verdict"},
	"internal/telemetry":                  {"internal/health", "internal/host", "internal/host/facts"}, // host counters
	"internal/provider":                   {"internal/configcheck", "internal/fabric", "internal/gnmi", "internal/host", "internal/host/facts", "internal/host/ssh", "internal/host/tasks", "internal/ncclprofile", "internal/preflight", "internal/shell", "internal/nvue", "internal/sonic", "internal/sonicdb", "internal/switchcfg", "internal/switchcfg/drivers", "internal/health", "internal/telemetry", "internal/nccltest", "internal/verdict", "internal/violation"},
	"internal/twin/hostprofile":           {"internal/shell"},
	"internal/twin/hosttwin":              {"internal/twin/hostprofile"},
	"internal/twin/hosttwin/hosttwintest": {"internal/twin/hosttwin"},
	"internal/twin/switchtwin":            {"internal/fabric", "internal/sonic"},
	"internal/twin/nvuetwin":              {"internal/nvue", "internal/twin/switchtwin"}, // its PKI
	"internal/twin/traffic":               {"internal/sonic", "internal/twin/hostprofile", "internal/twin/hosttwin", "internal/twin/switchtwin"},
	"internal/twin/standin":               {}, // the Go stand-in tools: read the fake sysfs, no product code
	"tools/twin-standin":                  {"internal/twin/standin"},
	"internal/twin/twinvars":              {"internal/nvue", "internal/sonic", "internal/twin/hostprofile", "internal/twin/hosttwin", "internal/twin/nvuetwin", "internal/twin/switchtwin"},
	"tools/bench":                         {"internal/host/ssh", "internal/shell", "internal/twin/hosttwin", "internal/twin/switchtwin", "internal/twin/twinvars"},
	"tools/roce-twin":                     {"internal/twin/hosttwin", "internal/twin/traffic", "internal/twin/twinvars"},
	"tools/layers":                        {},
	"tools/release":                       {},
}

type pkg struct {
	ImportPath string
	Imports    []string
}

// check returns one line per import that leaves its layer, and per package with no layer.
func check(pkgs []pkg) []string {
	var bad []string
	for _, p := range pkgs {
		name := strings.TrimSuffix(strings.TrimPrefix(p.ImportPath+"/", module), "/")
		if p.ImportPath+"/" == module {
			name = ""
		}
		ok, known := allowed[name]
		if !known {
			bad = append(bad, fmt.Sprintf("%s has no layer: add it to allowed in tools/layers and to DESIGN.md", p.ImportPath))
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(imp, module)
			if !slices.Contains(ok, dep) {
				bad = append(bad, fmt.Sprintf("%s imports %s, outside its layer", name, dep))
			}
		}
	}
	return bad
}

func TestImportsStayInTheirLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < len(allowed)/2 {
		t.Fatalf("go list found %d packages, fewer than the layers name", len(pkgs))
	}
	for _, line := range check(pkgs) {
		t.Error(line)
	}
}

// TestCheckCatchesABackEdge: the check fails on a domain package importing the provider, on
// a product importing a twin and on a package nobody placed.
func TestCheckCatchesABackEdge(t *testing.T) {
	got := check([]pkg{
		{ImportPath: module + "internal/fabric", Imports: []string{module + "internal/provider", "fmt"}},
		{ImportPath: module + "internal/switchcfg", Imports: []string{module + "internal/twin/switchtwin"}},
		{ImportPath: module + "internal/newthing"},
	})
	want := []string{
		"internal/fabric imports internal/provider, outside its layer",
		"internal/switchcfg imports internal/twin/switchtwin, outside its layer",
		module + "internal/newthing has no layer: add it to allowed in tools/layers and to DESIGN.md",
	}
	if !slices.Equal(got, want) {
		t.Errorf("check = %q, want %q", got, want)
	}
}
