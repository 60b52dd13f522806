package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestExamplesApply applies every documentation example that needs no switch or host, so
// the examples users copy from the docs are known to work.
func TestExamplesApply(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "..", "examples", "functions", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no function examples found: %v", err)
	}
	dirs = append(dirs, filepath.Join("..", "..", "examples", "quickstart"))
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				TerraformVersionChecks:   functionsVersionCheck,
				ProtoV6ProviderFactories: testProviderFactories,
				Steps: []resource.TestStep{{
					ConfigDirectory: config.StaticDirectory(dir),
				}},
			})
		})
	}
}

// TestEnvironmentVariablesDocumented keeps the provider page's table in step with env.go.
func TestEnvironmentVariablesDocumented(t *testing.T) {
	src, err := os.ReadFile("env.go")
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join("..", "..", "templates", "index.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile(`"(ROCE_[A-Z_]+)"`).FindAllSubmatch(src, -1)
	if len(names) < 30 {
		t.Fatalf("found only %d ROCE_ variables in env.go", len(names))
	}
	for _, n := range names {
		if !regexp.MustCompile("`" + string(n[1]) + "`").Match(page) {
			t.Errorf("%s is not documented in templates/index.md.tmpl", n[1])
		}
	}
}
