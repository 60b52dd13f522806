package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestNICDCQCNLifecycle(t *testing.T) {
	f, provider := hostTwins(t)
	const addr = "roce_nic_dcqcn.gpu"
	config := provider + fmt.Sprintf(`
resource "roce_nic_dcqcn" "gpu" {
  host  = %q
  dcqcn = { ai_rate_mbps = 10, hai_rate_mbps = 100 }
  cnp   = { dscp = 46, priority = 5 }
}
`, twinAddress(t, f, "dcqcn"))
	reboot := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if err := f.Reboot(ctx, "dcqcn"); err != nil {
			t.Fatal(err)
		}
	}
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if out := onTwin(t, f, "dcqcn", "ls /etc/systemd/system/roce-dcqcn.service 2>&1 || true"); !regexp.MustCompile(`No such file`).MatchString(out) {
				return fmt.Errorf("destroy left the unit: %s", out)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("planned_changes"), knownvalue.NotNull()),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("reboot_required"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("in_sync"), knownvalue.Bool(true)),
				},
				Check: func(*terraform.State) error {
					got := onTwin(t, f, "dcqcn", "cd /sys/class/net/ens1f0np0/ecn && cat roce_rp/rpg_ai_rate roce_rp/rpg_hai_rate roce_np/enable/3 roce_rp/enable/3 && mlnx_qos -i ens1f0np0 | grep -i 'trust'")
					if !regexp.MustCompile(`^10\n100\n1\n1\n.*dscp`).MatchString(got) {
						return fmt.Errorf("ens1f0np0 after apply: %q", got)
					}
					return nil
				},
			},
			{
				// The persistence unit re-applies the values after a reboot: no drift.
				PreConfig: reboot,
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
			{
				// dcqcn and cnp are read back from the NIC's ecn/ tree, reboot_required and
				// in_sync from the same gather. planned_changes records the last apply, which
				// the host does not keep: an import cannot know it.
				ResourceName:            addr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"planned_changes"},
			},
		},
	})
}

// TestNICDCQCNImportHostQoS: an import reads pfc_priorities from mlnx_qos, rdma_dscp and
// set_traffic_class from tc/1/traffic_class and persist from the unit files, each set away
// from its default so ImportStateVerify compares what was read. A host that forces no class
// imports with set_traffic_class false; one with the configured priority's PFC only imports
// with pfc_priorities unset, as configured.
func TestNICDCQCNImportHostQoS(t *testing.T) {
	f, provider := hostTwins(t)
	config := provider + fmt.Sprintf(`
resource "roce_nic_dcqcn" "tuned" {
  host           = %q
  rdma_dscp      = 24
  pfc_priorities = [3, 4]
  persist        = false
}

resource "roce_nic_dcqcn" "noclass" {
  host              = %q
  set_traffic_class = false
}
`, twinAddress(t, f, "dcqcnqos"), twinAddress(t, f, "dcqcnnotc"))
	importStep := func(addr string) resource.TestStep {
		return resource.TestStep{
			ResourceName:            addr,
			ImportState:             true,
			ImportStateVerify:       true,
			ImportStateVerifyIgnore: []string{"planned_changes"},
		}
	}
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: func(*terraform.State) error {
					got := onTwin(t, f, "dcqcnqos", "cat /sys/class/infiniband/mlx5_0/tc/1/traffic_class; ls /etc/systemd/system/roce-dcqcn.service 2>&1 || true")
					if !regexp.MustCompile(`(?s)^(Global tclass=)?98\n.*No such file`).MatchString(got) {
						return fmt.Errorf("dcqcnqos after apply: %q", got)
					}
					return nil
				},
			},
			importStep("roce_nic_dcqcn.tuned"),
			importStep("roce_nic_dcqcn.noclass"),
		},
	})
}

// TestNICDCQCNDriftAfterRebootWithoutPersistence: values reset by a reboot show as drift.
func TestNICDCQCNDriftAfterRebootWithoutPersistence(t *testing.T) {
	f, provider := hostTwins(t)
	config := provider + fmt.Sprintf(`
resource "roce_nic_dcqcn" "gpu" {
  host    = %q
  persist = false
  dcqcn   = { ai_rate_mbps = 10 }
}
`, twinAddress(t, f, "dcqcnnp"))
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: func() {
					ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
					defer cancel()
					if err := f.Reboot(ctx, "dcqcnnp"); err != nil {
						t.Fatal(err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("roce_nic_dcqcn.gpu", plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue("roce_nic_dcqcn.gpu", tfjsonpath.New("planned_changes"), knownvalue.ListPartial(map[int]knownvalue.Check{
						0: knownvalue.StringRegexp(regexp.MustCompile(`rpg_ai_rate|ai_rate|dcqcn`)),
					})),
				}},
				Check: func(*terraform.State) error {
					if got := onTwin(t, f, "dcqcnnp", "cat /sys/class/net/ens1f0np0/ecn/roce_rp/rpg_ai_rate"); got != "10\n" {
						return fmt.Errorf("rpg_ai_rate after the repair = %q", got)
					}
					return nil
				},
			},
		},
	})
}

func TestNICDCQCNErrors(t *testing.T) {
	f, provider := hostTwins(t)
	cases := map[string]struct{ host, body, want string }{
		"virtual functions":        {"vf", "", `(?s)virtual\s+function`},
		"cnp on the rdma priority": {"cx7", `cnp = { dscp = 48, priority = 3 }`, `(?s)cnp\.priority`},
		"gain out of range":        {"cx7", `dcqcn = { gain = 2 }`, `(?s)dcqcn\.gain`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			cliTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories,
				Steps: []resource.TestStep{{
					Config:      provider + fmt.Sprintf("resource \"roce_nic_dcqcn\" \"gpu\" {\n  host = %q\n  %s\n}\n", twinAddress(t, f, c.host), c.body),
					ExpectError: regexp.MustCompile(c.want),
				}},
			})
		})
	}
}

// TestNICDCQCNCutFloorRename: dcqcn.min_decrease_factor_percent, the old name of
// cut_floor_percent, still sets rpg_min_dec_fac and both names hold its value; moving the
// configuration to the new name plans nothing; two different values on the two names are
// refused.
func TestNICDCQCNCutFloorRename(t *testing.T) {
	f, provider := hostTwins(t)
	const addr = "roce_nic_dcqcn.cut"
	config := func(dcqcn string) string {
		return provider + fmt.Sprintf(`
resource "roce_nic_dcqcn" "cut" {
  host    = %q
  devices = ["ens1f0np0"]
  dcqcn   = %s
}
`, twinAddress(t, f, "cutfloor"), dcqcn)
	}
	both := func(v int64) []statecheck.StateCheck {
		return []statecheck.StateCheck{
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("dcqcn").AtMapKey("cut_floor_percent"), knownvalue.Int64Exact(v)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("dcqcn").AtMapKey("min_decrease_factor_percent"), knownvalue.Int64Exact(v)),
		}
	}
	onHost := func(want string) func(*terraform.State) error {
		return func(*terraform.State) error {
			if got := onTwin(t, f, "cutfloor", "cat /sys/class/net/ens1f0np0/ecn/roce_rp/rpg_min_dec_fac"); got != want+"\n" {
				return fmt.Errorf("rpg_min_dec_fac = %q, want %s", got, want)
			}
			return nil
		}
	}
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      config(`{ cut_floor_percent = 30, min_decrease_factor_percent = 40 }`),
				ExpectError: regexp.MustCompile(`Conflicting DCQCN Settings`),
			},
			{Config: config(`{ min_decrease_factor_percent = 25 }`), ConfigStateChecks: both(25), Check: onHost("25")},
			{
				Config: config(`{ cut_floor_percent = 25 }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				ConfigStateChecks: both(25),
			},
			{Config: config(`{ cut_floor_percent = 75 }`), ConfigStateChecks: both(75), Check: onHost("75")},
			{Config: config(`{ gain = 0.0048828125 }`), ConfigStateChecks: both(50), Check: onHost("50")},
		},
	})
}
