package provider

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// roceDevice is an RDMA device with one RoCE port at 400 Gb/s, as ibv_devinfo -v prints it.
func roceDevice(name string, active bool) facts.IBDevice {
	p := facts.IBPort{Num: 1, LinkLayer: "Ethernet", State: "PORT_DOWN", StateCode: facts.PortDown, ActiveWidth: "4X (2)", ActiveSpeed: "100.0 Gbps (128)"}
	if active {
		p.State, p.StateCode = "PORT_ACTIVE", facts.PortActive
	}
	return facts.IBDevice{Name: name, Ports: []facts.IBPort{p}}
}

func TestNCCLTestTopologyFromHosts(t *testing.T) {
	node1 := hostRDMA{host: "node1", devices: []facts.IBDevice{roceDevice("mlx5_0", true), roceDevice("mlx5_1", false), roceDevice("mlx5_2", true)}}
	node2 := hostRDMA{host: "node2", devices: []facts.IBDevice{roceDevice("mlx5_0", true), roceDevice("mlx5_1", true)}}
	unread := hostRDMA{host: "node3"}
	hosts := types.ListValueMust(types.StringType, []attr.Value{types.StringValue("node1"), types.StringValue("node2"), types.StringValue("node3")})

	// A rail down still counts: the hosts are built for three.
	m := ncclTestModel{Hosts: hosts}
	top := m.topology([]hostRDMA{node1, node2, unread})
	if top.Nodes != 3 || top.Rails != 3 || top.RailGbps != 400 || top.Source != "rails and line rate from ibv_devinfo -v on 2 hosts" {
		t.Errorf("topology = %+v", top)
	}
	// NCCL_IB_HCA narrows the rails to what it selects.
	m.Env = types.MapValueMust(types.StringType, map[string]attr.Value{"NCCL_IB_HCA": types.StringValue("=mlx5_0,mlx5_1")})
	if top := m.topology([]hostRDMA{node1, node2}); top.Rails != 2 {
		t.Errorf("rails with NCCL_IB_HCA = %d, want 2", top.Rails)
	}
	// Set attributes win over what the hosts say.
	m = ncclTestModel{Hosts: hosts, Rails: types.Int64Value(8), RailGbps: types.Int64Value(800), BusBWEfficiency: types.Float64Value(0.9)}
	if top := m.topology([]hostRDMA{node1}); top.Rails != 8 || top.RailGbps != 800 || top.Efficiency != 0.9 || top.Source != "rails and rail_gbps" {
		t.Errorf("topology = %+v", top)
	}
	// Nothing read and nothing set: no expected bandwidth.
	if _, ok := (ncclTestModel{Hosts: hosts}).topology([]hostRDMA{unread}).ExpectedBusBW(); ok {
		t.Error("an expected bandwidth without rails or line rate")
	}
}

func TestNCCLTestRingForGate(t *testing.T) {
	gate := ncclTestModel{MinBusBWFraction: types.Float64Value(0.8)}
	if diff := cmp.Diff(map[string]string{"NCCL_ALGO": "Ring", "NCCL_IB_HCA": "=mlx5_0"}, gate.withRingForGate(map[string]string{"NCCL_IB_HCA": "=mlx5_0"})); diff != "" {
		t.Errorf("gate env (-want +got):\n%s", diff)
	}
	if got := gate.withRingForGate(map[string]string{"NCCL_ALGO": "Tree"}); got["NCCL_ALGO"] != "Tree" {
		t.Errorf("env's NCCL_ALGO was overridden: %v", got)
	}
	if got := (ncclTestModel{}).withRingForGate(nil); len(got) != 0 {
		t.Errorf("no gate, env %v", got)
	}

	// A gate with another algorithm warns on env["NCCL_ALGO"].
	var diags diag.Diagnostics
	gate.Env = types.MapValueMust(types.StringType, map[string]attr.Value{"NCCL_ALGO": types.StringValue("Tree")})
	validateBusBWGate(&diags, gate)
	if diags.HasError() || diags.WarningsCount() != 1 || !strings.Contains(diags[0].Detail(), `env["NCCL_ALGO"] is "Tree"`) {
		t.Errorf("diagnostics = %v", diags)
	}
	diags = nil
	gate.Env = types.MapValueMust(types.StringType, map[string]attr.Value{"NCCL_ALGO": types.StringValue("ring")})
	if validateBusBWGate(&diags, gate); len(diags) != 0 {
		t.Errorf("Ring drew %v", diags)
	}
}
