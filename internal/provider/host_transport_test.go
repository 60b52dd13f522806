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
	resource.UnitTest(t, resource.TestCase{
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
