package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clusterbid/terraform-provider-roce/internal/nccltest"
)

// envAlgo is the variable that picks NCCL's algorithms; a gate against the expected bus
// bandwidth runs with it set to Ring unless env sets it.
const envAlgo = "NCCL_ALGO"

// needsRDMARead reports whether the run reads the hosts' RDMA devices: to check env's
// NCCL_IB_HCA against them, or to derive the rails or their line rate that the configuration
// leaves unset for a run across hosts.
func (m ncclTestModel) needsRDMARead() bool {
	if _, ok, _ := envHCASpec(knownStringMap(m.Env)); ok {
		return true
	}
	return len(knownStrings(m.Hosts)) > 1 && (!isSet(m.Rails) || !isSet(m.RailGbps))
}

// topology is what the run's expected bus bandwidth is derived from: the hosts, and the rails
// and line rate from rails and rail_gbps, else from the hosts' ibv_devinfo -v (the RoCE ports
// NCCL_IB_HCA selects: their count on the host with the most, the fastest active one's rate).
func (m ncclTestModel) topology(hosts []hostRDMA) nccltest.Topology {
	t := nccltest.Topology{Nodes: len(knownStrings(m.Hosts))}
	if isSet(m.BusBWEfficiency) {
		t.Efficiency = m.BusBWEfficiency.ValueFloat64()
	}
	var given, detected []string
	if isSet(m.Rails) {
		t.Rails = int(m.Rails.ValueInt64())
		given = append(given, "rails")
	}
	if isSet(m.RailGbps) {
		t.RailGbps = float64(m.RailGbps.ValueInt64())
		given = append(given, "rail_gbps")
	}
	rails, gbps, read := detectRails(hosts, knownStringMap(m.Env))
	if t.Rails == 0 && rails > 0 {
		t.Rails = rails
		detected = append(detected, "rails")
	}
	if t.RailGbps == 0 && gbps > 0 {
		t.RailGbps = gbps
		detected = append(detected, "line rate")
	}
	t.Source = strings.Join(given, " and ")
	if len(detected) > 0 {
		if t.Source != "" {
			t.Source += "; "
		}
		t.Source += fmt.Sprintf("%s from ibv_devinfo -v on %d hosts", strings.Join(detected, " and "), read)
	}
	return t
}

// detectRails counts the RoCE ports NCCL would use on each host read (NCCL_IB_HCA's
// selection when env sets it) and returns the most any host has, the fastest active port's
// line rate in Gb/s, and how many hosts were read. A host with a rail down still counts it:
// the expected bandwidth is what the hosts are built for.
func detectRails(hosts []hostRDMA, env map[string]string) (rails int, gbps float64, read int) {
	spec, filtered, _ := envHCASpec(env)
	for _, h := range hosts {
		if h.devices == nil {
			continue
		}
		read++
		n := 0
		for _, dev := range h.devices {
			for _, p := range dev.Ports {
				if !p.RoCE() || (filtered && !spec.Selects(dev.Name, p.Num)) {
					continue
				}
				n++
				if r, ok := p.RateGbps(); ok && p.Active() {
					gbps = max(gbps, r)
				}
			}
		}
		rails = max(rails, n)
	}
	return rails, gbps, read
}

// withRingForGate returns the run's environment with NCCL_ALGO=Ring added when the run is
// gated on a fraction of the expected bandwidth and env does not choose the algorithm: the
// expected figure is the ring's.
func (m ncclTestModel) withRingForGate(env map[string]string) map[string]string {
	if !isSet(m.MinBusBWFraction) {
		return env
	}
	if _, set := env[envAlgo]; set {
		return env
	}
	out := map[string]string{envAlgo: "Ring"}
	for k, v := range env {
		out[k] = v
	}
	return out
}

// optionalFloat is a computed number that is null when unknown.
func optionalFloat(v float64, ok bool) types.Float64 {
	if !ok {
		return types.Float64Null()
	}
	return types.Float64Value(v)
}

// validateBusBWGate checks the attributes of the bandwidth gate: the fraction and the
// efficiency are shares, a fraction needs hosts to cross, and a gate against the ring's
// figure warns when env picks another algorithm.
func validateBusBWGate(diags *diag.Diagnostics, m ncclTestModel) {
	if v := m.BusBWEfficiency; isSet(v) && (v.ValueFloat64() <= 0 || v.ValueFloat64() > 1) {
		diags.AddAttributeError(path.Root("busbw_efficiency"), "Value Out of Range",
			fmt.Sprintf("busbw_efficiency is %g; it is a share of the line rate, more than 0 and at most 1: set e.g. %g, the default, or leave it unset.", v.ValueFloat64(), nccltest.DefaultEfficiency))
	}
	f := m.MinBusBWFraction
	if !isSet(f) {
		return
	}
	if f.ValueFloat64() <= 0 || f.ValueFloat64() > 1 {
		diags.AddAttributeError(path.Root("min_busbw_fraction"), "Value Out of Range",
			fmt.Sprintf("min_busbw_fraction is %g; it is a share of the expected bus bandwidth, more than 0 and at most 1: set e.g. 0.8, or use min_busbw_gbps for a figure in GB/s.", f.ValueFloat64()))
	}
	if isSet(m.Hosts) && len(m.Hosts.Elements()) == 1 {
		diags.AddAttributeError(path.Root("min_busbw_fraction"), "Expected Bandwidth Needs Two Hosts",
			fmt.Sprintf("min_busbw_fraction is %g with one host: a single host's all-reduce runs over NVLink, which the rails do not bound, so no bandwidth is expected of them. "+
				"List two or more hosts, or set min_busbw_gbps instead.", f.ValueFloat64()))
	}
	if algo, set := knownStringMap(m.Env)[envAlgo]; set && !nccltest.IsRing(algo) {
		diags.AddAttributeWarning(path.Root("env").AtMapKey(envAlgo), "Bandwidth Gate Not on the Ring",
			fmt.Sprintf(`env["NCCL_ALGO"] is %q while min_busbw_fraction gates on the expected bandwidth, which is a ring's: Tree or NVLS can measure above it on few hosts. `+
				`Set NCCL_ALGO to Ring (or remove it: the data source then sets Ring) for an acceptance gate.`, algo))
	}
}
