package provider

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin/hosttwintest"
)

// podFleet starts host twins of their own for one test, apart from the package's shared
// fleet, and stops them when the test ends.
func podFleet(t *testing.T, specs ...hosttwin.HostSpec) *hosttwin.Fleet {
	t.Helper()
	return hosttwintest.Start(t, hosttwin.Options{Hosts: specs})
}

// copyExamples copies the named directories of examples/ into a temporary examples/ tree, so
// relative module sources (../modules/...) resolve and no state lands in the repository.
// It returns the temporary examples directory.
func copyExamples(t *testing.T, dirs ...string) string {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "examples")
	for _, d := range dirs {
		err := filepath.WalkDir(filepath.Join(src, d), func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := e.Name()
			if strings.HasPrefix(name, ".terraform") || strings.HasPrefix(name, "terraform.tfstate") || strings.HasPrefix(name, "terraform.tfvars") {
				if e.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			rel, err := filepath.Rel(src, path)
			if err != nil {
				return err
			}
			if e.IsDir() {
				return os.MkdirAll(filepath.Join(dst, rel), 0o755)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dst, rel), raw, 0o600)
		})
		if err != nil {
			t.Fatalf("copy examples/%s: %v", d, err)
		}
	}
	return dst
}

// newTerraformCLIIn is newTerraformCLI for a configuration that is already on disk in dir.
func newTerraformCLIIn(t *testing.T, dir string) *terraformCLI {
	t.Helper()
	skipIntegration(t)
	rc := filepath.Join(t.TempDir(), ".terraformrc")
	if err := os.WriteFile(rc, []byte("provider_installation {\n  dev_overrides {\n    \"clusterbid/roce\" = \""+providerBinary(t)+"\"\n  }\n  direct {}\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return &terraformCLI{t: t, dir: dir, env: append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")}
}

// writeJSON writes v as JSON to path.
func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

// outputs returns terraform output -json as output name to value.
func (c *terraformCLI) outputs() map[string]json.RawMessage {
	c.t.Helper()
	out, code := c.run("output", "-json")
	if code != 0 {
		c.t.Fatalf("terraform output failed:\n%s", out)
	}
	var raw map[string]struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		c.t.Fatalf("terraform output -json: %v\n%s", err, out)
	}
	values := make(map[string]json.RawMessage, len(raw))
	for k, v := range raw {
		values[k] = v.Value
	}
	return values
}

// decodeOutput decodes output name into v.
func decodeOutput(t *testing.T, outputs map[string]json.RawMessage, name string, v any) {
	t.Helper()
	raw, ok := outputs[name]
	if !ok {
		t.Fatalf("no output %q", name)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("output %s: %v\n%s", name, err, raw)
	}
}

// writeFiles writes files (name to content) into dir, creating it.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
