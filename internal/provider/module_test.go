package provider

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// Budgets of the state a host of the module costs with the demo's settings (8 ports and 8
// GPUs per host, a fleet of both package families): Terraform copies the whole state after
// every applied instance, so a byte per host costs hosts × instances (bench/results/README.md).
// The module reads only roce_gdr_preflight, without its bulk detail (under 1 KiB per host);
// the rest is the three host resources.
const (
	podStateBudget      = 10 << 10
	podDataSourceBudget = 1 << 10
)

// TestRailOptimizedPodModule applies examples/demo, and through it the module
// examples/modules/rail-optimized-pod, with the real Terraform CLI against a fabric of its own:
// one SONiC switch twin, one Cumulus (NVUE) switch twin and two host twins, described in a terraform.tfvars.json
// with the variables roce-twin up --tfvars writes. It requires that the first apply converges
// (second plan empty), that the pre-flight passes on every host once the host resources ran
// (peermem is only loaded by roce_host_bootstrap), and that the switch, the NICs and NCCL
// carry the same class, and that a host costs at most podStateBudget bytes of state (the figure
// and each resource's share are logged); then it destroys.
func TestRailOptimizedPodModule(t *testing.T) {
	sw := newSwitchFixture(t, switchtwin.Options{Ports: 8})
	cumulus := newCumulusFixture(t, "5.12")
	cumulusBefore := treeJSON(cumulus.twin.Applied())
	hosts := []string{"pod-gpu1", "pod-gpu2"}
	// One Debian and one Rocky host: the module finds each one's family and repository.
	fleet := podFleet(t, hosttwin.HostSpec{Name: hosts[0], Profile: "cx7"}, hosttwin.HostSpec{Name: hosts[1], Profile: "rocky9"})

	examples := copyExamples(t, "demo", filepath.Join("modules", "rail-optimized-pod"))
	demo := filepath.Join(examples, "demo")
	vars := map[string]any{
		"switches": []map[string]any{{
			"name": "leaf1", "address": sw.addr, "sonic_release": "202411",
			"ports": []string{"Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12"},
		}, {
			// The same policy on a Cumulus leaf, through NVUE.
			"name": "leaf2", "address": cumulus.addr, "os": "cumulus", "ports": []string{"swp1", "swp2"},
		}},
		"gnmi": map[string]any{"username": twinUser, "password": twinPassword, "ca_file": sw.caFile},
		"nvue": map[string]any{"username": "cumulus", "password": twinPassword, "ca_file": cumulus.caFile},
		"ssh":  map[string]any{"user": "root", "private_key_file": fleet.UserKeyFile(), "known_hosts_file": fleet.KnownHostsFile()},
		"ofed": map[string]any{"flavor": "doca", "version": "25.10-1.7.1", "repo_url": "file:/srv/twin-apt/doca/25.10-1.7.1", "trusted": true,
			"repo_urls": map[string]string{"debian": "file:/srv/twin-apt/doca/25.10-1.7.1", "rhel": "file:///srv/twin-dnf/doca/25.10-1.7.1"}},
	}
	var hostVars []map[string]any
	for _, h := range hosts {
		hostVars = append(hostVars, map[string]any{"name": h, "address": twinAddress(t, fleet, h)})
	}
	vars["hosts"] = hostVars
	writeJSON(t, filepath.Join(demo, "terraform.tfvars.json"), vars)

	cli := newTerraformCLIIn(t, demo)
	// init would ask the registry for the provider that dev_overrides replaces; get installs
	// the local module and nothing else.
	if out, code := cli.run("get"); code != 0 {
		t.Fatalf("terraform get failed:\n%s", out)
	}
	if out, code := cli.run("apply", "-auto-approve", "-input=false"); code != 0 {
		t.Fatalf("apply failed:\n%s", out)
	}
	if out, code := cli.run("plan", "-detailed-exitcode", "-input=false"); code != 0 {
		t.Fatalf("second plan is not empty (exit %d):\n%s", code, out)
	}
	checkPod(t, cli, sw, fleet, hosts)
	// What a host costs in the state with the module's defaults.
	size := stateBytesPerHost(t, demo, hosts)
	t.Logf("state per host: %d bytes; by resource: %v", size.PerHost, size.By)
	if size.PerHost > podStateBudget {
		t.Errorf("state per host is %d bytes, over the budget of %d: %v", size.PerHost, podStateBudget, size.By)
	}
	if ds := size.By["data.roce_gdr_preflight.node"]; ds > podDataSourceBudget {
		t.Errorf("the data sources take %d bytes of state per host, over the budget of %d: %v", ds, podDataSourceBudget, size.By)
	}
	// The Cumulus leaf got the same classes: DSCP 26 to switch priority 3 and 34 to 4, lossless,
	// on its ports.
	var summary string
	decodeOutput(t, cli.outputs(), "summary", &summary)
	for _, want := range []string{"leaf2 " + cumulus.addr + " (Cumulus): 2 lossless ports swp1..swp2", "storage: DSCP 34 -> priority 4, ToS 138"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	applied := cumulus.twin.Applied()
	for _, want := range []struct {
		path string
		v    any
	}{{"qos/mapping/ROCE/dscp/26/switch-priority", 3.0}, {"interface/swp2/qos/pfc/profile", "ROCE"}, {"qos/congestion-control/ROCE/traffic-class/3/min-threshold", 102400.0},
		{"qos/mapping/ROCE/dscp/34/switch-priority", 4.0}, {"qos/congestion-control/ROCE/traffic-class/4/min-threshold", 102400.0}} {
		if got, _ := nvue.Lookup(applied, nvue.Path(want.path)...); got != want.v {
			t.Errorf("Cumulus leaf %s = %v, want %v", want.path, got, want.v)
		}
	}
	if got := onTwin(t, fleet, hosts[0], "apt-mark showhold; cat /etc/apt/sources.list.d/roce-ofed.list"); !strings.Contains(got, "doca-ofed\n") ||
		!strings.Contains(got, "file:/srv/twin-apt/doca/25.10-1.7.1") {
		t.Errorf("Debian host: want doca-ofed held from the apt repository:\n%s", got)
	}
	if got := onTwin(t, fleet, hosts[1], "dnf -q versionlock list; cat /etc/yum.repos.d/roce-ofed.repo"); !strings.Contains(got, "doca-ofed-0:25.10-1.7.1.*") ||
		!strings.Contains(got, "baseurl=file:///srv/twin-dnf/doca/25.10-1.7.1") {
		t.Errorf("Rocky host: want doca-ofed locked from the dnf repository:\n%s", got)
	}
	// The second plan has just read every host and switch: destroy without another refresh.
	if out, code := cli.run("destroy", "-auto-approve", "-input=false", "-refresh=false"); code != 0 {
		t.Fatalf("destroy failed:\n%s", out)
	}
	if got := sw.entry("PORT_QOS_MAP", "Ethernet0"); got["dscp_to_tc_map"] == "ROCE" {
		t.Errorf("PORT_QOS_MAP|Ethernet0 still points at the ROCE map after destroy: %v", got)
	}
	if treeJSON(cumulus.twin.Applied()) != cumulusBefore {
		t.Error("destroy left the Cumulus leaf different from before")
	}
}

// checkPod checks the outputs of examples/demo, the hosts and the switch after the apply.
func checkPod(t *testing.T, cli *terraformCLI, sw *switchFixture, fleet *hosttwin.Fleet, hosts []string) {
	t.Helper()
	outputs := cli.outputs()
	var tc int
	decodeOutput(t, outputs, "traffic_class", &tc)
	if tc != 106 {
		t.Errorf("traffic_class = %d, want 106", tc)
	}
	var preflight map[string]struct {
		OK       bool     `json:"ok"`
		Passed   int      `json:"passed"`
		Failed   int      `json:"failed"`
		Failures []string `json:"failures"`
	}
	decodeOutput(t, outputs, "preflight", &preflight)
	ok := 0
	for name, p := range preflight {
		if p.OK && p.Failed == 0 && p.Passed > 0 {
			ok++
		} else {
			t.Errorf("preflight of %s: %d passed, %d failed:\n%s", name, p.Passed, p.Failed, strings.Join(p.Failures, "\n"))
		}
	}
	if ok != len(hosts) {
		t.Errorf("%d of %d hosts passed the pre-flight", ok, len(hosts))
	}
	var summary map[string]struct {
		OFEDVersion   string `json:"ofed_version"`
		GPUDirectMode string `json:"gpudirect_mode"`
		DCQCN         struct {
			Mechanism string `json:"mechanism"`
			InSync    bool   `json:"in_sync"`
		} `json:"dcqcn"`
		NCCL struct {
			Path  string `json:"path"`
			Lines string `json:"rendered"`
		} `json:"nccl"`
	}
	decodeOutput(t, outputs, "hosts", &summary)
	// The class every host carries is the pod's, stated once.
	var classes map[string]struct {
		DSCP     []int `json:"dscp"`
		Priority int   `json:"priority"`
		ToS      int   `json:"tos"`
	}
	decodeOutput(t, outputs, "traffic_classes", &classes)
	if c := classes["compute"]; len(c.DSCP) != 1 || c.DSCP[0] != 26 || c.Priority != 3 || c.ToS != 106 {
		t.Errorf("traffic_classes compute = %+v, want DSCP 26 on priority 3, ToS 106", c)
	}
	for _, h := range hosts {
		s, found := summary[h]
		switch {
		case !found:
			t.Errorf("no summary for host %s", h)
		case s.OFEDVersion != "25.10-1.7.1" || s.GPUDirectMode != "peermem":
			t.Errorf("%s: OFED %q, GPUDirect %q; want 25.10-1.7.1 and peermem (auto on cx7)", h, s.OFEDVersion, s.GPUDirectMode)
		case s.DCQCN.Mechanism != "OFED sysfs" || !s.DCQCN.InSync:
			t.Errorf("%s: DCQCN %+v, want it set through OFED sysfs and in sync", h, s.DCQCN)
		case !strings.Contains(s.NCCL.Lines, "NCCL_IB_TC=106\n") || s.NCCL.Path != "/etc/nccl.conf":
			t.Errorf("%s: NCCL %+v, want NCCL_IB_TC 106 in /etc/nccl.conf", h, s.NCCL)
		}
		// NCCL, the port's traffic class and the policy's DCQCN override (ai_rate_mbps = 10,
		// firmware 5) on the host itself.
		got := onTwin(t, fleet, h, "grep -E '^NCCL_IB_TC=' /etc/nccl.conf; cat /sys/class/infiniband/mlx5_7/tc/1/traffic_class /sys/class/net/ens8f0np0/ecn/roce_rp/rpg_ai_rate")
		if !regexp.MustCompile(`^NCCL_IB_TC=106\n(Global tclass=)?106\n10\n$`).MatchString(got) {
			t.Errorf("%s: NCCL_IB_TC, traffic class and rpg_ai_rate on the host:\n%q, want 106, 106 and 10", h, got)
		}
	}
	// The switch makes the same class lossless.
	if got := sw.entry("DSCP_TO_TC_MAP", "ROCE"); got["26"] != "3" || got["48"] != "6" {
		t.Errorf("DSCP_TO_TC_MAP|ROCE 26 -> %q, 48 -> %q; want 3 and 6", got["26"], got["48"])
	}
	for _, port := range []string{"Ethernet0", "Ethernet12"} {
		if got := sw.entry("PORT_QOS_MAP", port); got["pfc_enable"] != "3,4" || got["dscp_to_tc_map"] != "ROCE" {
			t.Errorf("PORT_QOS_MAP|%s = %v, want the stock pfc_enable 3,4 (3 included) and the ROCE map", port, got)
		}
	}
	var summaryText string
	decodeOutput(t, outputs, "summary", &summaryText)
	for _, want := range []string{"leaf1 " + sw.addr + " (SONiC): 4 lossless ports Ethernet0..Ethernet12", "NCCL_IB_TC=106", "Preflight: 2 of 2 hosts ok"} {
		if !strings.Contains(summaryText, want) {
			t.Errorf("summary lacks %q:\n%s", want, summaryText)
		}
	}
}

// TestRailOptimizedPodModuleRefusesBadPolicy checks the module's early validation: a CNP
// priority equal to the RDMA priority, thresholds out of order and a PFC pause threshold
// outside the ecn_pfc_findings window are refused at plan time, with nothing reachable.
func TestRailOptimizedPodModuleRefusesBadPolicy(t *testing.T) {
	examples := copyExamples(t, filepath.Join("modules", "rail-optimized-pod"))
	for name, tc := range map[string]struct{ policy, want string }{
		"cnp priority": {
			policy: `cnp = { priority = 3 }
    ecn = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }
    pfc = { pause_threshold_bytes = 256000 }`,
			want: "policy.cnp.priority must differ from policy.rdma.priority",
		},
		"dscp range": {
			policy: `rdma = { dscp = 64 }
    ecn  = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }
    pfc  = { pause_threshold_bytes = 256000 }`,
			want: "DSCP values are whole numbers from 0 to 63",
		},
		"threshold order": {
			policy: `ecn = { min_threshold_bytes = 102400, max_threshold_bytes = 300000 }
    pfc = { pause_threshold_bytes = 256000 }`,
			want: "ECN min < ECN max <= PFC pause",
		},
		"ratio window": {
			policy: `ecn = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }
    pfc = { pause_threshold_bytes = 512000 }`,
			want: "PFC/ECN Ratio Outside Window",
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
  switches = [{ name = "leaf1", address = "127.0.0.1:9", ports = ["Ethernet0"] }]
  hosts    = [{ name = "gpu1", address = "127.0.0.1:9" }]
  policy = {
    ` + tc.policy + `
  }
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
