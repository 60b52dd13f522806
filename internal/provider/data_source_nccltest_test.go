package provider

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
)

func TestNCCLTestNamesTheCause(t *testing.T) {
	fleet := podFleet(t, hosttwin.HostSpec{Name: "node1", Profile: "cx7"}, hosttwin.HostSpec{Name: "node2", Profile: "cx7"})
	cfg := fmt.Sprintf(`provider "roce" {
  ssh = { user = "root", private_key_file = %q, known_hosts_file = %q }
}

data "roce_nccl_test" "t" {
  hosts          = [%q, %q]
  mpi_hosts      = ["node1", "node2"]
  mpi_args       = ["--allow-run-as-root"]
  max_bytes      = "1G"
  min_busbw_gbps = 300
  rails          = 8
}
`, fleet.UserKeyFile(), fleet.KnownHostsFile(), twinAddress(t, fleet, "node1"), twinAddress(t, fleet, "node2"))
	const ds = "data.roce_nccl_test.t"
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{
				// A fresh ConnectX-7 node with the proprietary driver has no nvidia-peermem yet.
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(ds, "ok", "false"),
					resource.TestCheckResourceAttr(ds, "network", "IB"),
					resource.TestCheckResourceAttr(ds, "sizes.#", "28"),
					resource.TestMatchResourceAttr(ds, "failures.0", regexp.MustCompile(
						`^nccl_test_busbw: bus bandwidth 1\d\d\.\d\d GB/s at 1073741824 bytes .*below the 300\.00 GB/s asked: GPU Direct RDMA was off on node1 \(mlx5_0, mlx5_1,`)),
				),
			},
			{
				PreConfig: func() { onTwin(t, fleet, "node1", "modprobe nvidia-peermem") },
				Config:    cfg,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(ds, "ok", "true"),
					resource.TestCheckResourceAttr(ds, "failures.#", "0"),
					checkAttrFloatAtLeast(ds, "busbw_gbps", 300),
				),
			},
			{
				// NCCL_IB_DISABLE in /etc/nccl.conf: the run falls back to TCP.
				PreConfig: func() { onTwin(t, fleet, "node1", "echo NCCL_IB_DISABLE=1 >> /etc/nccl.conf") },
				Config:    cfg,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(ds, "ok", "false"),
					resource.TestCheckResourceAttr(ds, "network", "Socket"),
					resource.TestMatchResourceAttr(ds, "failures.0", regexp.MustCompile(`^nccl_test_busbw: bus bandwidth 2\.\d\d GB/s .*NCCL fell back to its Socket transport`)),
					resource.TestMatchResourceAttr(ds, "failures.1", regexp.MustCompile(`^nccl_network: .*Socket.*NCCL_IB_DISABLE=1`)),
				),
			},
		},
	})
}

func TestNCCLTestWithoutNCCLTests(t *testing.T) {
	fleet, provider := hostTwins(t)
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config: provider + fmt.Sprintf(`data "roce_nccl_test" "t" {
  hosts  = [%q]
  binary = "/opt/nccl-tests/build/all_reduce_perf"
}
`, twinAddress(t, fleet, "cx7")),
			ExpectError: regexp.MustCompile(`(?si)NCCL Test Failed.*/opt/nccl-tests/build/all_reduce_perf on .* exited 127 .*No such file or\s+directory.*Install nccl-tests`),
		}},
	})
}

// checkAttrFloatAtLeast checks that a number attribute is at least lo.
func checkAttrFloatAtLeast(name, key string, lo float64) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[name]
		if !ok {
			return fmt.Errorf("no %s in state", name)
		}
		v, err := strconv.ParseFloat(rs.Primary.Attributes[key], 64)
		if err != nil || v < lo {
			return fmt.Errorf("%s.%s = %q, want at least %g", name, key, rs.Primary.Attributes[key], lo)
		}
		return nil
	}
}
