package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// TestSwitchQoSConnectionReset resets the gNMI connection in the middle of the create's
// SetRequest, as a crashing gnmi container or a firewall would. The provider cannot tell from
// the error whether the switch applied the Set; its re-read must: before the switch applied
// it, the apply fails naming the switch and leaves nothing behind; after, the apply succeeds.
// Either way the next apply converges and the plan after it is empty.
func TestSwitchQoSConnectionReset(t *testing.T) {
	t.Run("before apply", func(t *testing.T) {
		f := newSwitchFixture(t, switchtwin.Options{})
		before := f.twin.Snapshot()
		config := f.config(leafConfig, f.addr, 102400, 256000)
		cliTest(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviderFactories,
			Steps: []resource.TestStep{
				{
					PreConfig:   func() { f.twin.ResetNextSet(false) },
					Config:      config,
					ExpectError: regexp.MustCompile(`(?s)Unable to Apply Switch QoS.*` + regexp.QuoteMeta(f.addr) + `.*not\s+on\s+the\s+switch`),
				},
				{
					PreConfig: func() {
						if diff := cmp.Diff(before, f.twin.Snapshot()); diff != "" {
							t.Errorf("the reset Set left changes behind (-before +after):\n%s", diff)
						}
					},
					Config: config,
					Check:  f.checkLeafApplied,
				},
				{Config: config, PlanOnly: true},
			},
		})
	})
	t.Run("after apply", func(t *testing.T) {
		f := newSwitchFixture(t, switchtwin.Options{})
		config := f.config(leafConfig, f.addr, 102400, 256000)
		cliTest(t, resource.TestCase{
			ProtoV6ProviderFactories: testProviderFactories,
			Steps: []resource.TestStep{
				{
					PreConfig: func() {
						f.twin.ResetStats()
						f.twin.ResetNextSet(true)
					},
					Config: config,
					Check: func(s *terraform.State) error {
						if sets := f.twin.Stats().RPCs["Set"]; sets != 1 {
							return fmt.Errorf("create sent %d SetRequests, want 1: a Set that may have applied is not re-sent", sets)
						}
						return f.checkLeafApplied(s)
					},
				},
				{Config: config, PlanOnly: true},
			},
		})
	})
}

// checkLeafApplied checks a few fields that leafConfig (102400, 256000) sets on the twin.
func (f *switchFixture) checkLeafApplied(*terraform.State) error {
	return f.expect(map[string]map[string]string{
		"PORT_QOS_MAP|Ethernet0":      {"pfc_enable": "3,4", "dscp_to_tc_map": "ROCE"},
		"WRED_PROFILE|AZURE_LOSSLESS": {"green_min_threshold": "102400"},
		"SCHEDULER|ROCE_CNP":          {"type": "STRICT"},
	})
}

// TestSwitchQoSUnsettledUpdateKeepsThePriorPolicy drops a port in an update whose connection
// is lost before the switch applies it: the state must keep the prior policy, so the next
// apply restores the dropped port, and destroy leaves the switch as before.
func TestSwitchQoSUnsettledUpdateKeepsThePriorPolicy(t *testing.T) {
	f := newSwitchFixture(t, switchtwin.Options{})
	before := f.twin.Snapshot()
	one := strings.Replace(leafConfig, `["Ethernet0", "Ethernet8"]`, `["Ethernet0"]`, 1)
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             f.unchangedSince(before),
		Steps: []resource.TestStep{
			{Config: f.config(leafConfig, f.addr, 102400, 256000)},
			{
				PreConfig:   func() { f.twin.ResetNextSet(false) },
				Config:      f.config(one, f.addr, 102400, 256000),
				ExpectError: regexp.MustCompile(`Unable to Apply Switch QoS`),
			},
			{
				Config: f.config(one, f.addr, 102400, 256000),
				Check: func(*terraform.State) error {
					if got := f.entry("PORT_QOS_MAP", "Ethernet8")["dscp_to_tc_map"]; got != "AZURE" {
						return fmt.Errorf("Ethernet8 left on %q after the port was dropped from the resource", got)
					}
					return nil
				},
			},
		},
	})
}

// TestSwitchQoSImportUpdateDestroy imports a resource, updates it and destroys it: with no
// restore point recorded before the import, destroy must put SONiC's stock maps, schedulers
// and WRED profile back on the ports, not strip them.
func TestSwitchQoSImportUpdateDestroy(t *testing.T) {
	f := newSwitchFixture(t, switchtwin.Options{})
	const addr = "roce_switch_qos.leaf1"
	imp := fmt.Sprintf("import {\n  to = %s\n  id = %q\n}\n", addr, f.addr+"/ROCE/Ethernet0,Ethernet8")
	forget := "removed {\n  from = " + addr + "\n  lifecycle { destroy = false }\n}\n"
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			return f.expect(map[string]map[string]string{
				"PORT_QOS_MAP|Ethernet0": {"dscp_to_tc_map": "AZURE", "tc_to_pg_map": "AZURE", "pfc_enable": "3,4"},
				"PORT_QOS_MAP|Ethernet8": {"dscp_to_tc_map": "AZURE", "pfc_to_queue_map": "AZURE"},
				"QUEUE|Ethernet0|3":      {"scheduler": "scheduler.1", "wred_profile": "AZURE_LOSSLESS"},
				"QUEUE|Ethernet0|6":      {"scheduler": "scheduler.0"},
			})
		},
		Steps: []resource.TestStep{
			{Config: f.config(leafConfig, f.addr, 102400, 256000)},
			{Config: f.provider + forget},
			{Config: f.config(leafConfig, f.addr, 102400, 256000) + imp},
			{Config: f.config(leafConfig, f.addr, 100000, 250000)},
		},
	})
}
