package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// TestExamplesApply applies every documentation example that needs no switch or host, so
// the examples users copy from the docs are known to work.
func TestExamplesApply(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "..", "examples", "functions", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no function examples found: %v", err)
	}
	dirs = append(dirs, filepath.Join("..", "..", "examples", "quickstart"))
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cliTest(t, resource.TestCase{
				TerraformVersionChecks:   functionsVersionCheck,
				ProtoV6ProviderFactories: testProviderFactories,
				Steps: []resource.TestStep{{
					ConfigDirectory: config.StaticDirectory(dir),
				}},
			})
		})
	}
}

// TestEnvironmentVariablesDocumented keeps the provider page's table in step with env.go.
func TestEnvironmentVariablesDocumented(t *testing.T) {
	src, err := os.ReadFile("env.go")
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join("..", "..", "templates", "index.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	names := regexp.MustCompile(`"(ROCE_[A-Z_]+)"`).FindAllSubmatch(src, -1)
	if len(names) < 30 {
		t.Fatalf("found only %d ROCE_ variables in env.go", len(names))
	}
	for _, n := range names {
		if !regexp.MustCompile("`" + string(n[1]) + "`").Match(page) {
			t.Errorf("%s is not documented in templates/index.md.tmpl", n[1])
		}
	}
}

// TestSwitchQoSExampleApplies applies the resource page's example against a twin of the
// switch it describes (SN5600 with 800G ports Ethernet0, 8, 16, ...).
func TestSwitchQoSExampleApplies(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "resources", "roce_switch_qos", "resource.tf"))
	if err != nil {
		t.Fatal(err)
	}
	f := newSwitchFixture(t, switchtwin.Options{HWSKU: "ACS-SN5600", Ports: 32})
	config := f.provider + strings.ReplaceAll(string(src), "10.0.0.1:50051", f.addr)
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			Check: func(*terraform.State) error {
				return f.expect(map[string]map[string]string{
					"PORT_QOS_MAP|Ethernet248": {"pfc_enable": "3,4", "pfcwd_sw_enable": "3"},
					"PFC_WD|Ethernet248":       {"action": "drop", "detection_time": "200"},
				})
			},
		}},
	})
}

// TestSwitchQoSStorageExampleApplies applies the two-class example to a SONiC 202511 twin.
func TestSwitchQoSStorageExampleApplies(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "resources", "roce_switch_qos", "storage.tf"))
	if err != nil {
		t.Fatal(err)
	}
	f := newSwitchFixture(t, switchtwin.Options{HWSKU: "ACS-SN5600", Ports: 32, Release: "202511"})
	config := f.provider + strings.ReplaceAll(string(src), "10.0.0.2:50051", f.addr)
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			Check: func(*terraform.State) error {
				return f.expect(map[string]map[string]string{
					"PORT_QOS_MAP|Ethernet248":  {"pfc_enable": "3,4"},
					"QUEUE|Ethernet248|4":       {"scheduler": "ROCE_storage", "wred_profile": "ROCE_storage"},
					"SCHEDULER|ROCE_storage":    {"type": "DWRR", "weight": "30"},
					"WRED_PROFILE|ROCE_storage": {"green_min_threshold": "204800", "green_max_threshold": "409600"},
					"BUFFER_PG|Ethernet248|3-4": {"profile": "pg_lossless_800000_5m_profile"},
				})
			},
		}, {Config: config, PlanOnly: true}},
	})
}

// TestHostFactsExampleApplies runs the data source page's example against a twin host.
func TestHostFactsExampleApplies(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "data-sources", "roce_host_facts", "data-source.tf"))
	if err != nil {
		t.Fatal(err)
	}
	f, provider := hostTwins(t)
	config := provider + strings.ReplaceAll(string(src), `"10.0.1.11"`, fmt.Sprintf("%q", twinAddress(t, f, "gid5")))
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config: config,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("gid_indexes", knownvalue.ListExact([]knownvalue.Check{knownvalue.Int64Exact(5)})),
				statecheck.ExpectKnownOutputValue("gpus_far_from_their_nic", knownvalue.ListSizeExact(0)),
			},
		}},
	})
}

// TestNCCLEnvProfileExampleApplies applies the resource page's for_each example to two twin
// hosts with the Terraform CLI and a local build of the provider.
func TestNCCLEnvProfileExampleApplies(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "resources", "roce_nccl_env_profile", "resource.tf"))
	if err != nil {
		t.Fatal(err)
	}
	f, provider := hostTwins(t)
	config := strings.Replace(string(src), `["10.0.1.11", "10.0.1.12"]`,
		fmt.Sprintf("[%q, %q]", twinAddress(t, f, "cx8"), twinAddress(t, f, "dmabuf")), 1)
	cli := newTerraformCLI(t, map[string]string{
		"main.tf":     config,
		"provider.tf": "terraform {\n  required_providers {\n    roce = { source = \"clusterbid/roce\" }\n  }\n}\n" + provider,
	})
	cli.applyPlanDestroy(func() {
		for _, h := range []string{"cx8", "dmabuf"} {
			if got := onTwin(t, f, h, "grep -c NCCL_ /etc/nccl.conf"); got != "5\n" {
				t.Errorf("%s: /etc/nccl.conf has %q NCCL lines, want 5", h, got)
			}
		}
	})
}

// exampleOnTwin returns a documentation example with its placeholder host replaced by a twin.
func exampleOnTwin(t *testing.T, file, twinHost string, replace ...string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", file))
	if err != nil {
		t.Fatal(err)
	}
	f, provider := hostTwins(t)
	config := strings.ReplaceAll(string(src), `"10.0.1.11"`, fmt.Sprintf("%q", twinAddress(t, f, twinHost)))
	config = strings.NewReplacer(replace...).Replace(config)
	return provider + config
}

// TestHostExamplesApply applies the pages' examples of the host resources and the preflight
// data source to twins.
func TestHostExamplesApply(t *testing.T) {
	f, _ := hostTwins(t)
	onTwin(t, f, "exbootstrap", "mkdir -p /var/log/nccl && printf 'NCCL INFO Using network IB\\n' > /var/log/nccl/allreduce-test.log")
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{Config: exampleOnTwin(t, "resources/roce_nic_dcqcn/resource.tf", "exdcqcn")},
			{
				// The example's mirror and keyring stand for the user's; the twin serves its own
				// repository of the same version.
				Config: exampleOnTwin(t, "resources/roce_host_bootstrap/resource.tf", "exbootstrap",
					`"https://mirror.dc1.example.net/doca/25.10-1.7.1/ubuntu24.04/x86_64/"`, `"file:/srv/twin-apt/doca/25.10-1.7.1"`,
					`key      = "/usr/share/keyrings/mellanox.gpg"`, `trusted  = true`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("gpu1_needs_reboot", knownvalue.Bool(false)),
				},
			},
			{
				Config: exampleOnTwin(t, "data-sources/roce_gdr_preflight/data-source.tf", "exbootstrap"),
			},
		},
	})
}

// TestProviderExampleValidates checks the provider page's example with `terraform validate`
// (it names files and hosts of the reader's site, so it is validated, not applied).
func TestProviderExampleValidates(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "provider", "provider.tf"))
	if err != nil {
		t.Fatal(err)
	}
	cli := newTerraformCLI(t, map[string]string{"main.tf": string(src)})
	if out, code := cli.run("validate"); code != 0 || !strings.Contains(out, "The configuration is valid") {
		t.Fatalf("terraform validate (exit %d):\n%s", code, out)
	}
}
