package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi/gnmitest"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/traffic"
)

// rolloutPod is a pod of two SONiC switch twins and two host twins for the staged rollout of
// examples/modules/rail-optimized-pod, cabled by the traffic model with traffic running until
// the test ends. Cabled rail by rail, gpu1's ports all land on leaf1 and gpu2's on leaf2, so
// leaf1 and gpu1 form a canary that shares no cable with the rest.
type rolloutPod struct {
	leaf1, leaf2 *switchFixture
	fleet        *hosttwin.Fleet
	model        *traffic.Model
	cli          *terraformCLI
	root         string
	ports        map[string][]string // switch name → its cabled ports
}

func newRolloutPod(t *testing.T) *rolloutPod {
	t.Helper()
	// Counters poll every 100 ms, so a 1 s sample window sees many polls.
	opts := switchtwin.Options{Ports: 8, CounterPollInterval: 100 * time.Millisecond}
	// One certificate authority for both: roce_fabric_health reaches every switch with the
	// provider's gnmi settings.
	pki, files := gnmitest.PKIFiles(t)
	p := &rolloutPod{leaf1: newSwitchFixtureWithPKI(t, opts, pki, files), leaf2: newSwitchFixtureWithPKI(t, opts, pki, files),
		fleet: podFleet(t, hosttwin.HostSpec{Name: "gpu1", Profile: "cx7"}, hosttwin.HostSpec{Name: "gpu2", Profile: "cx7"}),
		ports: map[string][]string{}}
	var err error
	p.model, err = traffic.Cable(p.fleet, []traffic.Switch{{Name: "leaf1", Twin: p.leaf1.twin}, {Name: "leaf2", Twin: p.leaf2.twin}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range p.model.Links() {
		if want := map[string]string{"gpu1": "leaf1", "gpu2": "leaf2"}[l.Host]; l.SwitchName != want {
			t.Fatalf("%s %s is cabled to %s, want %s: the canary would share a cable with the rest", l.Host, l.Netdev, l.SwitchName, want)
		}
		p.ports[l.SwitchName] = append(p.ports[l.SwitchName], l.Port)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := p.model.Run(ctx, 100*time.Millisecond, 6000); err != nil {
			t.Errorf("traffic: %v", err)
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })

	examples := copyExamples(t, filepath.Join("modules", "rail-optimized-pod"))
	p.root = filepath.Join(examples, "rollout")
	writeFiles(t, p.root, map[string]string{"main.tf": fmt.Sprintf(`terraform {
  required_providers {
    roce = { source = "clusterbid/roce" }
  }
}

provider "roce" {
  gnmi = { username = %q, password = %q, ca_file = %q }
  ssh  = { user = "root", private_key_file = %q, known_hosts_file = %q }
}

variable "switches" { type = any }
variable "hosts" { type = any }
variable "ecn_min" { type = number }
variable "rollout" { type = any }

module "pod" {
  source = "../modules/rail-optimized-pod"

  switches = var.switches
  hosts    = var.hosts
  policy = {
    ecn       = { min_threshold_bytes = var.ecn_min, max_threshold_bytes = 153600 }
    pfc       = { pause_threshold_bytes = 256000 }
    gpudirect = "none"
  }
  rollout = var.rollout
  # For the NCCL gate: the twins' mpirun, like OpenMPI's, refuses root without it.
  checks = { mpi_args = ["--allow-run-as-root"] }
}

output "rollout" { value = module.pod.rollout }
`, twinUser, twinPassword, files.CA, p.fleet.UserKeyFile(), p.fleet.KnownHostsFile())})
	p.cli = newTerraformCLIIn(t, p.root)
	if out, code := p.cli.run("get"); code != 0 {
		t.Fatalf("terraform get failed:\n%s", out)
	}
	return p
}

// namedSwitch is a switch twin and its name in the pod.
type namedSwitch struct {
	name string
	f    *switchFixture
}

func (p *rolloutPod) switches() []namedSwitch {
	return []namedSwitch{{"leaf1", p.leaf1}, {"leaf2", p.leaf2}}
}

// vars writes terraform.tfvars.json: the pod, the ECN minimum threshold and the rollout.
func (p *rolloutPod) vars(t *testing.T, ecnMin int, rollout map[string]any) {
	t.Helper()
	var switches []map[string]any
	for _, s := range p.switches() {
		switches = append(switches, map[string]any{"name": s.name, "address": s.f.addr, "ports": p.ports[s.name]})
	}
	hosts := []map[string]any{{"name": "gpu1", "address": twinAddress(t, p.fleet, "gpu1")}, {"name": "gpu2", "address": twinAddress(t, p.fleet, "gpu2")}}
	writeJSON(t, filepath.Join(p.root, "terraform.tfvars.json"), map[string]any{"switches": switches, "hosts": hosts, "ecn_min": ecnMin, "rollout": rollout})
}

// rolloutCanary is the rollout of the tests: leaf1 and gpu1 first, a 1 s sample window.
var rolloutCanary = map[string]any{"canary_switches": []string{"leaf1"}, "canary_hosts": []string{"gpu1"}, "interval_seconds": 1}

// switchECNMin returns the ECN minimum threshold of a switch's lossless queue as CONFIG_DB holds it.
func switchECNMin(t *testing.T, sw *switchFixture, port string) string {
	t.Helper()
	q := sw.entry("QUEUE", port+"|3")
	return sw.entry("WRED_PROFILE", q["wred_profile"])["green_min_threshold"]
}

// rolloutHostState is what the rollout changes on a host: its NCCL file and its first port's QoS.
func rolloutHostState(t *testing.T, fleet *hosttwin.Fleet, name string) string {
	t.Helper()
	return onTwin(t, fleet, name, `cat /etc/nccl.conf 2>&1; for n in /sys/class/infiniband/*/device/net/*; do mlnx_qos -i "${n##*/}"; `+
		`cat "/sys/class/net/${n##*/}/ecn/roce_np/enable/3"; break; done`)
}

// TestStagedRolloutGatesAPolicyChange adopts the rollout on a pod built without one and
// changes its policy in the same run: the moved canary resources update in place, the plan
// shows the canary changing, the health read deferred to the apply and the rest changing
// behind a condition it cannot yet know; the canary is healthy, so the one apply changes the
// rest too, and a plan afterwards (which samples the canary at plan time) is empty. A next
// policy under which the canary drops stops at the gate, and re-applying the previous policy
// rolls the canary back alone.
func TestStagedRolloutGatesAPolicyChange(t *testing.T) {
	p := newRolloutPod(t)
	p.vars(t, 102400, map[string]any{})
	if out, code := p.cli.run("apply", "-auto-approve", "-input=false"); code != 0 {
		t.Fatalf("apply without a rollout failed:\n%s", out)
	}
	if got := switchECNMin(t, p.leaf2, p.ports["leaf2"][0]); got != "102400" {
		t.Fatalf("leaf2 ECN min = %q after the first apply, want 102400", got)
	}

	// The existing fabric takes a rollout and a new ECN minimum at once.
	p.vars(t, 122880, rolloutCanary)
	var moved strings.Builder
	for _, m := range [][2]string{
		{`roce_switch_qos.leaf["leaf1"]`, `roce_switch_qos.canary["leaf1"]`},
		{`roce_host_bootstrap.node["gpu1"]`, `roce_host_bootstrap.canary["gpu1"]`},
		{`roce_nic_dcqcn.node["gpu1"]`, `roce_nic_dcqcn.canary["gpu1"]`},
		{`roce_nccl_env_profile.node["gpu1"]`, `roce_nccl_env_profile.canary["gpu1"]`},
	} {
		fmt.Fprintf(&moved, "moved {\n  from = module.pod.%s\n  to   = module.pod.%s\n}\n", m[0], m[1])
	}
	writeFiles(t, p.root, map[string]string{"moved.tf": moved.String()})
	out, code := p.cli.run("plan", "-input=false", "-out=rollout.tfplan")
	if code != 0 {
		t.Fatalf("plan failed:\n%s", out)
	}
	if !strings.Contains(out, "module.pod.data.roce_fabric_health.canary[0] will be read during apply") {
		t.Errorf("the plan does not defer the health gate to the apply:\n%s", out)
	}
	show, code := p.cli.run("show", "-json", "rollout.tfplan")
	if code != 0 {
		t.Fatalf("terraform show failed:\n%s", show)
	}
	var plan struct {
		ResourceChanges []struct {
			Address      string `json:"address"`
			ActionReason string `json:"action_reason"`
			Change       struct {
				Actions []string `json:"actions"`
			} `json:"change"`
		} `json:"resource_changes"`
		Checks []struct {
			Address struct {
				ToDisplay string `json:"to_display"`
			} `json:"address"`
			Status string `json:"status"`
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(show), &plan); err != nil {
		t.Fatalf("plan JSON: %v", err)
	}
	actions := map[string]string{}
	for _, rc := range plan.ResourceChanges {
		actions[rc.Address] = strings.Join(rc.Change.Actions, ",") + " " + rc.ActionReason
	}
	for addr, want := range map[string]string{
		`module.pod.roce_switch_qos.canary["leaf1"]`:      "update ",
		`module.pod.data.roce_fabric_health.canary[0]`:    "read read_because_dependency_pending",
		`module.pod.roce_switch_qos.leaf["leaf2"]`:        "update ",
		`module.pod.roce_host_bootstrap.canary["gpu1"]`:   "no-op ",
		`module.pod.roce_nic_dcqcn.canary["gpu1"]`:        "no-op ",
		`module.pod.roce_nccl_env_profile.canary["gpu1"]`: "no-op ",
		`module.pod.roce_host_bootstrap.node["gpu2"]`:     "no-op ",
		`module.pod.roce_nic_dcqcn.node["gpu2"]`:          "no-op ",
		`module.pod.roce_nccl_env_profile.node["gpu2"]`:   "no-op ",
	} {
		if got, ok := actions[addr]; !ok || got != want {
			t.Errorf("%s: planned %q (in the plan: %t), want %q", addr, got, ok, want)
		}
	}
	for addr, a := range actions {
		if strings.Contains(a, "delete") || strings.Contains(a, "create") {
			t.Errorf("%s: planned %q: adopting the rollout must not replace anything", addr, a)
		}
	}
	// The rest's gate is planned but not yet known.
	var gated []string
	for _, c := range plan.Checks {
		if c.Status == "unknown" {
			gated = append(gated, c.Address.ToDisplay)
		}
	}
	for _, want := range []string{"module.pod.roce_switch_qos.leaf", "module.pod.data.roce_fabric_health.canary"} {
		if !slices.Contains(gated, want) {
			t.Errorf("plan checks: %s is not waiting for the gate; unknown: %v", want, gated)
		}
	}

	out, code = p.cli.run("apply", "-input=false", "rollout.tfplan")
	if code != 0 {
		t.Fatalf("apply of the gated plan failed:\n%s", out)
	}
	// The canary's health was read between the canary's change and the rest's.
	order := regexp.MustCompile(`(?m)^module\.pod\.(roce_switch_qos\.canary\["leaf1"\]: Modifications complete|data\.roce_fabric_health\.canary\[0\]: Read complete|roce_switch_qos\.leaf\["leaf2"\]: Modifying)`).FindAllStringSubmatch(out, -1)
	var seen []string
	for _, m := range order {
		seen = append(seen, m[1])
	}
	if len(seen) != 3 || !strings.HasPrefix(seen[0], "roce_switch_qos.canary") || !strings.HasPrefix(seen[1], "data.roce_fabric_health") {
		t.Errorf("apply order %q, want the canary, then the gate, then the rest:\n%s", seen, out)
	}
	for _, s := range p.switches() {
		if got := switchECNMin(t, s.f, p.ports[s.name][0]); got != "122880" {
			t.Errorf("%s ECN min = %q after the gated apply, want 122880", s.name, got)
		}
	}
	var rollout struct {
		Gate struct {
			OK       bool     `json:"ok"`
			Failures []string `json:"failures"`
		} `json:"gate"`
	}
	decodeOutput(t, p.cli.outputs(), "rollout", &rollout)
	if !rollout.Gate.OK || len(rollout.Gate.Failures) != 0 {
		t.Errorf("rollout gate = %+v, want ok with no failures", rollout.Gate)
	}
	if out, code := p.cli.run("plan", "-detailed-exitcode", "-input=false"); code != 0 {
		t.Fatalf("plan after the rollout is not empty (exit %d):\n%s", code, out)
	}

	// A next policy makes the canary drop: the run stops at the gate with leaf2 as it was.
	leaf2Before := p.leaf2.twin.Snapshot()
	p.vars(t, 112640, rolloutCanary)
	p.model.DropOn("leaf1", p.ports["leaf1"][0])
	out, code = p.cli.run("apply", "-auto-approve", "-input=false")
	if code == 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), "lossless_drops "+p.leaf1.addr+" "+p.ports["leaf1"][0]+" queue 3") {
		t.Fatalf("apply of a policy the canary drops under: exit %d, want the lossless_drops verdict:\n%s", code, out)
	}
	if got := switchECNMin(t, p.leaf1, p.ports["leaf1"][0]); got != "112640" {
		t.Errorf("canary leaf1 ECN min = %q, want 112640", got)
	}
	if diff := cmp.Diff(leaf2Before, p.leaf2.twin.Snapshot()); diff != "" {
		t.Errorf("leaf2 changed behind a failed gate (-before +after):\n%s", diff)
	}
	// The rollback: the previous policy re-applied to the canary (its drops end with it); the
	// rest already holds it, so only the canary changes and the gate passes.
	p.vars(t, 122880, rolloutCanary)
	p.model.ClearFaults()
	out, code = p.cli.run("apply", "-auto-approve", "-input=false")
	if code != 0 {
		t.Fatalf("rollback failed:\n%s", out)
	}
	if !strings.Contains(out, "Apply complete! Resources: 0 added, 1 changed, 0 destroyed.") {
		t.Errorf("the rollback changed more than the canary switch:\n%s", out)
	}
	for _, s := range p.switches() {
		if got := switchECNMin(t, s.f, p.ports[s.name][0]); got != "122880" {
			t.Errorf("%s ECN min = %q after the rollback, want 122880", s.name, got)
		}
	}
}

// TestStagedRolloutStopsOnUnhealthyCanary builds a pod with the gate off (a first build is no
// fair test: the canary's traffic to hosts not yet configured is lost and NAKed), then changes
// the policy while the canary leaf drops on a lossless queue: the apply stops at the gate with
// the failed verdict named, and neither the other switch nor the other host has changed (read
// on the twins, not in the state). Once the fault is gone, the next apply reads a healthy
// canary at plan time and changes the rest.
func TestStagedRolloutStopsOnUnhealthyCanary(t *testing.T) {
	p := newRolloutPod(t)
	ungated := map[string]any{"gate": false}
	for k, v := range rolloutCanary {
		ungated[k] = v
	}
	p.vars(t, 102400, ungated)
	if out, code := p.cli.run("apply", "-auto-approve", "-input=false"); code != 0 {
		t.Fatalf("the ungated first build failed:\n%s", out)
	}
	p.vars(t, 112640, rolloutCanary)
	leaf2Before := p.leaf2.twin.Snapshot()
	gpu2Before := rolloutHostState(t, p.fleet, "gpu2")
	faulty := p.ports["leaf1"][0]
	p.model.DropOn("leaf1", faulty)

	out, code := p.cli.run("apply", "-auto-approve", "-input=false")
	flat := strings.Join(strings.Fields(out), " ")
	if code == 0 {
		t.Fatalf("apply with a dropping canary succeeded:\n%s", out)
	}
	t.Logf("the apply stopped at the gate:\n%s", out)
	for _, want := range []string{
		"Staged rollout held at the health gate: the canary (leaf1, gpu1) failed its fabric health gate",
		"lossless_drops " + p.leaf1.addr + " " + faulty + " queue 3: the lossless queue dropped packets",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("the failed apply does not say %q:\n%s", want, out)
		}
	}
	if got := switchECNMin(t, p.leaf1, faulty); got != "112640" {
		t.Errorf("canary leaf1 ECN min = %q, want 112640: the canary is applied before the gate", got)
	}
	if diff := cmp.Diff(leaf2Before, p.leaf2.twin.Snapshot()); diff != "" {
		t.Errorf("leaf2 changed behind a failed gate (-before +after):\n%s", diff)
	}
	if got := rolloutHostState(t, p.fleet, "gpu2"); got != gpu2Before {
		t.Errorf("gpu2 changed behind a failed gate:\nbefore:\n%s\nafter:\n%s", gpu2Before, got)
	}

	p.model.ClearFaults()
	out, code = p.cli.run("apply", "-auto-approve", "-input=false")
	if code != 0 {
		t.Fatalf("apply after the fix failed:\n%s", out)
	}
	// The canary has nothing left to change, so the gate is read once, by the plan, and the
	// apply changes the rest on that verdict.
	if n := strings.Count(out, "module.pod.data.roce_fabric_health.canary[0]: Read complete"); n != 1 {
		t.Errorf("the gate was read %d times by the apply after the fix, want once (at plan):\n%s", n, out)
	}
	if strings.Contains(out, "module.pod.data.roce_fabric_health.canary[0] will be read during apply") {
		t.Errorf("the apply after the fix deferred the gate, although the canary had nothing to change:\n%s", out)
	}
	if got := switchECNMin(t, p.leaf2, p.ports["leaf2"][0]); got != "112640" {
		t.Errorf("leaf2 ECN min = %q after the fix, want 112640", got)
	}
	if got := onTwin(t, p.fleet, "gpu2", "grep -E '^NCCL_IB_TC=' /etc/nccl.conf"); got != "NCCL_IB_TC=106\n" {
		t.Errorf("gpu2 /etc/nccl.conf after the fix: %q, want NCCL_IB_TC=106", got)
	}
}

// TestStagedRolloutRefusesBadRollout checks the rollout input at plan time, with nothing
// reachable and no hosts: a canary the pod does not have and an NCCL gate on fewer than two
// hosts (refused by the gates' preconditions, which a plan with no canary change reaches before
// any read), a canary named twice, and an NCCL gate without the bandwidth it gates on.
func TestStagedRolloutRefusesBadRollout(t *testing.T) {
	examples := copyExamples(t, filepath.Join("modules", "rail-optimized-pod"))
	for name, tc := range map[string]struct{ rollout, want string }{
		"unknown canary": {
			rollout: `{ canary_switches = ["leaf9"], canary_hosts = ["gpu9"] }`,
			want:    "rollout names canaries the pod does not have: switch leaf9, host gpu9.",
		},
		"duplicate canary": {
			rollout: `{ canary_switches = ["leaf1", "leaf1"] }`,
			want:    "rollout.canary_switches and rollout.canary_hosts name each canary once.",
		},
		"nccl gate on one host": {
			rollout: `{ canary_switches = ["leaf1"], nccl_test = true, min_busbw_gbps = 300 }`,
			want:    "rollout.nccl_test runs all_reduce_perf across the canary's hosts: name at least two in rollout.canary_hosts",
		},
		"nccl gate without bandwidth": {
			rollout: `{ canary_switches = ["leaf1"], nccl_test = true }`,
			want:    "rollout.nccl_test gates on a bus bandwidth: set rollout.min_busbw_gbps.",
		},
	} {
		t.Run(name, func(t *testing.T) {
			root := filepath.Join(examples, strings.ReplaceAll(name, " ", "-"))
			writeFiles(t, root, map[string]string{"main.tf": `terraform {
  required_providers {
    roce = { source = "clusterbid/roce" }
  }
}

module "pod" {
  source   = "../modules/rail-optimized-pod"
  switches = [{ name = "leaf1", address = "127.0.0.1:9", ports = ["Ethernet0"] }, { name = "leaf2", address = "127.0.0.2:9", ports = ["Ethernet0"] }]
  hosts    = []
  policy = {
    ecn = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }
    pfc = { pause_threshold_bytes = 256000 }
  }
  rollout = ` + tc.rollout + `
}
`})
			cli := newTerraformCLIIn(t, root)
			if out, code := cli.run("get"); code != 0 {
				t.Fatalf("terraform get failed:\n%s", out)
			}
			out, code := cli.run("plan", "-input=false", "-refresh=false")
			if code == 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), tc.want) {
				t.Fatalf("plan exit %d, want an error saying %q:\n%s", code, tc.want, out)
			}
		})
	}
}

// TestStagedRolloutNCCLGate gates on all_reduce_perf as well, across both hosts (the canary:
// leaf1, gpu1 and gpu2; the rest: leaf2). With GPUDirect RDMA off on the launching host (the
// policy leaves nvidia-peermem alone) the bus bandwidth misses the floor, so the apply stops
// naming the NCCL verdict although the fabric is healthy, and leaf2 stays as it was; once
// peermem is loaded the next apply changes the rest.
func TestStagedRolloutNCCLGate(t *testing.T) {
	p := newRolloutPod(t)
	rollout := map[string]any{"canary_switches": []string{"leaf1"}, "canary_hosts": []string{"gpu1", "gpu2"}, "interval_seconds": 1,
		"nccl_test": true, "min_busbw_gbps": 300}
	p.vars(t, 102400, rollout)
	leaf2Before := p.leaf2.twin.Snapshot()
	out, code := p.cli.run("apply", "-auto-approve", "-input=false")
	flat := strings.Join(strings.Fields(out), " ")
	if code == 0 {
		t.Fatalf("apply with a slow canary succeeded:\n%s", out)
	}
	for _, want := range []string{
		"Staged rollout held at the health gate: the canary (leaf1, gpu1, gpu2) failed its NCCL test gate",
		"nccl_test_busbw: bus bandwidth",
		"GPU Direct RDMA was off on gpu1",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("the failed apply does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(flat, "failed its fabric health gate") {
		t.Errorf("the fabric health gate failed too; want only the NCCL test's:\n%s", out)
	}
	if diff := cmp.Diff(leaf2Before, p.leaf2.twin.Snapshot()); diff != "" {
		t.Errorf("leaf2 changed behind a failed gate (-before +after):\n%s", diff)
	}

	onTwin(t, p.fleet, "gpu1", "modprobe nvidia-peermem")
	if out, code := p.cli.run("apply", "-auto-approve", "-input=false"); code != 0 {
		t.Fatalf("apply with GPUDirect RDMA on the canary failed:\n%s", out)
	}
	if got := switchECNMin(t, p.leaf2, p.ports["leaf2"][0]); got != "102400" {
		t.Errorf("leaf2 ECN min = %q once the NCCL gate passed, want 102400", got)
	}
	var gate struct {
		Gate struct {
			OK        bool    `json:"ok"`
			NCCLOK    bool    `json:"nccl_ok"`
			BusBWGbps float64 `json:"busbw_gbps"`
		} `json:"gate"`
	}
	decodeOutput(t, p.cli.outputs(), "rollout", &gate)
	if !gate.Gate.OK || !gate.Gate.NCCLOK || gate.Gate.BusBWGbps < 300 {
		t.Errorf("rollout gate = %+v, want ok with at least 300 GB/s", gate.Gate)
	}
}
