package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/traffic"
)

// healthFabric is a switch twin and two host twins cabled by the traffic model, with traffic
// running on priority 3 until the test ends.
type healthFabric struct {
	sw    *switchFixture
	fleet *hosttwin.Fleet
	model *traffic.Model
}

func newHealthFabric(t *testing.T) *healthFabric {
	t.Helper()
	// Counters poll every 100 ms, as counterpoll sets them on a lab switch.
	return newHealthFabricWith(t, switchtwin.Options{CounterPollInterval: 100 * time.Millisecond}, "3")
}

// newHealthFabricWith is newHealthFabric on a switch twin with opts, whose cabled ports have
// PFC on the priorities of pfcEnable ("3", or SONiC's stock "3,4").
func newHealthFabricWith(t *testing.T, opts switchtwin.Options, pfcEnable string) *healthFabric {
	t.Helper()
	f := &healthFabric{sw: newSwitchFixture(t, opts),
		fleet: podFleet(t, hosttwin.HostSpec{Name: "gpu1", Profile: "cx7"}, hosttwin.HostSpec{Name: "gpu2", Profile: "cx7"})}
	var err error
	f.model, err = traffic.Cable(f.fleet, []traffic.Switch{{Name: "leaf1", Twin: f.sw.twin}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	f.configure(t, pfcEnable)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := f.model.Run(ctx, 100*time.Millisecond, 6000); err != nil {
			t.Errorf("traffic: %v", err)
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait() })
	return f
}

// configure makes the fabric lossless on priority 3 as roce_switch_qos and roce_nic_dcqcn
// would: PFC, ECN on queue 3 and the watchdog on every cabled switch port; PFC, DSCP trust
// and DCQCN's NP and RP on every NIC.
func (f *healthFabric) configure(t *testing.T, pfcEnable string) {
	t.Helper()
	f.sw.twin.SetEntry("WRED_PROFILE", "ROCE", sonic.Entry{"ecn": "ecn_all", "green_min_threshold": "102400",
		"green_max_threshold": "153600", "green_drop_probability": "100", "wred_green_enable": "false"})
	for _, l := range f.model.Links() {
		qos := f.sw.entry("PORT_QOS_MAP", l.Port)
		qos["pfc_enable"] = pfcEnable
		f.sw.twin.SetEntry("PORT_QOS_MAP", l.Port, qos)
		f.sw.twin.SetEntry("QUEUE", l.Port+"|3", sonic.Entry{"wred_profile": "ROCE"})
		f.sw.twin.SetEntry("PFC_WD", l.Port, sonic.Entry{"action": "drop", "detection_time": "200", "restoration_time": "200"})
	}
	for _, h := range []string{"gpu1", "gpu2"} {
		onTwin(t, f.fleet, h, `for n in /sys/class/infiniband/*/device/net/*; do nd=${n##*/}; `+
			`mlnx_qos -i "$nd" --trust dscp --pfc 0,0,0,1,0,0,0,0 >/dev/null; `+
			`echo 1 > /sys/class/net/$nd/ecn/roce_np/enable/3; echo 1 > /sys/class/net/$nd/ecn/roce_rp/enable/3; done`)
	}
}

func (f *healthFabric) config(t *testing.T, extra string) string {
	return fmt.Sprintf(`provider "roce" {
  gnmi = { username = %q, password = %q, ca_file = %q }
  ssh  = { user = "root", private_key_file = %q, known_hosts_file = %q }
}

data "roce_fabric_health" "f" {
  switches         = [%q]
  hosts            = [%q, %q]
  interval_seconds = 1
%s}
`, twinUser, twinPassword, f.sw.caFile, f.fleet.UserKeyFile(), f.fleet.KnownHostsFile(), f.sw.addr,
		twinAddress(t, f.fleet, "gpu1"), twinAddress(t, f.fleet, "gpu2"), extra)
}

// link returns the cable of gpu1's first NIC.
func (f *healthFabric) firstLink(t *testing.T) traffic.Link {
	t.Helper()
	for _, l := range f.model.Links() {
		if l.Host == "gpu1" {
			return l
		}
	}
	t.Fatal("gpu1 is not cabled")
	return traffic.Link{}
}

// failuresMatch checks that the data source failed, that each pattern matches one of its
// failures and, with exact, that there are no others.
func failuresMatch(exact bool, patterns ...string) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources["data.roce_fabric_health.f"]
		if !ok {
			return fmt.Errorf("no data.roce_fabric_health.f in state")
		}
		a := rs.Primary.Attributes
		if a["ok"] != "false" {
			return fmt.Errorf("ok = %s, want false", a["ok"])
		}
		var failures []string
		for i := 0; ; i++ {
			v, ok := a[fmt.Sprintf("failures.%d", i)]
			if !ok {
				break
			}
			failures = append(failures, v)
		}
		if exact && len(failures) != len(patterns) {
			return fmt.Errorf("%d failures, want %d:\n%s", len(failures), len(patterns), strings.Join(failures, "\n"))
		}
		for _, p := range patterns {
			re := regexp.MustCompile(p)
			if !slices.ContainsFunc(failures, re.MatchString) {
				return fmt.Errorf("no failure matches %s:\n%s", p, strings.Join(failures, "\n"))
			}
		}
		return nil
	}
}

func TestFabricHealthNamesEachFault(t *testing.T) {
	f := newHealthFabric(t)
	l := f.firstLink(t)
	gpu1, gpu2 := twinAddress(t, f.fleet, "gpu1"), twinAddress(t, f.fleet, "gpu2")
	cfg := f.config(t, "")
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("data.roce_fabric_health.f", "ok", "true"),
					resource.TestCheckResourceAttr("data.roce_fabric_health.f", "failures.#", "0"),
					resource.TestCheckResourceAttr("data.roce_fabric_health.f", "host_ports.#", "16"),
					resource.TestCheckResourceAttr("data.roce_fabric_health.f", "switch_ports.#", fmt.Sprint(len(f.sw.twin.Table("PORT")))),
					resource.TestCheckResourceAttrSet("data.roce_fabric_health.f", "host_ports.0.counters.np_cnp_sent"),
					resource.TestCheckResourceAttrSet("data.roce_fabric_health.f", "host_ports.0.counters.rx_prio3_pause"),
				),
			},
			{
				// NP off on one NIC: marks arrive, no CNP leaves.
				PreConfig: func() {
					onTwin(t, f.fleet, "gpu1", "echo 0 > /sys/class/net/"+l.Netdev+"/ecn/roce_np/enable/3")
				},
				Config: cfg,
				Check:  failuresMatch(true, `^ecn_cnp `+regexp.QuoteMeta(gpu1)+` `+l.RDMA+`:1 \(`+l.Netdev+`\): received \d+ ECN-marked RoCE packets and sent no CNP.*roce_np/enable/3`),
			},
			{
				// PFC off on one switch port: its priority group drops what gpu1 sends, and the
				// receivers' NAKs come back to it (packet_seq_err), not ACK timeouts.
				PreConfig: func() {
					onTwin(t, f.fleet, "gpu1", "echo 1 > /sys/class/net/"+l.Netdev+"/ecn/roce_np/enable/3")
					f.sw.twin.SetEntry("PORT_QOS_MAP", l.Port, sonic.Entry{"pfc_enable": ""})
				},
				Config: cfg,
				Check: failuresMatch(false, `^lossless_drops `+regexp.QuoteMeta(f.sw.addr)+` `+l.Port+` priority group 3: .*PORT_QOS_MAP\|`+l.Port+` `,
					`^retransmissions `+regexp.QuoteMeta(gpu1)+` `+l.RDMA+`:1 .*packet_seq_err \+\d+.*packets this NIC sent were lost and NAKed`),
			},
			{
				// A drop on the lossless queue although PFC is on: gpu1 receives the packets after
				// each gap out of sequence, and gpu2, which sent them on the same rail, its NAKs.
				PreConfig: func() {
					f.sw.twin.SetEntry("PORT_QOS_MAP", l.Port, sonic.Entry{"pfc_enable": "3"})
					f.model.DropOn("leaf1", l.Port)
				},
				Config: cfg,
				Check: failuresMatch(true, `^lossless_drops `+regexp.QuoteMeta(f.sw.addr)+` `+l.Port+` queue 3: the lossless queue dropped packets`,
					`^retransmissions `+regexp.QuoteMeta(gpu1)+` `+l.RDMA+`:1 .*out_of_sequence \+\d+; packets to this NIC were lost`,
					`^retransmissions `+regexp.QuoteMeta(gpu2)+` `+l.RDMA+`:1 .*packet_seq_err \+\d+.*; packets this NIC sent were lost and NAKed`),
			},
			{
				// A PFC storm from the NIC behind the port: the watchdog and the NIC both say so.
				PreConfig: func() {
					f.model.ClearFaults()
					f.model.StormOn("leaf1", l.Port)
				},
				Config: cfg,
				Check: failuresMatch(true, `^pfc_watchdog `+regexp.QuoteMeta(f.sw.addr)+` `+l.Port+` queue 3: (PFC watchdog storms: watchdog_storms \+\d+|the queue is in storm state \(PFC_WD_STATUS stormed\))`,
					`^pfc_watchdog `+regexp.QuoteMeta(gpu1)+` `+l.RDMA+`:1 \(`+l.Netdev+`\): the NIC's pause-storm guard fired`),
			},
			{
				// A postcondition gates a pipeline on the verdict.
				PreConfig: func() { f.model.ClearFaults() },
				Config: f.config(t, `  lifecycle {
    postcondition {
      condition     = self.failed == 0
      error_message = join("\n", self.failures)
    }
  }
`),
			},
		},
	})
}

// TestFabricHealthOnAStockSONiCSwitch reads a switch as SONiC ships it to a T0: spare ports
// without buffers, whose queues orchagent does not count (create_only_config_db_buffers),
// PFC on priorities 3 and 4 (qos_config.j2), and queue counters polled every 10 s. The
// samples are taken two polls (20 s) apart although interval_seconds is 1, PFC frames on
// priority 4 are no fault, the spare ports are named as read without queue counters, and
// the fabric is healthy.
func TestFabricHealthOnAStockSONiCSwitch(t *testing.T) {
	f := newHealthFabricWith(t, switchtwin.Options{SparePorts: 4, CreateOnlyConfigDBBuffers: true}, "3,4")
	if err := f.sw.twin.AddPortCounters(f.firstLink(t).Port, map[string]uint64{"SAI_PORT_STAT_PFC_4_RX_PKTS": 25}); err != nil {
		t.Fatal(err)
	}
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config: f.config(t, ""),
			Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr("data.roce_fabric_health.f", "ok", "true"),
				resource.TestCheckResourceAttrWith("data.roce_fabric_health.f", "seconds", func(v string) error {
					if s, err := strconv.ParseFloat(v, 64); err != nil || s < 20 {
						return fmt.Errorf("samples %s s apart, want two 10 s polls", v)
					}
					return nil
				}),
				func(s *terraform.State) error {
					for _, v := range s.RootModule().Resources["data.roce_fabric_health.f"].Primary.Attributes {
						if strings.Contains(v, "4 switch ports have no queue counters") {
							return nil
						}
					}
					return fmt.Errorf("no verdict names the spare ports")
				},
			),
		}},
	})
}

// TestFabricHealthComparesCableEnds gives the data source the cable of gpu1's first NIC: with
// traffic running its two ends agree on their PFC frames, and once the switch counts frames
// the NIC never received (a COUNTERS_DB out of step with the port), pfc_agreement names the
// cable and the priority.
func TestFabricHealthComparesCableEnds(t *testing.T) {
	f := newHealthFabric(t)
	l := f.firstLink(t)
	gpu1 := twinAddress(t, f.fleet, "gpu1")
	cfg := f.config(t, fmt.Sprintf("  cables = [{ switch = %q, port = %q, host = %q, netdev = %q }]\n", f.sw.addr, l.Port, gpu1, l.Netdev))
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: cfg,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("data.roce_fabric_health.f", "ok", "true"),
					resource.TestCheckTypeSetElemNestedAttrs("data.roce_fabric_health.f", "checks.*", map[string]string{
						"check": "pfc_agreement", "pass": "true", "detail": "both ends of 1 of 1 cables agree on their PFC frames"}),
				),
			},
			{
				// Frames only the switch counts, every 50 ms until the test ends (at most 10
				// minutes): they fall between the samples.
				PreConfig: func() {
					everyTick(t, func() error {
						return f.sw.twin.AddPortCounters(l.Port, map[string]uint64{"SAI_PORT_STAT_PFC_3_TX_PKTS": 2000})
					})
				},
				Config: cfg,
				Check:  failuresMatch(true, `^pfc_agreement `+regexp.QuoteMeta(f.sw.addr)+` `+l.Port+` priority 3: the two ends of .* disagree on priority 3: the switch port sent \d+ PFC frames \(pfc/3/tx_frames\), the NIC received \d+ \(rx_prio3_pause\)\. Remedy: both ends counted different numbers`),
			},
		},
	})
}

// everyTick runs step every 50 ms until the test ends or step fails, at most 12000 times (10
// minutes): a fault a twin keeps adding, so that it falls between a data source's samples.
func everyTick(t *testing.T, step func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	wg.Go(func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for range 12000 {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if err := step(); err != nil {
				t.Error(err)
				return
			}
		}
	})
}
