package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestHostBootstrapFromInbox installs DOCA-OFED 25.10 on an inbox host from the twin's
// versioned repository, pinned and held; nvidia-peermem then meets a driver built before
// OFED, which the provider explains; after the driver is rebuilt the apply converges.
func TestHostBootstrapFromInbox(t *testing.T) {
	f, provider := hostTwins(t)
	const addr = "roce_host_bootstrap.gpu"
	config := provider + fmt.Sprintf(`
resource "roce_host_bootstrap" "gpu" {
  host = %q
  ofed = {
    flavor   = "doca"
    version  = "25.10-1.7.1"
    repo_url = "file:/srv/twin-apt/doca/25.10-1.7.1"
    trusted  = true
  }
  gpudirect = "peermem"
}
`, twinAddress(t, f, "bootstrap"))
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			got := onTwin(t, f, "bootstrap", "apt-mark showhold; ls /etc/apt/sources.list.d /etc/apt/preferences.d /etc/modules-load.d; ofed_info -s")
			if regexp.MustCompile(`doca-ofed|roce-ofed|nvidia_peermem`).MatchString(got) || !regexp.MustCompile(`25\.10-1\.7\.1`).MatchString(got) {
				return fmt.Errorf("after destroy: want no hold, pin, source or modules-load entry, OFED still installed:\n%s", got)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config:      config,
				ExpectError: regexp.MustCompile(`(?s)built\s+before\s+OFED.*(dkms|rebuild|reinstall)`),
			},
			{
				PreConfig: func() { onTwin(t, f, "bootstrap", "dkms autoinstall >/dev/null 2>&1 || true") },
				Config:    config,
				// The failed create installed OFED and wrote its source, pin and holds: it is
				// in state, tainted, so the apply replaces it (its destroy undoes them first)
				// rather than creating a second owner of untracked changes.
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ofed_running_version"), knownvalue.StringExact("25.10-1.7.1")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("gpudirect_mode"), knownvalue.StringExact("peermem")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("reboot_required"), knownvalue.Bool(false)),
				},
				Check: func(*terraform.State) error {
					got := onTwin(t, f, "bootstrap", "ofed_info -s; apt-mark showhold; cat /etc/modules-load.d/nvidia-peermem.conf /etc/modules-load.d/nvidia_peermem.conf 2>/dev/null; test -e /sys/kernel/mm/memory_peers/nv_mem/version && echo registered")
					for _, want := range []string{"OFED-internal-25.10-1.7.1:", "doca-ofed", "nvidia", "registered"} {
						if !regexp.MustCompile(regexp.QuoteMeta(want)).MatchString(got) {
							return fmt.Errorf("host after bootstrap lacks %q:\n%s", want, got)
						}
					}
					return nil
				},
			},
			{
				// Drift: someone releases the hold and deletes the pin; refresh sees it.
				PreConfig: func() {
					onTwin(t, f, "bootstrap", "apt-mark unhold doca-ofed >/dev/null && rm -f /etc/apt/preferences.d/roce-ofed")
				},
				Config:             config,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: config,
				Check: func(*terraform.State) error {
					got := onTwin(t, f, "bootstrap", "apt-mark showhold; cat /etc/apt/preferences.d/roce-ofed")
					if !strings.Contains(got, "doca-ofed\n") || !strings.Contains(got, "Pin-Priority") {
						return fmt.Errorf("apply after drift did not restore the hold and the pin:\n%s", got)
					}
					return nil
				},
			},
			{
				// Import takes the host. ofed and gpudirect are what the configuration wants
				// and planned_changes is the record of the last apply (the drift repair here),
				// which no host can tell, so only they may differ: every attribute read from
				// the host must match.
				ResourceName:            addr,
				ImportState:             true,
				ImportStateId:           twinAddress(t, f, "bootstrap"),
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"ofed", "gpudirect", "planned_changes"},
			},
		},
	})
}

func TestHostBootstrapChoosesDMABUF(t *testing.T) {
	f, provider := hostTwins(t)
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config: provider + fmt.Sprintf("resource \"roce_host_bootstrap\" \"gpu\" {\n  host = %q\n}\n", twinAddress(t, f, "bootstrapdmabuf")),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("roce_host_bootstrap.gpu", tfjsonpath.New("gpudirect_mode"), knownvalue.StringExact("dmabuf")),
			},
		}, {
			// Nothing in this configuration is beyond what the host tells: every attribute
			// of the import must match.
			ResourceName:      "roce_host_bootstrap.gpu",
			ImportState:       true,
			ImportStateId:     twinAddress(t, f, "bootstrapdmabuf"),
			ImportStateVerify: true,
		}},
	})
}

func TestHostBootstrapRefusesLatest(t *testing.T) {
	f, provider := hostTwins(t)
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config: provider + fmt.Sprintf(`
resource "roce_host_bootstrap" "gpu" {
  host = %q
  ofed = { flavor = "doca", version = "25.10-1.7.1", repo_url = "https://example.invalid/doca/latest/" }
}
`, twinAddress(t, f, "cx7")),
			ExpectError: regexp.MustCompile(`(?s)latest`),
		}},
	})
}
