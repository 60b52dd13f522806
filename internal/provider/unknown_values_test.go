package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// TestNestedObjectsUnknownAtPlan sets whole nested objects from values only known after
// apply (terraform_data outputs), as modules passing objects through do: validation waits
// for the values instead of failing, and the apply validates them.
func TestNestedObjectsUnknownAtPlan(t *testing.T) {
	f := newSwitchFixture(t, switchtwin.Options{})
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config: f.config(`
resource "terraform_data" "policy" {
  input = {
    ecn   = { min_threshold_bytes = 102400, max_threshold_bytes = 153600, mark_probability_percent = 100 }
    pfc   = { pause_threshold_bytes = 256000, ratio_min = 2.0, ratio_max = 3.0, ratio_target = 2.5 }
    ports = ["Ethernet0", "Ethernet4"]
  }
}

resource "roce_switch_qos" "leaf" {
  address = %q
  ports   = terraform_data.policy.output.ports
  ecn     = terraform_data.policy.output.ecn
  pfc     = terraform_data.policy.output.pfc
}
`, f.addr),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("roce_switch_qos.leaf", tfjsonpath.New("in_sync"), knownvalue.Bool(true)),
			},
		}},
	})
}

// TestFabricHealthListsUnknownAtValidate passes the targets through a value known only after
// apply, as a module's inputs are while Terraform validates it: validation waits, the read at
// apply samples them.
func TestFabricHealthListsUnknownAtValidate(t *testing.T) {
	f := newSwitchFixture(t, switchtwin.Options{})
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config: f.config(`
resource "terraform_data" "fabric" {
  input = { switches = [%q] }
}

data "roce_fabric_health" "f" {
  switches         = terraform_data.fabric.output.switches
  interval_seconds = 1
  require_traffic  = false
}
`, f.addr),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.roce_fabric_health.f", tfjsonpath.New("ok"), knownvalue.Bool(true)),
			},
		}},
	})
}
