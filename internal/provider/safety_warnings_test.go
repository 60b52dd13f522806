package provider

import (
	"fmt"
	"strings"
	"testing"
)

// TestSwitchQoSInsecureWarnsEveryPlan sets insecure transport on the resources themselves,
// which the provider block's warning does not see: each plan must warn, naming the switch.
func TestSwitchQoSInsecureWarnsEveryPlan(t *testing.T) {
	cli := newTerraformCLI(t, map[string]string{"main.tf": `
terraform {
  required_providers {
    roce = { source = "clusterbid/roce" }
  }
}
provider "roce" {}
resource "roce_switch_qos" "sonic" {
  address        = "127.0.0.1:1"
  ports          = ["Ethernet0"]
  cable_length_m = 5
  ecn  = { min_threshold_bytes = 102400, max_threshold_bytes = 153600, mark_probability_percent = 100 }
  pfc  = { pause_threshold_bytes = 256000 }
  gnmi = { username = "admin", password = "secret", insecure = true }
}
resource "roce_switch_qos" "cumulus" {
  os             = "cumulus"
  address        = "127.0.0.2:1"
  ports          = ["swp1"]
  cable_length_m = 5
  ecn  = { min_threshold_bytes = 102400, max_threshold_bytes = 153600, mark_probability_percent = 100 }
  pfc  = { pause_threshold_bytes = 256000 }
  nvue = { username = "cumulus", password = "secret", insecure = true }
}
`})
	for range 2 {
		out, code := cli.run("plan", "-input=false")
		if code != 0 {
			t.Fatalf("plan failed:\n%s", out)
		}
		for _, want := range []string{"Warning: gNMI Without TLS", "for switch 127.0.0.1:1", "Warning: NVUE Certificate Not Verified", "for switch 127.0.0.2:1"} {
			if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
				t.Errorf("plan does not say %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "secret") {
			t.Errorf("plan output shows a password:\n%s", out)
		}
	}
}

// TestHostBootstrapWeakTrustWarnsEveryPlan plans OFED from an unsigned local repository and
// from a plain-http one with a login: each plan must warn about both, naming the host.
func TestHostBootstrapWeakTrustWarnsEveryPlan(t *testing.T) {
	cli := newTerraformCLI(t, map[string]string{"main.tf": `
terraform {
  required_providers {
    roce = { source = "clusterbid/roce" }
  }
}
provider "roce" {
  ssh = { user = "root", insecure_ignore_host_key = true }
}
resource "roce_host_bootstrap" "unsigned" {
  host = "127.0.0.1:1"
  ofed = { flavor = "doca", version = "25.10-1.7.1", repo_url = "file:/srv/doca/25.10-1.7.1", trusted = true }
}
resource "roce_host_bootstrap" "clear" {
  host = "127.0.0.2:1"
  ofed = { flavor = "doca", version = "25.10-1.7.1", repo_url = "http://mirror.lan/doca/25.10-1.7.1/", key = "/etc/apt/keyrings/doca.gpg",
           repo_auth = { username = "gpu", password = "hunter2" } }
}
`})
	out, _ := cli.run("plan", "-input=false", "-refresh=false")
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"Warning: OFED Packages Not Verified", "ofed.trusted is true for 127.0.0.1:1",
		"Warning: Repository Password Without TLS", "over plain http from 127.0.0.2:1"} {
		if !strings.Contains(flat, want) {
			t.Errorf("plan does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "hunter2") {
		t.Errorf("plan output shows the repository password:\n%s", out)
	}
}

// TestNICDCQCNDestroySaysWhatStays: destroy removes the boot-time unit, but the values in
// effect and any NV config stay on the NIC; the destroy says so rather than promising
// firmware defaults.
func TestNICDCQCNDestroySaysWhatStays(t *testing.T) {
	f, provider := hostTwins(t)
	cli := newTerraformCLI(t, map[string]string{
		"provider.tf": "terraform {\n  required_providers {\n    roce = { source = \"clusterbid/roce\" }\n  }\n}\n" + provider,
		"main.tf":     fmt.Sprintf("resource \"roce_nic_dcqcn\" \"gpu\" {\n  host  = %q\n  dcqcn = { ai_rate_mbps = 10 }\n}\n", twinAddress(t, f, "dcqcn")),
	})
	if out, code := cli.run("apply", "-auto-approve", "-input=false"); code != 0 {
		t.Fatalf("apply failed:\n%s", out)
	}
	out, code := cli.run("destroy", "-auto-approve", "-input=false")
	flat := strings.Join(strings.Fields(out), " ")
	if code != 0 || !strings.Contains(flat, "Warning: NIC Settings Left in Place") || !strings.Contains(flat, "stay across reboots") {
		t.Fatalf("destroy: exit %d, want a warning saying what stays on the NIC:\n%s", code, out)
	}
}
