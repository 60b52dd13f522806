package provider

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

// cumulusTwoClassConfig is cumulusConfig plus a storage class on priority 4 (its ECN minimum
// the argument).
const cumulusTwoClassConfig = `
resource "roce_switch_qos" "leaf1" {
  address        = %q
  os             = "cumulus"
  ports          = ["swp1", "swp2"]
  cable_length_m = 5
  ecn = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }
  pfc = { pause_threshold_bytes = 256000 }
  lossless_classes = [{
    name     = "storage"
    dscp     = [34]
    priority = 4
    ecn      = { min_threshold_bytes = %d, max_threshold_bytes = 400000, mark_probability_percent = 50 }
    pfc      = { pause_threshold_bytes = 500000 }
  }]
}
`

// TestSwitchQoSCumulusTwoLosslessClasses applies a compute and a storage class to a Cumulus
// 5.14 twin through the real CLI: one PFC profile with both priorities, each class's DSCP
// mapping, egress queue, scheduler and ECN band; a second plan is empty, a change of the
// storage class's ECN is one NVUE setting, the import reads the class back (named after its
// priority, NVUE holding no name), dropping the class removes its objects, and the destroy
// leaves the switch as it was.
func TestSwitchQoSCumulusTwoLosslessClasses(t *testing.T) {
	f := newCumulusFixture(t, "5.14")
	before := f.twin.Applied()
	const addr = "roce_switch_qos.leaf1"
	two := func(ecnMin int) string { return f.provider + fmt.Sprintf(cumulusTwoClassConfig, f.addr, ecnMin) }
	expect := func(want map[string]any) error {
		a := f.twin.Applied()
		for path, v := range want {
			got, ok := nvue.Lookup(a, strings.Split(path, "/")...)
			if v == nil {
				if ok {
					return fmt.Errorf("%s = %v, want it absent", path, got)
				}
				continue
			}
			if !reflect.DeepEqual(got, v) {
				return fmt.Errorf("%s = %#v, want %#v", path, got, v)
			}
		}
		return nil
	}
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if diff := cmp.Diff(treeJSON(before), treeJSON(f.twin.Applied())); diff != "" {
				return fmt.Errorf("destroy left the switch different (-before +after):\n%s", diff)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: two(200000),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("in_sync"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("lossless_classes").AtSliceIndex(0).AtMapKey("name"), knownvalue.StringExact("storage")),
				},
				Check: func(*terraform.State) error {
					if f.twin.Applies() != 1 {
						return fmt.Errorf("%d revisions applied, want 1", f.twin.Applies())
					}
					return expect(map[string]any{
						"qos/pfc/ROCE/switch-priority/3":                                          map[string]any{},
						"qos/pfc/ROCE/switch-priority/4":                                          map[string]any{},
						"qos/traffic-pool/default-lossless/memory-percent":                        50.0,
						"qos/traffic-pool/default-lossless/switch-priority":                       nil,
						"qos/mapping/ROCE/dscp/26/switch-priority":                                3.0,
						"qos/mapping/ROCE/dscp/34/switch-priority":                                4.0,
						"qos/mapping/ROCE/dscp/48/switch-priority":                                6.0,
						"qos/egress-queue-mapping/default-global/switch-priority/4/traffic-class": 4.0,
						"qos/egress-scheduler/ROCE/traffic-class/3/bw-percent":                    50.0,
						"qos/egress-scheduler/ROCE/traffic-class/4/mode":                          "dwrr",
						"qos/egress-scheduler/ROCE/traffic-class/4/bw-percent":                    25.0,
						"qos/egress-scheduler/ROCE/traffic-class/0/bw-percent":                    25.0,
						"qos/congestion-control/ROCE/traffic-class/3/min-threshold":               102400.0,
						"qos/congestion-control/ROCE/traffic-class/4/min-threshold":               200000.0,
						"qos/congestion-control/ROCE/traffic-class/4/max-threshold":               400000.0,
						"qos/congestion-control/ROCE/traffic-class/4/probability":                 50.0,
						"qos/congestion-control/ROCE/traffic-class/4/ecn":                         "enable",
						"interface/swp2/qos/pfc/profile":                                          "ROCE",
					})
				},
			},
			{Config: two(200000), PlanOnly: true},
			{
				Config: two(190000),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("planned_operations"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("set qos/congestion-control/ROCE/traffic-class/4/min-threshold = 190000"),
					})),
				}},
				Check: func(*terraform.State) error {
					return expect(map[string]any{"qos/congestion-control/ROCE/traffic-class/4/min-threshold": 190000.0})
				},
			},
			{
				// NVUE holds no class name: the import names the class after its priority.
				// The pause thresholds are design inputs NVUE never stores.
				ResourceName:      addr,
				ImportState:       true,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return "cumulus/" + f.addr + "/ROCE/swp1,swp2", nil },
				ImportStateCheck: func(states []*terraform.InstanceState) error {
					if len(states) != 1 {
						return fmt.Errorf("%d instances imported", len(states))
					}
					a := states[0].Attributes
					for k, v := range map[string]string{
						"lossless_classes.#": "1", "lossless_classes.0.name": "class4", "lossless_classes.0.priority": "4",
						"lossless_classes.0.dscp.#": "1", "lossless_classes.0.dscp.0": "34",
						"lossless_classes.0.ecn.min_threshold_bytes": "190000", "lossless_classes.0.ecn.max_threshold_bytes": "400000",
						"lossless_classes.0.ecn.mark_probability_percent": "50",
						"lossless_classes.0.scheduler.mode":               "dwrr", "lossless_classes.0.scheduler.weight": "25",
						"rdma.priority": "3", "rdma.dscp.0": "26",
					} {
						if a[k] != v {
							return fmt.Errorf("imported %s = %q, want %q", k, a[k], v)
						}
					}
					return nil
				},
			},
			{
				// Dropping the class removes its objects and keeps the default class's.
				Config: f.provider + fmt.Sprintf(cumulusConfig, f.addr, 102400, 256000),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("planned_operations"), knownvalue.ListPartial(map[int]knownvalue.Check{
						0: knownvalue.StringRegexp(regexp.MustCompile(`^set qos/mapping/ROCE/dscp/34/switch-priority = 0$`)),
					})),
				}},
				Check: func(*terraform.State) error {
					return expect(map[string]any{
						"qos/pfc/ROCE/switch-priority/3":                       map[string]any{},
						"qos/pfc/ROCE/switch-priority/4":                       nil,
						"qos/mapping/ROCE/dscp/34/switch-priority":             0.0,
						"qos/egress-scheduler/ROCE/traffic-class/4":            nil,
						"qos/congestion-control/ROCE/traffic-class/4":          nil,
						"qos/egress-scheduler/ROCE/traffic-class/0/bw-percent": 50.0,
					})
				},
			},
			{Config: f.provider + fmt.Sprintf(cumulusConfig, f.addr, 102400, 256000), PlanOnly: true},
		},
	})
}
