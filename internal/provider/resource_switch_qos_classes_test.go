package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// twoClassConfig is leafConfig plus a storage class on SONiC's second stock lossless priority.
const twoClassConfig = `
resource "roce_switch_qos" "leaf1" {
  address        = %q
  ports          = ["Ethernet0", "Ethernet8"]
  cable_length_m = 5
  rdma = { dscp = [26], priority = 3 }
  cnp  = { dscp = 48, priority = 6 }
  ecn  = { min_threshold_bytes = 102400, max_threshold_bytes = 153600, mark_probability_percent = 100 }
  pfc  = { pause_threshold_bytes = 256000 }
  lossless_classes = [{
    name     = "storage"
    dscp     = [34]
    priority = 4
    ecn      = { min_threshold_bytes = %d, max_threshold_bytes = 400000 }
    pfc      = { pause_threshold_bytes = 500000 }
  }]
}
`

// TestSwitchQoSTwoLosslessClasses applies a compute and a storage class to a SONiC 202511 twin:
// both priorities get a priority group of their own, PFC, a scheduler and a WRED profile each,
// and the buffer manager builds the lossless group of both; a second plan is empty, a change of
// the storage class's ECN is one field, the import reads the class back, and the destroy
// leaves the switch as it was.
func TestSwitchQoSTwoLosslessClasses(t *testing.T) {
	f := newSwitchFixture(t, switchtwin.Options{Release: "202511"})
	before := f.twin.Snapshot()
	const addr = "roce_switch_qos.leaf1"
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             f.unchangedSince(before),
		Steps: []resource.TestStep{
			{
				Config: f.config(twoClassConfig, f.addr, 200000),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("in_sync"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("lossless_classes").AtSliceIndex(0).AtMapKey("scheduler"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"mode": knownvalue.StringExact("dwrr"), "weight": knownvalue.Int64Exact(25),
					})),
				},
				Check: func(*terraform.State) error {
					return f.expect(map[string]map[string]string{
						"DSCP_TO_TC_MAP|ROCE":                     {"26": "3", "34": "4", "48": "6", "24": "0"},
						"TC_TO_PRIORITY_GROUP_MAP|ROCE":           {"3": "3", "4": "4", "0": "0", "6": "0"},
						"PFC_PRIORITY_TO_PRIORITY_GROUP_MAP|ROCE": {"3": "3", "4": "4"},
						"PORT_QOS_MAP|Ethernet0":                  {"pfc_enable": "3,4", "pfc_to_pg_map": "ROCE"},
						"PORT_QOS_MAP|Ethernet8":                  {"pfc_enable": "3,4"},
						"QUEUE|Ethernet0|3":                       {"scheduler": "ROCE_RDMA", "wred_profile": "ROCE_LOSSLESS"},
						"QUEUE|Ethernet8|4":                       {"scheduler": "ROCE_storage", "wred_profile": "ROCE_storage"},
						"SCHEDULER|ROCE_RDMA":                     {"type": "DWRR", "weight": "50"},
						"SCHEDULER|ROCE_storage":                  {"type": "DWRR", "weight": "25"},
						"WRED_PROFILE|ROCE_LOSSLESS":              {"ecn": "ecn_all", "green_min_threshold": "102400", "green_max_threshold": "153600"},
						"WRED_PROFILE|ROCE_storage":               {"ecn": "ecn_all", "green_min_threshold": "200000", "green_max_threshold": "400000", "green_drop_probability": "100"},
						// buffermgrd's one group for the run of lossless priorities 3-4.
						"BUFFER_PG|Ethernet0|3-4": {"profile": "pg_lossless_400000_5m_profile"},
						"BUFFER_PG|Ethernet8|3-4": {"profile": "pg_lossless_400000_5m_profile"},
					})
				},
			},
			{Config: f.config(twoClassConfig, f.addr, 200000), PlanOnly: true},
			{
				Config: f.config(twoClassConfig, f.addr, 190000),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("planned_operations"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringRegexp(regexp.MustCompile(`WRED_PROFILE/ROCE_storage.*green_min_threshold.*190000`)),
					})),
				}},
				Check: func(*terraform.State) error {
					return f.expect(map[string]map[string]string{"WRED_PROFILE|ROCE_storage": {"green_min_threshold": "190000"}})
				},
			},
			{
				// The class is read back from its queue's scheduler; its pause threshold, like
				// pfc's, is a design input the switch never stores.
				ResourceName:            addr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"pfc", "lossless_classes.0.pfc", "planned_operations", "restore_point"},
			},
		},
	})
}

// TestSwitchQoSTwoClassesRefusedAtPlan: a class that clashes with the default one, or that
// tips the buffer over, is refused at plan with the attribute and numbers, before any Set.
func TestSwitchQoSTwoClassesRefusedAtPlan(t *testing.T) {
	f := newSwitchFixture(t, switchtwin.Options{Release: "202511"})
	body := `
resource "roce_switch_qos" "leaf1" {
  address = %q
  ports   = ["Ethernet0", "Ethernet8"]
  ecn     = { min_threshold_bytes = %d, max_threshold_bytes = %d }
  pfc     = { pause_threshold_bytes = %d }
  lossless_classes = [{ name = "storage", dscp = [%d], priority = %d,
    ecn = { min_threshold_bytes = %d, max_threshold_bytes = %d }, pfc = { pause_threshold_bytes = %d } }]
}
`
	before := f.twin.Snapshot()
	for _, tc := range []struct {
		name string
		args []any
		want string
	}{
		{"shared DSCP", []any{102400, 153600, 256000, 26, 4, 200000, 400000, 500000},
			`lossless_classes\[0\]\.dscp\[0\] is 26, which lossless class "rdma" already uses`},
		{"shared priority", []any{102400, 153600, 256000, 27, 3, 200000, 400000, 500000},
			`lossless_classes\[0\]\.priority is 3, the priority of lossless class "rdma"`},
		{"CNP priority", []any{102400, 153600, 256000, 50, 6, 200000, 400000, 500000},
			`lossless_classes\[0\]\.priority is 6, the priority of CNPs \(cnp\.priority\)`},
		// One class of 25 MB pause on two ports fits the 67737959 B ingress pool; two do not.
		{"buffer too small", []any{10000000, 20000000, 25000000, 34, 4, 10000000, 20000000, 25000000},
			`2 ports x 50501760 B = 101003520 B exceeds the SN5600 ingress lossless pool of 67737959 B`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cliTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories,
				Steps: []resource.TestStep{{
					Config:      f.config(body, append([]any{f.addr}, tc.args...)...),
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(strings.ReplaceAll(tc.want, " ", `\s+`)),
				}},
			})
			if err := f.unchangedSince(before)(nil); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestSwitchQoSOneClassStatePlansNoChange: a state written before lossless_classes existed
// (the attribute absent, as the previous release's schema wrote it) plans no change under the
// same configuration, through the real CLI and a local build of the provider.
func TestSwitchQoSOneClassStatePlansNoChange(t *testing.T) {
	f := newSwitchFixture(t, switchtwin.Options{})
	cli := newTerraformCLI(t, map[string]string{
		"versions.tf": "terraform {\n  required_providers {\n    roce = { source = \"clusterbid/roce\" }\n  }\n}\n",
		"main.tf":     f.config(leafConfig, f.addr, 102400, 256000),
	})
	if out, code := cli.run("apply", "-auto-approve", "-input=false"); code != 0 {
		t.Fatalf("apply failed:\n%s", out)
	}
	statePath := filepath.Join(cli.dir, "terraform.tfstate")
	raw, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	var state map[string]any
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatal(err)
	}
	attrs, ok := firstInstanceAttributes(state)
	if !ok {
		t.Fatalf("state has no resource instance: %s", raw)
	}
	if v, present := attrs["lossless_classes"]; !present || v != nil {
		t.Fatalf("state has lossless_classes = %v (present %v), want null", v, present)
	}
	delete(attrs, "lossless_classes")
	if raw, err = json.MarshalIndent(state, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(statePath, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, code := cli.run("plan", "-detailed-exitcode", "-input=false"); code != 0 {
		t.Fatalf("a one-class state without lossless_classes plans a change (exit %d):\n%s", code, out)
	}
	if out, code := cli.run("destroy", "-auto-approve", "-input=false"); code != 0 {
		t.Fatalf("destroy failed:\n%s", out)
	}
}

// firstInstanceAttributes is the attributes object of a state file's first resource instance.
func firstInstanceAttributes(state map[string]any) (map[string]any, bool) {
	resources, ok := state["resources"].([]any)
	if !ok || len(resources) == 0 {
		return nil, false
	}
	res, ok := resources[0].(map[string]any)
	if !ok {
		return nil, false
	}
	instances, ok := res["instances"].([]any)
	if !ok || len(instances) == 0 {
		return nil, false
	}
	inst, ok := instances[0].(map[string]any)
	if !ok {
		return nil, false
	}
	attrs, ok := inst["attributes"].(map[string]any)
	return attrs, ok
}

// TestLosslessClassesUnknownAtPlan passes the classes through a value known only after apply,
// as a module's inputs are: the plan waits for them, and the apply writes the class.
func TestLosslessClassesUnknownAtPlan(t *testing.T) {
	f := newSwitchFixture(t, switchtwin.Options{Release: "202511"})
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config: f.config(`
resource "terraform_data" "classes" {
  input = [{ name = "storage", dscp = [34], priority = 4,
    ecn = { min_threshold_bytes = 200000, max_threshold_bytes = 400000 }, pfc = { pause_threshold_bytes = 500000 } }]
}

resource "roce_switch_qos" "leaf" {
  address          = %q
  ports            = ["Ethernet0", "Ethernet4"]
  ecn              = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }
  pfc              = { pause_threshold_bytes = 256000 }
  lossless_classes = terraform_data.classes.output
}
`, f.addr),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("roce_switch_qos.leaf", tfjsonpath.New("in_sync"), knownvalue.Bool(true)),
			},
			Check: func(*terraform.State) error {
				return f.expect(map[string]map[string]string{"QUEUE|Ethernet4|4": {"scheduler": "ROCE_storage", "wred_profile": "ROCE_storage"}})
			},
		}},
	})
}
