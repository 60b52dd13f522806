package provider

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// TestRailOptimizedPodModuleLosslessClasses applies the module with a storage class beside the
// default (compute) one through the real Terraform CLI: the SONiC and the Cumulus leaf hold
// both classes (and the Cumulus leaf is as before after destroy),
// each host port has PFC and DCQCN's NP and RP on both classes' priorities, as read
// from the host twin itself (priority 4's points are switched off before the apply, so the apply
// must turn them on), the second plan is empty, and traffic_classes gives each class's ToS.
func TestRailOptimizedPodModuleLosslessClasses(t *testing.T) {
	sw := newSwitchFixture(t, switchtwin.Options{Release: "202511", Ports: 8})
	cumulus := newCumulusFixture(t, "5.12")
	cumulusBefore := treeJSON(cumulus.twin.Applied())
	fleet := podFleet(t, hosttwin.HostSpec{Name: "gpu1", Profile: "cx7"})
	onTwin(t, fleet, "gpu1", `for n in /sys/class/infiniband/*/device/net/*; do nd=${n##*/}; `+
		`echo 0 > /sys/class/net/$nd/ecn/roce_np/enable/4; echo 0 > /sys/class/net/$nd/ecn/roce_rp/enable/4; done`)

	examples := copyExamples(t, filepath.Join("modules", "rail-optimized-pod"))
	root := filepath.Join(examples, "classes")
	writeFiles(t, root, map[string]string{"main.tf": fmt.Sprintf(`terraform {
  required_providers {
    roce = { source = "clusterbid/roce" }
  }
}

provider "roce" {
  gnmi = { username = %q, password = %q, ca_file = %q }
  nvue = { username = "cumulus", password = %q, ca_file = %q }
  ssh  = { user = "root", private_key_file = %q, known_hosts_file = %q }
}

module "pod" {
  source        = "../modules/rail-optimized-pod"
  switches = [
    { name = "leaf1", address = %q, sonic_release = "202511", ports = ["Ethernet0", "Ethernet4"] },
    { name = "leaf2", address = %q, os = "cumulus", ports = ["swp1", "swp2"] },
  ]
  hosts         = [{ name = "gpu1", address = %q }]
  policy = {
    ecn = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }
    pfc = { pause_threshold_bytes = 256000 }
    lossless_classes = [
      { name = "storage", dscp = [34], priority = 4,
        ecn = { min_threshold_bytes = 200000, max_threshold_bytes = 400000 }, pfc = { pause_threshold_bytes = 500000 } },
    ]
  }
}

output "traffic_classes" {
  value = module.pod.traffic_classes
}
`, twinUser, twinPassword, sw.caFile, twinPassword, cumulus.caFile, fleet.UserKeyFile(), fleet.KnownHostsFile(), sw.addr, cumulus.addr, twinAddress(t, fleet, "gpu1"))})

	cli := newTerraformCLIIn(t, root)
	if out, code := cli.run("get"); code != 0 {
		t.Fatalf("terraform get failed:\n%s", out)
	}
	if out, code := cli.run("apply", "-auto-approve", "-input=false"); code != 0 {
		t.Fatalf("apply failed:\n%s", out)
	}
	if out, code := cli.run("plan", "-detailed-exitcode", "-input=false"); code != 0 {
		t.Fatalf("second plan is not empty (exit %d):\n%s", code, out)
	}
	// The switch holds every class.
	for _, port := range []string{"Ethernet0", "Ethernet4"} {
		if got := sw.entry("PORT_QOS_MAP", port); got["pfc_enable"] != "3,4" {
			t.Errorf("PORT_QOS_MAP|%s pfc_enable = %q, want 3,4", port, got["pfc_enable"])
		}
		if got := sw.entry("QUEUE", port+"|4"); got["scheduler"] != "ROCE_storage" {
			t.Errorf("QUEUE|%s|4 = %v, want the storage scheduler", port, got)
		}
	}
	if got := sw.entry("DSCP_TO_TC_MAP", "ROCE"); got["26"] != "3" || got["34"] != "4" {
		t.Errorf("DSCP_TO_TC_MAP|ROCE = %v, want 26 -> 3 and 34 -> 4", got)
	}
	// The Cumulus leaf: both priorities in its PFC profile, storage's DSCP, queue and ECN.
	applied := cumulus.twin.Applied()
	for _, want := range []struct {
		path string
		v    any
	}{
		{"qos/pfc/ROCE/switch-priority/3", map[string]any{}}, {"qos/pfc/ROCE/switch-priority/4", map[string]any{}},
		{"qos/mapping/ROCE/dscp/34/switch-priority", 4.0}, {"qos/egress-queue-mapping/default-global/switch-priority/4/traffic-class", 4.0},
		{"qos/congestion-control/ROCE/traffic-class/4/min-threshold", 200000.0}, {"qos/congestion-control/ROCE/traffic-class/4/max-threshold", 400000.0},
		{"interface/swp1/qos/pfc/profile", "ROCE"},
	} {
		if got, _ := nvue.Lookup(applied, nvue.Path(want.path)...); !reflect.DeepEqual(got, want.v) {
			t.Errorf("Cumulus leaf %s = %#v, want %#v", want.path, got, want.v)
		}
	}
	// The host itself: PFC, NP and RP on 3 and 4 on every port, and nowhere else PFC.
	hostRoot, err := fleet.Root("gpu1")
	if err != nil {
		t.Fatal(err)
	}
	pcs, err := hostprofile.ReadPortConfigs(hostRoot)
	if err != nil || len(pcs) == 0 {
		t.Fatalf("host ports: %v, %v", pcs, err)
	}
	for _, pc := range pcs {
		for p := range 8 {
			lossless := slices.Contains([]int{3, 4}, p)
			if pc.PFC[p] != lossless {
				t.Errorf("%s: PFC on priority %d is %v, want %v", pc.Netdev, p, pc.PFC[p], lossless)
			}
			if lossless && (!pc.NP[p] || !pc.RP[p]) {
				t.Errorf("%s: priority %d has NP %v, RP %v; want both on", pc.Netdev, p, pc.NP[p], pc.RP[p])
			}
		}
	}
	var classes map[string]struct {
		DSCP     []int `json:"dscp"`
		Priority int   `json:"priority"`
		ToS      int   `json:"tos"`
	}
	decodeOutput(t, cli.outputs(), "traffic_classes", &classes)
	for name, want := range map[string][2]int{"compute": {3, 106}, "storage": {4, 34<<2 | 2}} {
		if c := classes[name]; c.Priority != want[0] || c.ToS != want[1] {
			t.Errorf("traffic_classes[%s] = %+v, want priority %d and ToS %d", name, c, want[0], want[1])
		}
	}
	if got := onTwin(t, fleet, "gpu1", "grep -E '^NCCL_IB_TC=' /etc/nccl.conf"); got != "NCCL_IB_TC=106\n" {
		t.Errorf("NCCL keeps the compute class: %q", got)
	}
	if out, code := cli.run("destroy", "-auto-approve", "-input=false", "-refresh=false"); code != 0 {
		t.Fatalf("destroy failed:\n%s", out)
	}
	if treeJSON(cumulus.twin.Applied()) != cumulusBefore {
		t.Error("destroy left the Cumulus leaf different from before")
	}
}

// TestFabricHealthJudgesEachClass samples a fabric whose switch ports make 3 and 4 lossless,
// with classes naming both: healthy, it passes; a drop on the storage class's queue names
// "priority 4 (storage)".
func TestFabricHealthJudgesEachClass(t *testing.T) {
	f := newHealthFabricWith(t, switchtwin.Options{CounterPollInterval: 100 * time.Millisecond}, "3,4")
	l := f.firstLink(t)
	cfg := f.config(t, "  classes          = { compute = 3, storage = 4 }\n")
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("data.roce_fabric_health.f", "ok", "true"),
					resource.TestCheckResourceAttrWith("data.roce_fabric_health.f", "checks.2.detail", func(v string) error {
						if want := "no drops on priorities 3 (compute), 4 (storage)"; !regexp.MustCompile(regexp.QuoteMeta(want)).MatchString(v) {
							return fmt.Errorf("lossless_drops detail %q lacks %q", v, want)
						}
						return nil
					}),
				),
			},
			{
				// The storage queue drops while the samples are taken, as the traffic model's
				// queues move: a few packets each traffic step.
				PreConfig: func() {
					ctx, cancel := context.WithCancel(context.Background())
					var wg sync.WaitGroup
					wg.Go(func() {
						tick := time.NewTicker(100 * time.Millisecond)
						defer tick.Stop()
						for {
							select {
							case <-ctx.Done():
								return
							case <-tick.C:
								if err := f.sw.twin.AddQueueCounters(l.Port, 4, map[string]uint64{"SAI_QUEUE_STAT_DROPPED_PACKETS": 4}); err != nil {
									t.Errorf("storage drops: %v", err)
									return
								}
							}
						}
					})
					t.Cleanup(func() { cancel(); wg.Wait() })
				},
				Config: cfg,
				Check:  failuresMatch(true, `^lossless_drops `+regexp.QuoteMeta(f.sw.addr)+` `+l.Port+` queue 4: the lossless queue of priority 4 \(storage\) dropped packets`),
			},
		},
	})
}
