package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestGDRPreflightVerdicts(t *testing.T) {
	f, provider := hostTwins(t)
	socketLog, err := os.ReadFile(filepath.Join("..", "host", "facts", "testdata", "nccl_socket.txt"))
	if err != nil {
		t.Fatal(err)
	}
	onTwin(t, f, "portdown", "mkdir -p /var/log/nccl && cat > /var/log/nccl/run.log <<'LOG'\n"+string(socketLog)+"LOG\n")
	const addr = "data.roce_gdr_preflight.h"
	read := func(name, extra string) string {
		return provider + fmt.Sprintf("data \"roce_gdr_preflight\" \"h\" {\n  host = %q\n  %s\n}\n", twinAddress(t, f, name), extra)
	}
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{
				// Open kernel modules: DMA-BUF is ready, nothing else is wrong. Without detail the
				// state keeps the counts and no verdict.
				Config: read("dmabuf", ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ok"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("failures"), knownvalue.ListSizeExact(0)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("failed"), knownvalue.Int64Exact(0)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("passed"), knownvalue.Int64Func(func(n int64) error {
						if n < 10 {
							return fmt.Errorf("passed = %d, want every check of an 8-port, 8-GPU host (10 or more)", n)
						}
						return nil
					})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("checks"), knownvalue.ListSizeExact(0)),
				},
			},
			{
				// Proprietary modules and no peermem loaded: GPUDirect is not ready. Without detail
				// checks holds that one failed verdict.
				Config: read("cx7", ""),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ok"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("failures"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringRegexp(regexp.MustCompile(`^gpudirect: .*Remedy: .*peermem`)),
					})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("checks"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"check": knownvalue.StringExact("gpudirect"),
							"pass":  knownvalue.Bool(false),
						}),
					})),
				},
			},
			{
				// A port down and an NCCL run that fell back to sockets; with detail, checks
				// holds the passed verdicts too.
				Config: read("portdown", "nccl_log_path = \"/var/log/nccl/run.log\"\n  detail        = true"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ok"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("failures"), knownvalue.ListPartial(map[int]knownvalue.Check{
						0: knownvalue.StringRegexp(regexp.MustCompile(`^nic_port_active mlx5_3:1: `)),
					})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("checks"), knownvalue.SetPartial([]knownvalue.Check{
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"check": knownvalue.StringExact("nccl_network"),
							"pass":  knownvalue.Bool(false),
						}),
						knownvalue.ObjectPartial(map[string]knownvalue.Check{
							"check":   knownvalue.StringExact("nic_port_active"),
							"subject": knownvalue.StringExact("mlx5_0:1"),
							"pass":    knownvalue.Bool(true),
						}),
					})),
				},
			},
		},
	})
}
