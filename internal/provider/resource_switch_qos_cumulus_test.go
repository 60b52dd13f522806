package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	tfconfig "github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/nvuetwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// cumulusFixture is an NVUE switch twin with TLS and basic authentication and the provider
// block that reaches it.
type cumulusFixture struct {
	twin     *nvuetwin.Twin
	addr     string
	caFile   string
	provider string
}

func newCumulusFixture(t *testing.T, release string) *cumulusFixture {
	t.Helper()
	return newCumulusFixtureWith(t, nvuetwin.Options{Release: release})
}

// newCumulusFixtureWith is newCumulusFixture with the twin's options (its ports and login are
// the fixture's).
func newCumulusFixtureWith(t *testing.T, opts nvuetwin.Options) *cumulusFixture {
	t.Helper()
	opts.Ports, opts.Username, opts.Password = 8, "cumulus", twinPassword
	tw, ca, err := nvuetwin.StartWithCA(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tw.Stop)
	return &cumulusFixture{twin: tw, addr: tw.Addr(), caFile: ca,
		provider: fmt.Sprintf("provider \"roce\" {\n  nvue = {\n    username = \"cumulus\"\n    password = %q\n    ca_file  = %q\n  }\n}\n", twinPassword, ca)}
}

const cumulusConfig = `
resource "roce_switch_qos" "leaf1" {
  address        = %q
  os             = "cumulus"
  ports          = ["swp1", "swp2"]
  cable_length_m = 5
  ecn = { min_threshold_bytes = %d, max_threshold_bytes = 153600 }
  pfc = { pause_threshold_bytes = %d }
}
`

func treeJSON(t nvue.Tree) string {
	raw, _ := json.Marshal(t)
	return string(raw)
}

// TestSwitchQoSCumulusLifecycle: the same resource on a Cumulus switch over NVUE, through the
// real CLI: one revision per apply, the plan's lines, drift put back, destroy restoring the
// switch as it was.
func TestSwitchQoSCumulusLifecycle(t *testing.T) {
	for _, release := range []string{"5.9", "5.14"} {
		t.Run(release, func(t *testing.T) {
			f := newCumulusFixture(t, release)
			before := f.twin.Applied()
			const addr = "roce_switch_qos.leaf1"
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
						Config: f.provider + fmt.Sprintf(cumulusConfig, f.addr, 102400, 256000),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectKnownValue(addr, tfjsonpath.New("planned_operations"), knownvalue.ListPartial(map[int]knownvalue.Check{
								0: knownvalue.StringExact("set qos/mapping/ROCE/trust = l3"),
							})),
						}},
						Check: func(*terraform.State) error {
							a := f.twin.Applied()
							if revs, patches := f.twin.Requests(); f.twin.Applies() != 1 || revs != 1 || patches != 1 {
								return fmt.Errorf("create made %d revisions with %d PATCHes and applied %d; want one of each", revs, patches, f.twin.Applies())
							}
							for _, port := range []string{"swp1", "swp2"} {
								if p, _ := nvue.Lookup(a, "interface", port, "qos", "pfc", "profile"); p != "ROCE" {
									return fmt.Errorf("%s pfc profile = %v", port, p)
								}
							}
							if v, _ := nvue.Lookup(a, "qos", "congestion-control", "ROCE", "traffic-class", "3", "min-threshold"); v != 102400.0 {
								return fmt.Errorf("ECN min = %v", v)
							}
							// The PFC profile makes priority 3 lossless; the lossless pool has
							// memory and no priorities of its own.
							if _, ok := nvue.Lookup(a, "qos", "pfc", "ROCE", "switch-priority", "3"); !ok {
								return fmt.Errorf("priority 3 is not in the PFC profile: %v", nvue.Object(a, "qos", "pfc"))
							}
							if pool := nvue.Object(a, "qos", "traffic-pool", "default-lossless"); pool["memory-percent"] != 50.0 || pool["switch-priority"] != nil {
								return fmt.Errorf("lossless pool = %v, want 50 %% of the memory and no switch priorities", pool)
							}
							return nil
						},
					},
					{
						Config: f.provider + fmt.Sprintf(cumulusConfig, f.addr, 100000, 250000),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
							plancheck.ExpectKnownValue(addr, tfjsonpath.New("planned_operations"), knownvalue.ListExact([]knownvalue.Check{
								knownvalue.StringExact("set qos/congestion-control/ROCE/traffic-class/3/min-threshold = 100000"),
							})),
						}},
					},
					{
						// Out of band: an operator unbinds swp2's PFC profile. The refresh sees it and puts it back.
						PreConfig: func() { f.twin.SetApplied("interface/swp2/qos/pfc", nil) },
						Config:    f.provider + fmt.Sprintf(cumulusConfig, f.addr, 100000, 250000),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
							plancheck.ExpectKnownValue(addr, tfjsonpath.New("planned_operations"), knownvalue.ListExact([]knownvalue.Check{
								knownvalue.StringExact("set interface/swp2/qos/pfc/profile = ROCE"),
							})),
						}},
					},
					{
						// Everything else is read back from the applied revision, the lossless
						// priority from the PFC profile's switch-priority. pfc holds design inputs
						// NVUE never stores (the profile has only switch-priority, cable-length,
						// tx and rx): the pause threshold and the ratio window checked at plan.
						// planned_operations records the last apply.
						ResourceName:            addr,
						ImportState:             true,
						ImportStateIdFunc:       func(*terraform.State) (string, error) { return "cumulus/" + f.addr + "/ROCE/swp1,swp2", nil },
						ImportStateVerify:       true,
						ImportStateVerifyIgnore: []string{"pfc", "planned_operations", "restore_point"}, // an import has no restore point: destroy restores the stock settings
					},
				},
			})
		})
	}
}

func TestSwitchQoSCumulusRefusals(t *testing.T) {
	f := newCumulusFixture(t, "5.12")
	for _, tc := range []struct{ body, want string }{
		{`address = %q
  os = "cumulus"
  ports = ["Ethernet0"]`, `(?s)ports\[0\] is "Ethernet0"; Cumulus names switch ports swp<N>`},
		{`address = %q
  os = "cumulus"
  ports = ["swp99"]`, `(?s)ports\[0\] is "swp99", which the switch \(Cumulus Linux 5\.12\) has no switch`},
		{`address = %q
  os = "cumulus"
  sonic_release = "202411"
  ports = ["swp1"]`, `(?s)sonic_release "202411": os is "cumulus"`},
		{`address = %q
  os = "junos"
  ports = ["swp1"]`, `(?s)os is "junos"; use one of "cumulus" or "sonic"`},
	} {
		cliTest(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviderFactories,
			Steps: []resource.TestStep{{
				Config:      f.provider + fmt.Sprintf("resource \"roce_switch_qos\" \"x\" {\n  "+tc.body+"\n  ecn = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }\n  pfc = { pause_threshold_bytes = 256000 }\n}\n", f.addr),
				ExpectError: regexp.MustCompile(tc.want),
			}},
		})
	}
	if n := f.twin.Applies(); n != 0 {
		t.Errorf("refused plans applied %d revisions", n)
	}
}

// TestSwitchQoSCumulusExampleApplies applies the resource page's Cumulus example, its provider
// block included, against a twin of the switch it describes.
func TestSwitchQoSCumulusExampleApplies(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "resources", "roce_switch_qos", "cumulus.tf"))
	if err != nil {
		t.Fatal(err)
	}
	f := newCumulusFixture(t, "5.14")
	config := strings.NewReplacer("10.0.0.12:8765", f.addr, `"nvapi"`, `"cumulus"`, "/etc/roce/cumulus-ca.pem", f.caFile).Replace(string(src))
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config:          config,
			ConfigVariables: tfconfig.Variables{"nvue_password": tfconfig.StringVariable(twinPassword)},
			Check: func(*terraform.State) error {
				if p, _ := nvue.Lookup(f.twin.Applied(), "interface", "swp2", "qos", "congestion-control", "profile"); p != "ROCE" {
					return fmt.Errorf("swp2 congestion-control profile = %v", p)
				}
				return nil
			},
		}},
	})
}

// TestSwitchQoSCumulusFailedApply: a revision the switch fails to apply leaves rev=applied as it
// was, the error names the state the revision reached, and the next apply goes through.
func TestSwitchQoSCumulusFailedApply(t *testing.T) {
	f := newCumulusFixture(t, "5.12")
	before := treeJSON(f.twin.Applied())
	config := f.provider + fmt.Sprintf(cumulusConfig, f.addr, 102400, 256000)
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig:   f.twin.FailNextApply,
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)revision 1 ended "apply_fail" \(Apply failed\); switchd failed`),
			},
			{
				PreConfig: func() {
					if got := treeJSON(f.twin.Applied()); got != before {
						t.Errorf("the failed revision changed the applied configuration")
					}
				},
				Config: config,
				Check: func(*terraform.State) error {
					if n := f.twin.Applies(); n != 1 {
						return fmt.Errorf("%d revisions applied, want 1", n)
					}
					return nil
				},
			},
		},
	})
}

// TestSwitchQoSCumulusResourceLogin: a Cumulus switch's own nvue block stands in for the
// provider's; without either the error says where to put the login.
func TestSwitchQoSCumulusResourceLogin(t *testing.T) {
	f := newCumulusFixture(t, "5.12")
	body := func(login string) string {
		return fmt.Sprintf(`
resource "roce_switch_qos" "leaf1" {
  address = %q
  os      = "cumulus"
  ports   = ["swp1"]
  ecn     = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }
  pfc     = { pause_threshold_bytes = 256000 }
  %s
}
`, f.addr, login)
	}
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{Config: body(""), ExpectError: regexp.MustCompile(`(?s)no NVUE username and password for this switch`)},
			{
				Config: body(fmt.Sprintf(`nvue = { username = "cumulus", password = %q, ca_file = %q }`, twinPassword, f.caFile)),
				Check: func(*terraform.State) error {
					if f.twin.Applies() != 1 {
						return fmt.Errorf("%d revisions applied, want 1", f.twin.Applies())
					}
					return nil
				},
			},
		},
	})
	sonic := newSwitchFixture(t, switchtwin.Options{})
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config: sonic.config(`
resource "roce_switch_qos" "leaf1" {
  address = %q
  ports   = ["Ethernet0"]
  ecn     = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }
  pfc     = { pause_threshold_bytes = 256000 }
  nvue    = { username = "cumulus" }
}
`, sonic.addr),
			ExpectError: regexp.MustCompile(`(?s)nvue is set, but os is "sonic"`),
		}},
	})
}

// TestSwitchQoSCumulusAutoSaveOff applies to a switch with auto-save off, where an applied
// revision is lost at the next reboot unless saved: the provider saves it, and the destroy's.
func TestSwitchQoSCumulusAutoSaveOff(t *testing.T) {
	f := newCumulusFixtureWith(t, nvuetwin.Options{Release: "5.14", AutoSaveOff: true})
	before := f.twin.Startup()
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if diff := cmp.Diff(treeJSON(before), treeJSON(f.twin.Startup())); diff != "" {
				return fmt.Errorf("the startup configuration after destroy differs from before (-before +after):\n%s", diff)
			}
			return nil
		},
		Steps: []resource.TestStep{{
			Config: f.provider + fmt.Sprintf(cumulusConfig, f.addr, 102400, 256000),
			Check: func(*terraform.State) error {
				if diff := cmp.Diff(treeJSON(f.twin.Applied()), treeJSON(f.twin.Startup())); diff != "" {
					return fmt.Errorf("the switch would boot without the change (-applied +startup):\n%s", diff)
				}
				return nil
			},
		}},
	})
}

// TestSwitchQoSCumulusOperatorRevision: an operator's change is pending on the switch (nv set
// without nv config apply). The apply is refused naming that revision, with nothing sent; once
// it is detached, the apply goes through.
func TestSwitchQoSCumulusOperatorRevision(t *testing.T) {
	f := newCumulusFixture(t, "5.14")
	other := f.twin.OperatorRevision("pending")
	config := f.provider + fmt.Sprintf(cumulusConfig, f.addr, 102400, 256000)
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{Config: config, ExpectError: regexp.MustCompile(`revision\s+` + regexp.QuoteMeta(other) + `\s+\(pending\)`)},
			{PreConfig: func() {
				if f.twin.Applies() != 0 {
					t.Errorf("the refused apply applied %d revisions", f.twin.Applies())
				}
				f.twin.Detach(other)
			}, Config: config},
		},
	})
}

// TestSwitchQoSCumulusPrompt: a QoS file NVUE manages was edited by hand, so NVUE asks before
// it overwrites it. Without assume_yes the apply fails with the prompt and the fix, nothing
// applied; with assume_yes = true in the resource's nvue block it answers yes and applies.
func TestSwitchQoSCumulusPrompt(t *testing.T) {
	f := newCumulusFixture(t, "5.14")
	if err := f.twin.EditByHand("/etc/cumulus/datapath/qos/qos_features.conf"); err != nil {
		t.Fatal(err)
	}
	before := treeJSON(f.twin.Applied())
	config := f.provider + fmt.Sprintf(cumulusConfig, f.addr, 102400, 256000)
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{Config: config, ExpectError: regexp.MustCompile(`(?s)ays_fail.*qos_features\.conf.*assume_yes\s+=\s+true`)},
			{
				PreConfig: func() {
					if got := treeJSON(f.twin.Applied()); got != before || f.twin.Applies() != 0 {
						t.Errorf("the refused prompt changed the switch (%d applies)", f.twin.Applies())
					}
				},
				Config: strings.Replace(config, "pfc = {", "nvue = { assume_yes = true }\n  pfc = {", 1),
				Check: func(*terraform.State) error {
					if f.twin.Applies() != 1 {
						return fmt.Errorf("%d revisions applied, want 1", f.twin.Applies())
					}
					return nil
				},
			},
		},
	})
}

// TestSwitchQoSCumulusRoCEMode: a switch with Cumulus' RoCE lossless mode already on (nv set
// qos roce), as many fabrics have it, through the real CLI: the plan and the apply go through
// with the profiles on top of RoCE mode and no traffic pool, the second plan is empty, and
// destroy leaves the switch as it was, RoCE mode on. RoCE lossy mode is refused on pfc.
func TestSwitchQoSCumulusRoCEMode(t *testing.T) {
	f := newCumulusFixture(t, "5.14")
	if err := f.twin.RoCE("lossless"); err != nil {
		t.Fatal(err)
	}
	before := f.twin.Applied()
	const addr = "roce_switch_qos.leaf1"
	config := f.provider + fmt.Sprintf(cumulusConfig, f.addr, 102400, 256000)
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
				Config: config,
				Check: func(s *terraform.State) error {
					if f.twin.Applies() != 1 {
						return fmt.Errorf("%d revisions applied, want 1", f.twin.Applies())
					}
					a := f.twin.Applied()
					if roce := nvue.Object(a, "qos", "roce"); roce["enable"] != "on" || roce["mode"] != "lossless" {
						return fmt.Errorf("qos roce = %v after the apply", roce)
					}
					if p, _ := nvue.Lookup(a, "interface", "swp2", "qos", "pfc", "profile"); p != "ROCE" {
						return fmt.Errorf("swp2 pfc profile = %v", p)
					}
					if pool := nvue.Object(a, "qos", "traffic-pool", "default-lossless"); pool != nil {
						return fmt.Errorf("a default-lossless pool beside RoCE lossless mode: %v", pool)
					}
					for k, v := range s.RootModule().Resources[addr].Primary.Attributes {
						if strings.HasPrefix(k, "planned_operations.") && strings.Contains(v, "traffic-pool") {
							return fmt.Errorf("planned operation %q on RoCE mode", v)
						}
					}
					return nil
				},
			},
			{Config: config, PlanOnly: true},
		},
	})

	lossy := newCumulusFixture(t, "5.9")
	if err := lossy.twin.RoCE("lossy"); err != nil {
		t.Fatal(err)
	}
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config:      lossy.provider + fmt.Sprintf(cumulusConfig, lossy.addr, 102400, 256000),
			ExpectError: regexp.MustCompile(`(?s)Cumulus RoCE Mode Is Lossy.*RoCE\s+mode\s+lossy.*nv\s+set\s+qos\s+roce\s+mode\s+lossless`),
		}},
	})
	if n := lossy.twin.Applies(); n != 0 {
		t.Errorf("the refused plan applied %d revisions", n)
	}
}
