package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// configVariables builds a one-variable set for a test step.
func configVariables(name string, value int) config.Variables {
	return config.Variables{name: config.IntegerVariable(value)}
}

// cliTest runs tc through the real Terraform CLI against twins: the integration tier. The
// fast tier (go test -short, make unit) leaves it out; make test runs it. The fast tier's
// CLI tests replay recorded hosts instead (replay_test.go) and call resource.ParallelTest.
func cliTest(t *testing.T, tc resource.TestCase) {
	t.Helper()
	skipIntegration(t)
	resource.UnitTest(t, tc)
}

// skipIntegration leaves a test that drives twins through the Terraform CLI out of the fast
// tier.
func skipIntegration(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("drives twins through the Terraform CLI: left out of the fast tier (-short, make unit); make test runs it")
	}
}
