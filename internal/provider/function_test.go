package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
)

func TestFunctionPFCHeadroom(t *testing.T) {
	cliTest(t, resource.TestCase{
		TerraformVersionChecks:   functionsVersionCheck,
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `output "h400" { value = provider::roce::pfc_headroom(400, 5, 9100) }
output "h800" { value = provider::roce::pfc_headroom(800, 40, 9100) }`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("h400", knownvalue.ObjectExact(map[string]knownvalue.Check{
						"xon_bytes":  knownvalue.Int64Exact(19456),
						"xoff_bytes": knownvalue.Int64Func(withinKiB(231424)),
						"size_bytes": knownvalue.Int64Func(withinKiB(231424 + 19456)),
					})),
					statecheck.ExpectKnownOutputValue("h800", knownvalue.ObjectExact(map[string]knownvalue.Check{
						"xon_bytes":  knownvalue.Int64Exact(38912),
						"xoff_bytes": knownvalue.Int64Func(withinKiB(362496)),
						"size_bytes": knownvalue.Int64Func(withinKiB(410624)),
					})),
				},
			},
			{
				Config:      `output "bad" { value = provider::roce::pfc_headroom(300, 5, 9100) }`,
				ExpectError: regexp.MustCompile(`(?s)speed.*300`),
			},
		},
	})
}

func TestFunctionToS(t *testing.T) {
	cliTest(t, resource.TestCase{
		TerraformVersionChecks:   functionsVersionCheck,
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `output "rdma" { value = provider::roce::tos(26, 2) }
output "cnp" { value = provider::roce::tos(48, 0) }`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("rdma", knownvalue.Int64Exact(106)),
					statecheck.ExpectKnownOutputValue("cnp", knownvalue.Int64Exact(192)),
				},
			},
			{
				Config:      `output "bad" { value = provider::roce::tos(64, 2) }`,
				ExpectError: regexp.MustCompile(`(?s)dscp.*64`),
			},
			{
				Config:      `output "bad" { value = provider::roce::tos(26, 4) }`,
				ExpectError: regexp.MustCompile(`(?s)ecn.*4`),
			},
		},
	})
}

func TestFunctionECNPFCFindings(t *testing.T) {
	cliTest(t, resource.TestCase{
		TerraformVersionChecks:   functionsVersionCheck,
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: `output "sound" { value = provider::roce::ecn_pfc_findings(102400, 153600, 256000) }
output "ratio" { value = provider::roce::ecn_pfc_findings(102400, 153600, 512000) }
output "order" { value = provider::roce::ecn_pfc_findings(153600, 102400, 256000) }`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("sound", knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownOutputValue("ratio", knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringRegexp(regexp.MustCompile(`^error: pfc\.pause_threshold_bytes: .*512000`)),
					})),
					statecheck.ExpectKnownOutputValue("order", knownvalue.ListPartial(map[int]knownvalue.Check{
						0: knownvalue.StringRegexp(regexp.MustCompile(`^error: ecn\.`)),
					})),
				},
			},
		},
	})
}

// TestFunctionECNPFCFindingsBlocksPlan is how users are meant to use the function: a
// precondition that stops the plan before anything reaches a switch.
func TestFunctionECNPFCFindingsBlocksPlan(t *testing.T) {
	const config = `
variable "pfc_pause_bytes" { type = number }

locals {
  findings = provider::roce::ecn_pfc_findings(102400, 153600, var.pfc_pause_bytes)
}

resource "terraform_data" "fabric" {
  input = var.pfc_pause_bytes
  lifecycle {
    precondition {
      condition     = length([for f in local.findings : f if startswith(f, "error:")]) == 0
      error_message = join("\n", local.findings)
    }
  }
}
`
	cliTest(t, resource.TestCase{
		TerraformVersionChecks:   functionsVersionCheck,
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:          config,
				ConfigVariables: configVariables("pfc_pause_bytes", 512000),
				ExpectError:     regexp.MustCompile(`(?s)Resource precondition failed.*pfc\.pause_threshold_bytes`),
			},
			{
				Config:          config,
				ConfigVariables: configVariables("pfc_pause_bytes", 256000),
			},
		},
	})
}

// withinKiB accepts a value no further than 1 KiB from want: SONiC's table rounds to 1 KiB.
func withinKiB(want int64) func(int64) error {
	return func(got int64) error {
		if got < want-1024 || got > want+1024 {
			return fmt.Errorf("got %d, want %d ± 1024", got, want)
		}
		return nil
	}
}
