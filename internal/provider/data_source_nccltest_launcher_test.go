package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/clusterbid/terraform-provider-roce/internal/nccltest"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
)

// TestNCCLTestUnderTaggedOutput runs the test under mpirun --tag-output, which labels every
// line "[1,0]<stdout>:": the table and footer parse through the labels, as on a cluster whose
// users add the flag to mpi_args.
func TestNCCLTestUnderTaggedOutput(t *testing.T) {
	fleet := podFleet(t, hosttwin.HostSpec{Name: "node1", Profile: "cx7"}, hosttwin.HostSpec{Name: "node2", Profile: "cx7"})
	onTwin(t, fleet, "node1", "modprobe nvidia-peermem")
	cfg := fmt.Sprintf(`provider "roce" {
  ssh = { user = "root", private_key_file = %q, known_hosts_file = %q }
}

data "roce_nccl_test" "t" {
  hosts     = [%q, %q]
  mpi_hosts = ["node1", "node2"]
  mpi_args  = ["--allow-run-as-root", "--tag-output"]
  max_bytes = "1G"
}
`, fleet.UserKeyFile(), fleet.KnownHostsFile(), twinAddress(t, fleet, "node1"), twinAddress(t, fleet, "node2"))
	const ds = "data.roce_nccl_test.t"
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config: cfg,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(ds, "network", "IB"),
				resource.TestCheckResourceAttr(ds, "sizes.#", "28"),
				resource.TestCheckTypeSetElemNestedAttrs(ds, "checks.*", map[string]string{"check": nccltest.CheckCompleted, "pass": "true"}),
				resource.TestCheckTypeSetElemNestedAttrs(ds, "checks.*", map[string]string{"check": nccltest.CheckData, "pass": "true"}),
				checkAttrFloatAtLeast(ds, "busbw_gbps", 1),
			),
		}},
	})
}
