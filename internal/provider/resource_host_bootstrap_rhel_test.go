package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// rhelBootstrapConfig pins DOCA-OFED version from the rocky9 twins' dnf repository, with
// the family left to the host (and set when family is not empty).
func rhelBootstrapConfig(provider, host, version, family string, extra ...string) string {
	fam := ""
	if family != "" {
		fam = fmt.Sprintf("  family = %q\n", family)
	}
	more := strings.Join(extra, "\n    ")
	return provider + fmt.Sprintf(`
resource "roce_host_bootstrap" "gpu" {
  host = %q
%s  ofed = {
    flavor   = "doca"
    version  = %q
    repo_url = "file:///srv/twin-dnf/doca/%s"
    trusted  = true
    %s
  }
  gpudirect = "none"
}
`, host, fam, version, version, more)
}

// TestHostBootstrapRHEL runs a Rocky Linux 9 host from Rocky's inbox rdma-core through the
// real dnf and rpm of its twin: DOCA-OFED installed and version-locked, a second plan
// empty, an upgrade under the lock, a lock removed by hand put back, a family that is not
// the host's refused, and a destroy that leaves the packages but no lock or repository.
func TestHostBootstrapRHEL(t *testing.T) {
	f, provider := hostTwins(t)
	const addr = "roce_host_bootstrap.gpu"
	host := twinAddress(t, f, "rocky")
	hostHas := func(script string, want ...string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			got := onTwin(t, f, "rocky", script)
			for _, w := range want {
				if !strings.Contains(got, w) {
					return fmt.Errorf("%s: want %q in:\n%s", script, w, got)
				}
			}
			return nil
		}
	}
	const query = "rpm -q doca-ofed rdma-core kmod-mlnx-ofa_kernel mlnx-ofa_kernel-dkms; dnf -q versionlock list; ofed_info -s; cat /etc/yum.repos.d/roce-ofed.repo"
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			got := onTwin(t, f, "rocky", "dnf -q versionlock list; ls /etc/yum.repos.d; rpm -q doca-ofed")
			if strings.Contains(got, "doca-ofed-0:") || strings.Contains(got, "roce-ofed.repo") || !strings.Contains(got, "doca-ofed-25.10-1.7.1.") {
				return fmt.Errorf("after destroy: want no lock and no repository, doca-ofed still installed:\n%s", got)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: rhelBootstrapConfig(provider, host, "25.07-0.9.7", ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("family"), knownvalue.StringExact("auto")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ofed_running_version"), knownvalue.StringExact("25.07-0.9.7")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("reboot_required"), knownvalue.Bool(false)),
				},
				Check: hostHas(query, "doca-ofed-25.07-0.9.7.", "rdma-core-2507mlnx58-1.2507097.", "kmod-mlnx-ofa_kernel-25.07-OFED.25.07.0.9.7.1.rhel9u6.",
					"doca-ofed-0:25.07-0.9.7.*", "OFED-internal-25.07-0.9.7:", "baseurl=file:///srv/twin-dnf/doca/25.07-0.9.7", "gpgcheck=0"),
			},
			{
				// An upgrade: the lock on 25.07 is lifted, 25.10 installed (its kernel
				// package is the DKMS one now) and locked.
				Config: rhelBootstrapConfig(provider, host, "25.10-1.7.1", ""),
				Check: hostHas(query, "doca-ofed-25.10-1.7.1.", "rdma-core-2510.0.11-1.el9.", "mlnx-ofa_kernel-dkms-25.10-OFED.25.10.1.7.1.1.el9.",
					"doca-ofed-0:25.10-1.7.1.*", "OFED-internal-25.10-1.7.1:"),
			},
			{
				// Drift: the lock removed by hand is planned back and put back.
				PreConfig: func() { onTwin(t, f, "rocky", "dnf -q versionlock delete doca-ofed") },
				Config:    rhelBootstrapConfig(provider, host, "25.10-1.7.1", ""),
				Check:     hostHas("dnf -q versionlock list", "doca-ofed-0:25.10-1.7.1.*"),
			},
			{
				Config: rhelBootstrapConfig(provider, host, "25.10-1.7.1", "debian"),
				// On the family attribute (the CLI quotes its line), naming both.
				ExpectError: regexp.MustCompile(`(?s)Cannot Plan Host Bootstrap.*family = "debian".*family\s+is\s+"debian"\s+but\s+the\s+host\s+runs\s+` +
					`Rocky\s+Linux\s+9\.6\s+\(Blue\s+Onyx\),\s+a\s+rhel-family\s+distribution`),
			},
		},
	})
}

// TestHostBootstrapRHELWaitsForDnfLock holds dnf's rpmdb lock on a Rocky host the way a
// running dnf does (its pid in /var/lib/dnf/rpmdb_lock.pid): the downgrade waits
// lock_timeout for it and then fails naming the lock and its holder; once the holder is
// gone the same apply converges.
func TestHostBootstrapRHELWaitsForDnfLock(t *testing.T) {
	f, provider := hostTwins(t)
	host := twinAddress(t, f, "rockylock")
	config := rhelBootstrapConfig(provider, host, "25.07-0.9.7", "", `lock_timeout = "2s"`)
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: func() {
					onTwin(t, f, "rockylock", "mkdir -p /var/lib/dnf; setsid sleep 120 </dev/null >/dev/null 2>&1 & echo $! >/var/lib/dnf/rpmdb_lock.pid")
				},
				Config:      config,
				ExpectError: regexp.MustCompile(`dnf's\s+RPMDB\s+lock\s+is\s+held\s+by\s+process\s+[0-9]+\s+and\s+was\s+waited\s+for\s+2s`),
			},
			{
				PreConfig: func() { onTwin(t, f, "rockylock", "kill $(cat /var/lib/dnf/rpmdb_lock.pid)") },
				Config:    config,
				Check: func(*terraform.State) error {
					if got := onTwin(t, f, "rockylock", "rpm -q doca-ofed"); !strings.Contains(got, "doca-ofed-25.07-0.9.7.") {
						return fmt.Errorf("after the lock was released: %s", got)
					}
					return nil
				},
			},
		},
	})
}

// TestHostBootstrapRHELGPUDirect is the GPUDirect phase after OFED on Rocky: the NVIDIA
// driver was built before OFED, so nvidia-peermem fails and the provider names the remedy;
// once DKMS rebuilt the driver the same apply loads and persists it.
func TestHostBootstrapRHELGPUDirect(t *testing.T) {
	f, provider := hostTwins(t)
	config := strings.Replace(rhelBootstrapConfig(provider, twinAddress(t, f, "rockywrong"), "25.10-1.7.1", ""),
		`gpudirect = "none"`, `gpudirect = "peermem"`, 1)
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{Config: config, ExpectError: regexp.MustCompile(`(?s)built\s+before\s+OFED.*(dkms|rebuild|reinstall)`)},
			{
				PreConfig: func() { onTwin(t, f, "rockywrong", "dkms autoinstall >/dev/null 2>&1 || true") },
				Config:    config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("roce_host_bootstrap.gpu", tfjsonpath.New("gpudirect_mode"), knownvalue.StringExact("peermem")),
				},
				Check: func(*terraform.State) error {
					got := onTwin(t, f, "rockywrong", "dnf -q versionlock list; echo conf: $(cat /etc/modules-load.d/nvidia_peermem.conf); "+
						"test -e /sys/kernel/mm/memory_peers/nv_mem/version && echo registered")
					for _, want := range []string{"doca-ofed-0:25.10-1.7.1.*", "conf: nvidia_peermem\n", "registered"} {
						if !strings.Contains(got, want) {
							return fmt.Errorf("Rocky host after bootstrap lacks %q:\n%s", want, got)
						}
					}
					return nil
				},
			},
		},
	})
}
