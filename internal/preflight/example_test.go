package preflight_test

import (
	"fmt"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/preflight"
	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

// Judge the facts of a host (here built by hand; normally from host.Gather)
// together with the NCCL debug log of a test run.
func ExampleCheck() {
	f := host.Facts{
		Gathered: host.WantFacts(host.FactIBDevices, host.FactGIDs, host.FactTopology),
		IBDevices: []facts.IBDevice{{Name: "mlx5_0", Ports: []facts.IBPort{
			{Num: 1, State: "PORT_ACTIVE", StateCode: facts.PortActive, LinkLayer: "Ethernet"},
		}}},
		GIDs: []facts.GIDEntry{{Device: "mlx5_0", Port: 1, Index: 3, Type: facts.GIDRoCEv2, IPv4: true,
			GID: "0000:0000:0000:0000:0000:ffff:0a0c:0015", Netdev: "ens1f0np0"}},
		Topology: facts.Topology{
			GPUs: []string{"GPU0"}, NICLabels: []string{"NIC0"}, NICs: map[string]string{"NIC0": "mlx5_0"},
			Links: map[string]map[string]string{"GPU0": {"GPU0": "X", "NIC0": "PHB"}},
		},
	}
	log, _ := facts.ParseNCCLLog("node1:1:2 [0] NCCL INFO Using network Socket\n")
	o := preflight.DefaultOptions()
	o.NCCLLog = &log

	vs := preflight.Check(f, o)
	for _, v := range vs {
		status := "PASS"
		if !v.Pass {
			status = "FAIL"
		}
		fmt.Println(strings.TrimSpace(status + " " + v.Check + " " + v.Subject))
	}
	passed, failed := verdict.Count(vs)
	fmt.Printf("%d passed, %d failed\n", passed, failed)
	// Output:
	// PASS nic_port_active mlx5_0:1
	// PASS nic_link_layer mlx5_0:1
	// PASS roce_v2_gid mlx5_0
	// PASS gid_index_consistent
	// FAIL gpu_nic_affinity GPU0
	// FAIL gpu_bar1
	// FAIL gpudirect
	// PASS acs
	// FAIL nccl_network
	// PASS nccl_gdr_hca
	// FAIL nccl_gdrdma_channels
	// PASS nccl_warn
	// 7 passed, 5 failed
}
