package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestChangedHostKeyIsRefused: after a host is reinstalled with a new key, the provider
// refuses to talk to it and names both fingerprints.
func TestChangedHostKeyIsRefused(t *testing.T) {
	f, provider := hostTwins(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := f.RotateHostKey(ctx, "rotated"); err != nil {
		t.Fatal(err)
	}
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config:      provider + fmt.Sprintf("data \"roce_host_facts\" \"h\" {\n  host = %q\n}\n", twinAddress(t, f, "rotated")),
			ExpectError: regexp.MustCompile(`(?s)HOST KEY HAS CHANGED.*SHA256:\S+.*SHA256:\S+`),
		}},
	})
}

// TestOneConnectionPerHostPerCommand: a data source and two resources on the same host share
// one pooled SSH connection per provider process. Terraform runs a provider process per walk:
// a plan is one walk, applying a saved plan is one walk, and `apply` or `destroy` without a
// saved plan is two (plan, then apply) when there is something to change.
func TestOneConnectionPerHostPerCommand(t *testing.T) {
	f, provider := hostTwins(t)
	addr := twinAddress(t, f, "counted")
	cli := newTerraformCLI(t, map[string]string{
		"provider.tf": "terraform {\n  required_providers {\n    roce = { source = \"clusterbid/roce\" }\n  }\n}\n" + provider,
		"main.tf": fmt.Sprintf(`
data "roce_host_facts" "h" {
  host = %[1]q
}

resource "roce_nccl_env_profile" "a" {
  host      = %[1]q
  gid_index = "detect"
}

resource "roce_nccl_env_profile" "b" {
  host = %[1]q
  path = "/etc/nccl-b.conf"
  hcas = [for n in data.roce_host_facts.h.nics : n.device]
}
`, addr),
	})
	connections := func() int {
		n, err := f.ConnectionCount("counted")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	steps := []struct {
		args []string
		want int
	}{
		{[]string{"plan", "-out", "create.tfplan"}, 1},
		{[]string{"apply", "create.tfplan"}, 1},
		{[]string{"plan"}, 1},
		{[]string{"apply", "-auto-approve"}, 1}, // nothing to change: no apply walk
		{[]string{"destroy", "-auto-approve"}, 2},
	}
	for _, s := range steps {
		before := connections()
		if out, code := cli.run(s.args...); code != 0 {
			t.Fatalf("terraform %s:\n%s", strings.Join(s.args, " "), out)
		}
		if got := connections() - before; got != s.want {
			t.Errorf("terraform %s opened %d SSH connections to the host, want %d", strings.Join(s.args, " "), got, s.want)
		}
	}
}

// TestThreeHostResourcesOneConnection applies the three host resources to one host: the
// saved plan's apply opens one SSH connection, and a second apply changes nothing and runs
// only the three reads (one batched command per resource), no write.
func TestThreeHostResourcesOneConnection(t *testing.T) {
	f, provider := hostTwins(t)
	cli := newTerraformCLI(t, map[string]string{
		"provider.tf": "terraform {\n  required_providers {\n    roce = { source = \"clusterbid/roce\" }\n  }\n}\n" + provider,
		"main.tf": fmt.Sprintf(`
resource "roce_host_bootstrap" "gpu" {
  host = %[1]q
}

resource "roce_nic_dcqcn" "gpu" {
  host       = %[1]q
  depends_on = [roce_host_bootstrap.gpu]
}

resource "roce_nccl_env_profile" "gpu" {
  host = %[1]q
}
`, twinAddress(t, f, "three")),
	})
	count := func() (conns, cmds int) {
		c, err := f.ConnectionCount("three")
		if err != nil {
			t.Fatal(err)
		}
		m, err := f.CommandCount("three")
		if err != nil {
			t.Fatal(err)
		}
		return c, m
	}
	if out, code := cli.run("plan", "-out", "p.tfplan"); code != 0 {
		t.Fatalf("plan:\n%s", out)
	}
	c0, _ := count()
	if out, code := cli.run("apply", "p.tfplan"); code != 0 {
		t.Fatalf("apply:\n%s", out)
	}
	c1, m1 := count()
	if c1-c0 != 1 {
		t.Errorf("applying the saved plan opened %d SSH connections, want 1", c1-c0)
	}
	out, code := cli.run("apply", "-auto-approve")
	if code != 0 || !strings.Contains(out, "0 added, 0 changed, 0 destroyed") {
		t.Fatalf("second apply (exit %d) changed something:\n%s", code, out)
	}
	c2, m2 := count()
	// The three resources share one gather of the host (the provider's gather cache).
	if c2-c1 != 1 || m2-m1 != 1 {
		t.Errorf("second apply: %d connections and %d remote commands, want 1 and 1 (one read shared by the three resources, no write)", c2-c1, m2-m1)
	}
}

// TestSSHDCrashBeforeApply: the host's sshd dies between plan and apply. The apply fails with
// an error that names the host, nothing is half-written, and once sshd is back the next apply
// converges.
func TestSSHDCrashBeforeApply(t *testing.T) {
	f, provider := hostTwins(t)
	addr := twinAddress(t, f, "crash")
	cli := newTerraformCLI(t, map[string]string{
		"provider.tf": "terraform {\n  required_providers {\n    roce = { source = \"clusterbid/roce\" }\n  }\n}\n" + provider,
		"main.tf": fmt.Sprintf(`
resource "roce_nccl_env_profile" "gpu" {
  host = %q
  hcas = ["mlx5_0", "mlx5_1"]
}
`, addr),
	})
	if out, code := cli.run("plan", "-out", "p.tfplan"); code != 0 {
		t.Fatalf("plan:\n%s", out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := f.KillSSHD(ctx, "crash"); err != nil {
		t.Fatal(err)
	}
	out, code := cli.run("apply", "p.tfplan")
	if code == 0 || !strings.Contains(out, addr) {
		t.Fatalf("apply with sshd down (exit %d) should fail naming %s:\n%s", code, addr, out)
	}
	if err := f.RestartSSHD(ctx, "crash"); err != nil {
		t.Fatal(err)
	}
	if got := onTwin(t, f, "crash", "ls -a /etc | grep -c -e nccl -e '\\.tmp' || true"); got != "0\n" {
		t.Fatalf("the failed apply left files in /etc: %s", got)
	}
	if out, code := cli.run("apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply after sshd restart:\n%s", out)
	}
	if out, code := cli.run("plan", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after recovery is not empty (exit %d):\n%s", code, out)
	}
	if got := onTwin(t, f, "crash", "cat /etc/nccl.conf"); !strings.Contains(got, "NCCL_IB_HCA==mlx5_0,mlx5_1\n") {
		t.Errorf("/etc/nccl.conf after recovery:\n%s", got)
	}
}

// TestHundredResourcesOnOneHost: 100 resources on one host share its connection without
// tripping sshd's MaxSessions (10), at Terraform's default parallelism.
func TestHundredResourcesOnOneHost(t *testing.T) {
	f, provider := hostTwins(t)
	cli := newTerraformCLI(t, map[string]string{
		"provider.tf": "terraform {\n  required_providers {\n    roce = { source = \"clusterbid/roce\" }\n  }\n}\n" + provider,
		"main.tf": fmt.Sprintf(`
resource "roce_nccl_env_profile" "job" {
  count = 100
  host  = %q
  path  = "/etc/nccl-job-${count.index}.conf"
  debug = "WARN"
}
`, twinAddress(t, f, "crowded")),
	})
	start := time.Now()
	if out, code := cli.run("apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply of 100 resources:\n%s", out)
	}
	t.Logf("apply of 100 resources on one host took %s", time.Since(start).Round(time.Millisecond))
	if got := onTwin(t, f, "crowded", "ls /etc/nccl-job-*.conf | wc -l"); got != "100\n" {
		t.Errorf("%s files written, want 100", strings.TrimSpace(got))
	}
	if out, code := cli.run("destroy", "-auto-approve"); code != 0 {
		t.Fatalf("destroy:\n%s", out)
	}
}
