package provider

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// A provider binary for tests that drive the Terraform CLI directly, through dev_overrides,
// as users of a local build do. terraform-plugin-testing cannot check configurations whose
// instances have string keys (for_each), which the examples use.
var (
	providerBinaryOnce sync.Once
	providerBinaryDir  string
	providerBinaryErr  error
)

func providerBinary(t *testing.T) string {
	t.Helper()
	providerBinaryOnce.Do(func() {
		providerBinaryDir, providerBinaryErr = os.MkdirTemp("", "roce-provider-bin-") //nolint:usetesting // shared by every test of the binary
		if providerBinaryErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(providerBinaryDir, "terraform-provider-roce"), "../..").CombinedOutput()
		if err != nil {
			providerBinaryErr = errors.New(string(out))
		}
	})
	if providerBinaryErr != nil {
		t.Fatalf("build the provider: %v", providerBinaryErr)
	}
	return providerBinaryDir
}

// terraformCLI runs the real Terraform CLI in dir against a local build of the provider.
type terraformCLI struct {
	t   *testing.T
	dir string
	env []string
}

func newTerraformCLI(t *testing.T, files map[string]string) *terraformCLI {
	t.Helper()
	skipIntegration(t)
	dir := t.TempDir()
	rc := filepath.Join(dir, ".terraformrc")
	if err := os.WriteFile(rc, []byte("provider_installation {\n  dev_overrides {\n    \"clusterbid/roce\" = \""+providerBinary(t)+"\"\n  }\n  direct {}\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := &terraformCLI{t: t, dir: dir, env: append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")}
	c.write(files)
	return c
}

// write replaces files in the working directory.
func (c *terraformCLI) write(files map[string]string) {
	c.t.Helper()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(c.dir, name), []byte(content), 0o600); err != nil {
			c.t.Fatal(err)
		}
	}
}

// run runs terraform with args and returns its output and exit code.
func (c *terraformCLI) run(args ...string) (string, int) {
	c.t.Helper()
	cmd := exec.Command(os.Getenv("TF_ACC_TERRAFORM_PATH"), append(args, "-no-color")...)
	cmd.Dir, cmd.Env = c.dir, c.env
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	}
	c.t.Fatalf("terraform %v: %v", args, err)
	return "", -1
}

// applyPlanDestroy applies, requires a second plan without changes, calls check, and
// destroys.
func (c *terraformCLI) applyPlanDestroy(check func()) {
	c.t.Helper()
	if out, code := c.run("apply", "-auto-approve", "-input=false"); code != 0 {
		c.t.Fatalf("apply failed:\n%s", out)
	}
	if out, code := c.run("plan", "-detailed-exitcode", "-input=false"); code != 0 {
		c.t.Fatalf("second plan is not empty (exit %d):\n%s", code, out)
	}
	check()
	if out, code := c.run("destroy", "-auto-approve", "-input=false"); code != 0 {
		c.t.Fatalf("destroy failed:\n%s", out)
	}
}
