package sonic

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	"github.com/clusterbid/terraform-provider-roce/internal/health"
	sonicmodel "github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

func twinClient(t *testing.T) (*switchtwin.Twin, *gnmi.Client) {
	t.Helper()
	return twinClientWith(t, switchtwin.Options{})
}

func twinClientWith(t *testing.T, opts switchtwin.Options) (*switchtwin.Twin, *gnmi.Client) {
	t.Helper()
	tw, err := switchtwin.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := tw.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tw.Stop)
	c, err := gnmi.Dial(gnmi.Config{Address: addr, Insecure: true, DialTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return tw, c
}

func TestSONiCReadsPortsQueuesAndPriorityGroups(t *testing.T) {
	tw, c := twinClient(t)
	tw.SetEntry("PORT_QOS_MAP", "Ethernet8", sonicmodel.Entry{"pfc_enable": "3"})
	tw.SetEntry("PFC_WD", "Ethernet8", sonicmodel.Entry{"action": "drop", "detection_time": "200", "restoration_time": "200"})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(tw.AddPortCounters("Ethernet8", map[string]uint64{"SAI_PORT_STAT_PFC_3_TX_PKTS": 12}))
	must(tw.AddQueueCounters("Ethernet8", 3, map[string]uint64{"SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": 5}))
	must(tw.SetQueueStormed("Ethernet8", 3, true))
	must(tw.AddPGCounters("Ethernet8", 3, map[string]uint64{"SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS": 2}))
	tw.PollCounters()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	before := tw.Stats().RPCs["Get"]
	ports, err := ReadCounters(ctx, c, "leaf1", 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := tw.Stats().RPCs["Get"] - before; got != 3 {
		t.Errorf("%d Gets, want 3 (the name maps, PORT_QOS_MAP, then every hash)", got)
	}
	if len(ports) != len(tw.Table("PORT")) || ports[0].Port != "Ethernet0" {
		t.Fatalf("%d ports, first %+v", len(ports), ports[0])
	}
	i := slices.IndexFunc(ports, func(p health.SwitchPort) bool { return p.Port == "Ethernet8" })
	if i < 0 {
		t.Fatal("no Ethernet8")
	}
	p8 := ports[i]
	if p8.Stats[health.PFCTxFrames(3)] != 12 || p8.Queues[3][health.ECNMarkedPackets] != 5 ||
		p8.Queues[3][health.WatchdogStorms] != 1 || !slices.Equal(p8.Stormed, []int{3}) || p8.PriorityGroups[3][health.DroppedPackets] != 2 {
		t.Errorf("Ethernet8 = %+v", p8)
	}
	for _, c := range []health.Counters{p8.Stats, p8.Queues[3], p8.PriorityGroups[3]} {
		for name := range c {
			if strings.HasPrefix(name, "SAI_") || strings.HasPrefix(name, "PFC_WD_") {
				t.Errorf("Ethernet8 keeps the SONiC name %s", name)
			}
		}
	}
	if _, ok := p8.Advice.(sonicAdvice); !ok {
		t.Errorf("Ethernet8 advice %T, want SONiC's", p8.Advice)
	}
	if _, err := ReadCounters(ctx, c, "leaf1", 3, []string{"Ethernet9999"}); err == nil || !strings.Contains(err.Error(), "has no port Ethernet9999") {
		t.Errorf("unknown port: %v", err)
	}
}

// A switch that counts only configured buffers (create_only_config_db_buffers) maps no queues
// of its spare ports: they are read with their port counters and NoCounters, and the rest
// with the queues of both of SONiC's stock lossless priorities (pfc_enable 3,4).
func TestSONiCSparePortsAndTwoLosslessPriorities(t *testing.T) {
	tw, c := twinClientWith(t, switchtwin.Options{Ports: 8, SparePorts: 2, CreateOnlyConfigDBBuffers: true})
	if err := tw.AddQueueCounters("Ethernet4", 4, map[string]uint64{"SAI_QUEUE_STAT_PACKETS": 9}); err != nil {
		t.Fatal(err)
	}
	tw.PollCounters()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ports, err := ReadCounters(ctx, c, "leaf1", 3, nil)
	if err != nil {
		t.Fatalf("a switch with spare ports: %v", err)
	}
	if len(ports) != 8 {
		t.Fatalf("%d ports, want 8", len(ports))
	}
	for i, p := range ports {
		spare := i >= 6
		if (p.NoCounters != "") != spare || !slices.Equal(p.Lossless, []int{3, 4}) || p.Stats == nil {
			t.Errorf("%s: NoCounters %q, Lossless %v, port counters %v; want spare=%v, [3 4]", p.Port, p.NoCounters, p.Lossless, p.Stats != nil, spare)
		}
		if !spare && (p.Queues[3] == nil || p.Queues[4] == nil) {
			t.Errorf("%s: queues %v, want 3 and 4", p.Port, p.Queues)
		}
	}
	if ports[1].Queues[4][health.TxPackets] != 9 {
		t.Errorf("Ethernet4 queue 4 = %v", ports[1].Queues[4])
	}
}
