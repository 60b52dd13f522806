package provider

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"google.golang.org/grpc/codes"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// leafConfig is the configuration of the issue that introduced the resource, as written.
const leafConfig = `
resource "roce_switch_qos" "leaf1" {
  address        = %q
  ports          = ["Ethernet0", "Ethernet8"]
  cable_length_m = 5
  rdma = { dscp = [26], priority = 3 }
  cnp  = { dscp = 48, priority = 6 }
  ecn  = { min_threshold_bytes = %d, max_threshold_bytes = 153600, mark_probability_percent = 100 }
  pfc  = { pause_threshold_bytes = %d }
}
`

func TestSwitchQoSLifecycle(t *testing.T) {
	f := newSwitchFixture(t, switchtwin.Options{})
	before := f.twin.Snapshot()
	const addr = "roce_switch_qos.leaf1"
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             f.unchangedSince(before),
		Steps: []resource.TestStep{
			{
				PreConfig: f.twin.ResetStats,
				Config:    f.config(leafConfig, f.addr, 102400, 256000),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("planned_operations"), knownvalue.ListPartial(map[int]knownvalue.Check{
						0: knownvalue.StringRegexp(regexp.MustCompile(`^replace CONFIG_DB/WRED_PROFILE/AZURE_LOSSLESS/green_drop_probability = 100$`)),
					})),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(f.addr+"/ROCE/Ethernet0,Ethernet8")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("headroom").AtMapKey("xon_bytes"), knownvalue.Int64Exact(19456)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("in_sync"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("rdma_scheduler"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"mode": knownvalue.StringExact("dwrr"), "weight": knownvalue.Int64Exact(50),
					})),
				},
				Check: func(*terraform.State) error {
					if sets := f.twin.Stats().RPCs["Set"]; sets != 1 {
						return fmt.Errorf("create sent %d SetRequests, want exactly 1", sets)
					}
					return f.expect(map[string]map[string]string{
						"DSCP_TO_TC_MAP|ROCE":         {"26": "3", "48": "6", "3": "0"},
						"PORT_QOS_MAP|Ethernet8":      {"dscp_to_tc_map": "ROCE", "pfc_enable": "3,4", "tc_to_pg_map": "ROCE"}, // the stock lossless list stays
						"QUEUE|Ethernet0|3":           {"scheduler": "ROCE_RDMA", "wred_profile": "AZURE_LOSSLESS"},
						"QUEUE|Ethernet0|6":           {"scheduler": "ROCE_CNP"},
						"WRED_PROFILE|AZURE_LOSSLESS": {"green_min_threshold": "102400", "green_max_threshold": "153600", "green_drop_probability": "100"},
						"SCHEDULER|ROCE_CNP":          {"type": "STRICT"},
						"CABLE_LENGTH|AZURE":          {"Ethernet0": "5m", "Ethernet8": "5m"},
					})
				},
			},
			{
				// A threshold change is one replace, seen in the plan before it is sent.
				Config: f.config(leafConfig, f.addr, 100000, 250000),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("planned_operations"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("replace CONFIG_DB/WRED_PROFILE/AZURE_LOSSLESS/green_min_threshold = 100000"),
						// 202411 tunes the stock profile in place: the plan names who else uses it.
						knownvalue.StringExact("shared: CONFIG_DB/WRED_PROFILE/AZURE_LOSSLESS is also the ECN profile of 62 queues this resource does not list (QUEUE Ethernet0|4, Ethernet4|3, Ethernet4|4, Ethernet8|4, Ethernet12|3, Ethernet12|4 and 56 more)"),
					})),
				}},
				Check: func(*terraform.State) error {
					return f.expect(map[string]map[string]string{"WRED_PROFILE|AZURE_LOSSLESS": {"green_min_threshold": "100000"}})
				},
			},
			{
				// Out-of-band edits show as an update and are put back.
				PreConfig: func() {
					wred := f.entry("WRED_PROFILE", "AZURE_LOSSLESS")
					wred["green_min_threshold"] = "150000"
					f.twin.SetEntry("WRED_PROFILE", "AZURE_LOSSLESS", wred)
					tc := f.entry("TC_TO_QUEUE_MAP", "ROCE")
					tc["3"] = "1"
					f.twin.SetEntry("TC_TO_QUEUE_MAP", "ROCE", tc)
				},
				Config: f.config(leafConfig, f.addr, 100000, 250000),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("planned_operations"), knownvalue.ListSizeExact(3)),
				}},
				Check: func(*terraform.State) error {
					return f.expect(map[string]map[string]string{
						"WRED_PROFILE|AZURE_LOSSLESS": {"green_min_threshold": "100000"},
						"TC_TO_QUEUE_MAP|ROCE":        {"3": "3"},
					})
				},
			},
			{
				// Everything else is read back from CONFIG_DB, the lossless priority from
				// PORT_QOS_MAP pfc_enable and the policy's PFC_PRIORITY_TO_PRIORITY_GROUP_MAP.
				// pfc holds design inputs the switch never stores: buffermgrd derives the pause
				// point from speed and CABLE_LENGTH (the provider writes no BUFFER_PROFILE), and
				// the ratio window is a plan-time check. planned_operations records the last
				// apply.
				ResourceName:            addr,
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"pfc", "planned_operations", "restore_point"}, // an import has no restore point: destroy restores the stock settings
			},
		},
	})
}

// expect checks fields of twin entries, keyed "TABLE|KEY".
func (f *switchFixture) expect(want map[string]map[string]string) error {
	for tk, fields := range want {
		table, key, _ := cutFirst(tk)
		got := f.entry(table, key)
		for field, v := range fields {
			if got[field] != v {
				return fmt.Errorf("%s %s = %q, want %q (entry %v)", tk, field, got[field], v, got)
			}
		}
	}
	return nil
}

func cutFirst(s string) (string, string, bool) {
	for i := range s {
		if s[i] == '|' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func TestSwitchQoSOwnsWREDProfileOn202511(t *testing.T) {
	f := newSwitchFixture(t, switchtwin.Options{Release: "202511"})
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config: f.config(leafConfig, f.addr, 102400, 256000),
			Check: func(*terraform.State) error {
				return f.expect(map[string]map[string]string{
					"WRED_PROFILE|ROCE_LOSSLESS":  {"ecn": "ecn_all", "green_min_threshold": "102400"},
					"WRED_PROFILE|AZURE_LOSSLESS": {"green_min_threshold": "1048576"},
					"QUEUE|Ethernet8|3":           {"wred_profile": "ROCE_LOSSLESS"},
				})
			},
		}},
	})
}

func TestSwitchQoSPlanTimeErrors(t *testing.T) {
	f := newSwitchFixture(t, switchtwin.Options{Ports: 128})
	many := `
resource "roce_switch_qos" "leaf1" {
  address = %q
  ports   = [for i in range(128) : "Ethernet${i * 4}"]
  ecn     = { min_threshold_bytes = 200000, max_threshold_bytes = 300000 }
  pfc     = { pause_threshold_bytes = 500000 }
}
`
	custom := `
resource "roce_switch_qos" "leaf1" {
  address = %q
  ports   = %s
  cnp     = { dscp = 48, priority = %d }
  ecn     = { min_threshold_bytes = %d, max_threshold_bytes = 153600 }
  pfc     = { pause_threshold_bytes = %d }
}
`
	extra := `
resource "roce_switch_qos" "leaf1" {
  address = %q
  ports   = ["Ethernet0", "Ethernet4"]
  ecn     = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }
  pfc     = { pause_threshold_bytes = 256000 }
  %s
}
`
	before := f.twin.Snapshot()
	steps := []struct {
		name, config string
		want         string
	}{
		// The traditional buffer manager finds no pg_profile_lookup.ini row for 10m.
		{"cable length without a lookup row", f.config(extra, f.addr, "cable_length_m = 10"), `(?s)cable_length_m is 10.*none for 10m at 400G.*Use 5, 40 or 300`},
		{"cable length 0", f.config(extra, f.addr, "cable_length_m = 0"), `(?s)No Lossless Buffer at 0 m`},
		// sonic-pfcwd.yang: detection_time >= PFC_WD|GLOBAL POLL_INTERVAL (200 on the twin).
		{"watchdog below the poll interval", f.config(extra, f.addr, "pfc_watchdog = { detection_time_ms = 100 }"), `(?s)pfc_watchdog\.detection_time_ms is 100 ms, below.*POLL_INTERVAL\s+200\s+ms`},
		// buffermgrd would keep BUFFER_PG|<port>|3-4 beside a new |5.
		{"priority outside the ports' lossless list", f.config(extra, f.addr, "rdma = { dscp = [26], priority = 5 }"), `(?s)rdma\.priority is 5.*Ethernet0\s+\(pfc_enable\s+"3,4"\).*never\s+removes`},
		// <name>_LOSSLESS must fit the 32 characters of sonic-wred-profile.yang.
		{"name too long for the WRED profile", f.config(extra, f.addr, `name = "ABCDEFGHIJKLMNOPQRSTUVWX"`), `(?s)use 1-23 letters`},
		{"ratio 1.5", f.config(custom, f.addr, `["Ethernet0"]`, 6, 102400, 153600), `(?s)pfc\.pause_threshold_bytes is 153600, 1\.50 x`},
		{"ECN min above max", f.config(custom, f.addr, `["Ethernet0"]`, 6, 160000, 400000), `(?s)ecn\.min_threshold_bytes.*160000`},
		{"CNP on the RDMA priority", f.config(custom, f.addr, `["Ethernet0"]`, 3, 102400, 256000), `(?s)cnp\.priority`},
		{"bad port name", f.config(custom, f.addr, `["eth0"]`, 6, 102400, 256000), `(?s)ports\[0\] is "eth0"`},
		{"unknown port", f.config(custom, f.addr, `["Ethernet0", "Ethernet1024"]`, 6, 102400, 256000), `(?s)ports\[1\] is "Ethernet1024".*does not\s+have`},
		{"capacity overflow", f.config(many, f.addr), `(?s)128 ports.*67737959`},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			cliTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories,
				Steps:                    []resource.TestStep{{Config: s.config, ExpectError: regexp.MustCompile(s.want)}},
			})
		})
	}
	if diff := cmp.Diff(before, f.twin.Snapshot()); diff != "" {
		t.Errorf("refused plans changed the switch:\n%s", diff)
	}
	if sets := f.twin.Stats().RPCs["Set"]; sets != 0 {
		t.Errorf("refused plans sent %d SetRequests", sets)
	}
}

func TestSwitchQoSConnectionErrors(t *testing.T) {
	f := newSwitchFixture(t, switchtwin.Options{})
	other, err := switchtwin.NewPKI("someone-else")
	if err != nil {
		t.Fatal(err)
	}
	otherFiles, err := other.WriteFiles(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(leafConfig, f.addr, 102400, 256000)
	cases := map[string]struct{ provider, want string }{
		"wrong password": {
			fmt.Sprintf("provider \"roce\" {\n  gnmi = { username = %q, password = \"wrong\", ca_file = %q }\n}\n", twinUser, f.caFile),
			`(?s)Unable to Read Switch.*Unauthenticated`,
		},
		"wrong CA": {
			fmt.Sprintf("provider \"roce\" {\n  gnmi = { username = %q, password = %q, ca_file = %q }\n}\n", twinUser, twinPassword, otherFiles.CA),
			`(?s)Unable to Read Switch.*certificate`,
		},
		"no port": {
			fmt.Sprintf("provider \"roce\" {\n  gnmi = { username = %q, password = %q, ca_file = %q }\n}\n", twinUser, twinPassword, f.caFile),
			`(?s)has no port and the\s+provider\s+sets\s+no\s+gnmi\.port`,
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			config := c.provider + body
			if name == "no port" {
				config = c.provider + fmt.Sprintf(leafConfig, "127.0.0.1", 102400, 256000)
			}
			cliTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories,
				Steps:                    []resource.TestStep{{Config: config, ExpectError: regexp.MustCompile(c.want)}},
			})
		})
	}
}

func TestSwitchQoSFaults(t *testing.T) {
	f := newSwitchFixture(t, switchtwin.Options{})
	before := f.twin.Snapshot()
	config := f.config(leafConfig, f.addr, 102400, 256000)
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{
				// A Set that fails leaves nothing behind.
				PreConfig:   func() { f.twin.FailNextSet(codes.Unavailable) },
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)Unable to Apply Switch QoS.*nothing\s+was\s+applied`),
			},
			{
				PreConfig: func() {
					if diff := cmp.Diff(before, f.twin.Snapshot()); diff != "" {
						t.Errorf("failed Set changed the switch:\n%s", diff)
					}
					// SONiC can report failure for a Set it applied (sonic-gnmi#238).
					f.twin.FailNextSetButApply(codes.Unknown)
				},
				Config: config,
				Check: func(*terraform.State) error {
					return f.expect(map[string]map[string]string{"PORT_QOS_MAP|Ethernet0": {"dscp_to_tc_map": "ROCE", "pfc_enable": "3,4"}})
				},
			},
			{
				// The connection reset of a restarted gnmi container is invisible to the user.
				PreConfig: func() { f.twin.DropConnections() },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
			},
		},
	})
}

func TestSwitchQoSRefusesWhatTheReleaseRejects(t *testing.T) {
	// GCU rejects WRED edits on a chip family it does not know: the plan must say so and
	// send nothing.
	f := newSwitchFixture(t, switchtwin.Options{HWSKU: "Unknown-SKU-X"})
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config:      f.config(leafConfig, f.addr, 102400, 256000),
			ExpectError: regexp.MustCompile(`(?s)Switch Would Reject the Change.*WRED_PROFILE`),
		}},
	})
	if sets := f.twin.Stats().RPCs["Set"]; sets != 0 {
		t.Errorf("a refused plan sent %d SetRequests", sets)
	}
}

// TestSwitchQoSIdleCloseIsInvisible runs the same steps against a switch that closes idle
// connections after 2 ms (SONiC does after 5 s) and one that keeps them: the first must need
// more connections (the client re-dialled inside a Terraform command) and the user must see
// none of it.
func TestSwitchQoSIdleCloseIsInvisible(t *testing.T) {
	connections := func(idle time.Duration) int {
		f := newSwitchFixture(t, switchtwin.Options{IdleTimeout: idle})
		pause := func() { time.Sleep(100 * time.Millisecond) }
		cliTest(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviderFactories,
			Steps: []resource.TestStep{
				{PreConfig: pause, Config: f.config(leafConfig, f.addr, 102400, 256000)},
				{PreConfig: pause, Config: f.config(leafConfig, f.addr, 100000, 250000)},
			},
		})
		return f.twin.Stats().Conns.Accepted
	}
	kept, closed := connections(time.Minute), connections(2*time.Millisecond)
	t.Logf("connections: %d with idle connections kept, %d with idle close after 2 ms", kept, closed)
	if closed <= kept {
		t.Errorf("idle close caused no re-dial (%d connections against %d): the test proves nothing", closed, kept)
	}
}

// TestSwitchQoSPortLeftLossy: after the apply the provider reads back the lossless priority
// groups that the switch's buffer manager derives. A port that is administratively down gets
// none (buffermgrd reclaims it), so RDMA would be dropped there: the apply fails naming the
// port, and the resource is left tainted for the next plan to replace.
func TestSwitchQoSPortLeftLossy(t *testing.T) {
	f := newSwitchFixture(t, switchtwin.Options{})
	qos, _ := f.twin.Entry("PORT_QOS_MAP", "Ethernet0")
	delete(qos, "pfc_enable")
	f.twin.SetEntry("PORT_QOS_MAP", "Ethernet0", qos)
	f.twin.DeleteEntry("BUFFER_PG", "Ethernet0|3-4")
	port, _ := f.twin.Entry("PORT", "Ethernet0")
	port["admin_status"] = "down"
	f.twin.SetEntry("PORT", "Ethernet0", port)
	config := f.config(leafConfig, f.addr, 102400, 256000)
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)Port Without Lossless Priority Group.*Ethernet0 has no BUFFER_PG for\s+priority 3.*administratively down`),
			},
			{
				PreConfig: func() {
					if e, _ := f.twin.Entry("PORT_QOS_MAP", "Ethernet0"); e["pfc_enable"] != "3" {
						t.Errorf("PORT_QOS_MAP|Ethernet0 pfc_enable = %q, want 3 (the port had none)", e["pfc_enable"])
					}
					if _, ok := f.twin.Entry("BUFFER_PG", "Ethernet0|3"); ok {
						t.Error("the buffer manager gave the administratively down port a lossless PG")
					}
				},
				Config: config, PlanOnly: true, ExpectNonEmptyPlan: true,
			},
		},
	})
}

// TestSwitchQoSPlanTimeRulesByRelease: the SONiC rules that plan reads from the switch are
// refused the same way on every release the twin offers, before any Set.
func TestSwitchQoSPlanTimeRulesByRelease(t *testing.T) {
	extra := `
resource "roce_switch_qos" "leaf1" {
  address = %q
  ports   = ["Ethernet0"]
  ecn     = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }
  pfc     = { pause_threshold_bytes = 256000 }
  %s
}
`
	for _, release := range []string{"202411", "202505", "202511", "master"} {
		t.Run(release, func(t *testing.T) {
			f := newSwitchFixture(t, switchtwin.Options{Release: release})
			for _, s := range []struct{ hcl, want string }{
				{"cable_length_m = 7", `(?s)cable_length_m is 7.*Use 5, 40 or 300`},
				{"pfc_watchdog = { restoration_time_ms = 150 }", `(?s)pfc_watchdog\.restoration_time_ms is 150 ms, below`},
				{"rdma = { dscp = [26], priority = 2 }", `(?s)RDMA Priority Not Lossless on the Ports`},
			} {
				cliTest(t, resource.TestCase{
					ProtoV6ProviderFactories: testProviderFactories,
					Steps:                    []resource.TestStep{{Config: f.config(extra, f.addr, s.hcl), ExpectError: regexp.MustCompile(s.want)}},
				})
			}
			if sets := f.twin.Stats().RPCs["Set"]; sets != 0 {
				t.Errorf("refused plans sent %d SetRequests", sets)
			}
		})
	}
}

// qosConfig40m is one switch's QoS with 40 m cables, which moves the lossless headroom off the
// stock 5 m profile.
const qosConfig40m = `
resource "roce_switch_qos" "leaf1" {
  address        = %q
  ports          = ["Ethernet0", "Ethernet8"]
  cable_length_m = 40
  ecn = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }
  pfc = { pause_threshold_bytes = 256000 }
}
`

// headroomFromState reads the headroom attribute of a resource in state.
func headroomFromState(s *terraform.State, addr string) (xon, xoff, size string, err error) {
	rs, ok := s.RootModule().Resources[addr]
	if !ok {
		return "", "", "", fmt.Errorf("%s not in state", addr)
	}
	a := rs.Primary.Attributes
	return a["headroom.xon_bytes"], a["headroom.xoff_bytes"], a["headroom.size_bytes"], nil
}

// TestSwitchQoSDynamicBufferModel: on a switch running SONiC's dynamic buffer model, the
// planned headroom is what buffermgrdyn reserves for every listed port (APPL_DB), on a release
// without (202411) and one with (master) the reduced-pattern compensation, and destroy brings
// CONFIG_DB and the derived APPL_DB groups back to stock.
func TestSwitchQoSDynamicBufferModel(t *testing.T) {
	for release, xoff := range map[string]string{"202411": "117760", "master": "119808"} {
		t.Run(release, func(t *testing.T) {
			f := newSwitchFixture(t, switchtwin.Options{Release: release, BufferModel: switchtwin.BufferModelDynamic})
			before, beforeAppl := f.twin.Snapshot(), f.twin.ApplDB()
			const addr = "roce_switch_qos.leaf1"
			cliTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories,
				CheckDestroy: func(*terraform.State) error {
					if diff := cmp.Diff(before, f.twin.Snapshot()); diff != "" {
						return fmt.Errorf("destroy left CONFIG_DB different (-before +after):\n%s", diff)
					}
					if diff := cmp.Diff(beforeAppl, f.twin.ApplDB()); diff != "" {
						return fmt.Errorf("destroy left the buffer manager's APPL_DB different (-before +after):\n%s", diff)
					}
					return nil
				},
				Steps: []resource.TestStep{{
					Config: f.config(qosConfig40m, f.addr),
					Check: func(s *terraform.State) error {
						xon, gotXoff, size, err := headroomFromState(s, addr)
						if err != nil {
							return err
						}
						if gotXoff != xoff {
							return fmt.Errorf("headroom xoff %s, want %s", gotXoff, xoff)
						}
						appl := f.twin.ApplDB()
						for _, port := range []string{"Ethernet0", "Ethernet8"} {
							name := appl["BUFFER_PG_TABLE"][port+":3-4"]["profile"]
							p := appl["BUFFER_PROFILE_TABLE"][name]
							if name != "pg_lossless_400000_40m_profile" || p["xon"] != xon || p["xoff"] != gotXoff || p["size"] != size {
								return fmt.Errorf("%s: the switch reserves %s %v, state headroom xon %s xoff %s size %s", port, name, p, xon, gotXoff, size)
							}
						}
						return nil
					},
				}},
			})
		})
	}
}

// TestSwitchQoSDestroyRestoresStockPGs: in the traditional model, destroy puts the 5 m cable
// lengths back and buffermgrd (202511, which applies cable changes at once) moves the ports'
// lossless groups back to the stock profile; the 40 m profile it derived stays, as buffermgrd
// never deletes a profile.
func TestSwitchQoSDestroyRestoresStockPGs(t *testing.T) {
	f := newSwitchFixture(t, switchtwin.Options{Release: "202511"})
	before := f.twin.Snapshot()
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			after := f.twin.Snapshot()
			if diff := cmp.Diff(before["BUFFER_PG"], after["BUFFER_PG"]); diff != "" {
				return fmt.Errorf("destroy left BUFFER_PG different (-before +after):\n%s", diff)
			}
			if _, ok := after["BUFFER_PROFILE"]["pg_lossless_400000_40m_profile"]; !ok {
				return fmt.Errorf("the derived 40m profile is gone; buffermgrd keeps it")
			}
			return nil
		},
		Steps: []resource.TestStep{{
			Config: f.config(qosConfig40m, f.addr),
			Check: func(*terraform.State) error {
				return f.expect(map[string]map[string]string{
					"BUFFER_PG|Ethernet0|3-4": {"profile": "pg_lossless_400000_40m_profile"},
					"BUFFER_PG|Ethernet8|3-4": {"profile": "pg_lossless_400000_40m_profile"},
				})
			},
		}},
	})
}
