package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

const cumulusHealthConfig = `
data "roce_fabric_health" "fabric" {
  switches         = [{ address = %q, os = "cumulus" }]
  interval_seconds = 1
  require_traffic  = false
}
`

// TestFabricHealthOnCumulus judges a Cumulus switch's NVUE counters through the real CLI: a
// quiet switch passes, then a drop on the lossless queue of one port and a watchdog deadlock
// on another are each named with Cumulus' advice.
func TestFabricHealthOnCumulus(t *testing.T) {
	f := newCumulusFixture(t, "5.14")
	f.twin.SetApplied("interface/swp3/qos/pfc-watchdog", map[string]any{"state": "enable"})
	cfg := f.provider + fmt.Sprintf(cumulusHealthConfig, f.addr)
	logPath := filepath.Join(t.TempDir(), "debug.log")
	t.Setenv("TF_LOG", "DEBUG")
	t.Setenv("TF_LOG_PATH", logPath)
	const ds = "data.roce_fabric_health.fabric"

	// drops adds to swp2's lossless queue discards every 50 ms until the test ends, as an
	// overflowing queue would.
	drops := func() {
		everyTick(t, func() error { return f.twin.AddCounter("swp2", "egress-queue-stats", 3, "tx-uc-buffer-discards", 3) })
	}
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(ds, "ok", "true"),
					resource.TestCheckResourceAttr(ds, "switch_ports.#", "8"),
					resource.TestCheckResourceAttr(ds, "switch_ports.0.port", "swp1"),
					// The guide's egress queues count no ECN: the port's marks are read.
					resource.TestMatchTypeSetElemNestedAttrs(ds, "checks.*", map[string]*regexp.Regexp{
						"check": regexp.MustCompile(`^ecn_cnp$`), "detail": regexp.MustCompile(`\(8 ports count them per port, every queue's\)`)}),
					// The default configuration puts every priority in priority group bulk (0).
					resource.TestMatchTypeSetElemNestedAttrs(ds, "checks.*", map[string]*regexp.Regexp{
						"check": regexp.MustCompile(`^lossless_drops$`), "detail": regexp.MustCompile(`ingress drops not judged on 8 switch port priorities`)}),
					func(*terraform.State) error {
						b, err := os.ReadFile(logPath)
						if err != nil {
							return err
						}
						if want := "nvue read of the QoS counters"; !strings.Contains(string(b), want) || !strings.Contains(string(b), f.addr) {
							return fmt.Errorf("TF_LOG=DEBUG lacks %q for %s", want, f.addr)
						}
						return nil
					},
				),
			},
			{
				PreConfig: func() {
					drops()
					if err := f.twin.SetDeadlock("swp3", 3, true); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(ds, "ok", "false"),
					resource.TestMatchResourceAttr(ds, "failures.0", regexp.MustCompile(`^lossless_drops \S+ swp2 queue 3: the lossless queue dropped bytes: dropped_bytes \+\d+`)),
					resource.TestMatchResourceAttr(ds, "failures.1", regexp.MustCompile(`^pfc_watchdog \S+ swp3 queue 3: the queue is in storm state \(pfc-watchdog status DEADLOCK\)`)),
					resource.TestCheckTypeSetElemNestedAttrs(ds, "checks.*", map[string]string{"check": "pfc_watchdog", "subject": "swp3 queue 3", "pass": "false"}),
					resource.TestMatchTypeSetElemNestedAttrs(ds, "checks.*", map[string]*regexp.Regexp{
						"check": regexp.MustCompile(`^pfc_watchdog$`), "remedy": regexp.MustCompile(`nv show interface swp3 qos pfc-watchdog`)}),
				),
			},
			{
				// The deprecated list of addresses reads the same switch.
				Config: strings.Replace(cfg, fmt.Sprintf(`switches         = [{ address = %q, os = "cumulus" }]`, f.addr), fmt.Sprintf(`cumulus_switches = [%q]`, f.addr), 1),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(ds, "switch_ports.#", "8"),
					resource.TestMatchResourceAttr(ds, "failures.0", regexp.MustCompile(`^lossless_drops \S+ swp2 queue 3`)),
				),
			},
		},
	})
}
