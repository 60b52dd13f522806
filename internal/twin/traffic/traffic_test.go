package traffic

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin/hosttwintest"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// hwCounter reads one hw_counters file of a host twin.
func hwCounter(t *testing.T, fleet *hosttwin.Fleet, host, rdma, name string) uint64 {
	t.Helper()
	root, err := fleet.Root(host)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "sys/class/infiniband", rdma, "ports/1/hw_counters", name))
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestTrafficFollowsTheConfiguration(t *testing.T) {
	fleet := hosttwintest.Start(t, hosttwin.Options{Hosts: []hosttwin.HostSpec{{Name: "h1", Profile: "cx7"}, {Name: "h2", Profile: "cx7"}}})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	sw, err := switchtwin.New(switchtwin.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := Cable(fleet, []Switch{{Name: "leaf1", Twin: sw}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	links := m.Links()
	if len(links) != 16 || links[0].Host != "h1" || links[1].Host != "h2" || links[0].RDMA != "mlx5_0" || links[2].RDMA != "mlx5_1" {
		t.Fatalf("cabling is not rail by rail: %+v", links[:3])
	}
	l := links[0]
	// ECN on the port's queue 3, PFC on the switch side only, NP on by the firmware default.
	sw.SetEntry("WRED_PROFILE", "ROCE", sonic.Entry{"ecn": "ecn_all"})
	sw.SetEntry("QUEUE", l.Port+"|3", sonic.Entry{"wred_profile": "ROCE"})
	sw.SetEntry("PORT_QOS_MAP", l.Port, sonic.Entry{"pfc_enable": "3"})
	if err := m.Step(); err != nil {
		t.Fatal(err)
	}
	if got := hwCounter(t, fleet, l.Host, l.RDMA, "np_cnp_sent"); got == 0 {
		t.Error("a marking queue and NP on drew no CNP")
	}
	if got := hwCounter(t, fleet, l.Host, l.RDMA, "out_of_sequence"); got == 0 {
		t.Error("the NIC without PFC on 3 lost nothing")
	}
	// NP off: marks still arrive, CNPs stop.
	if _, err := fleet.Run(ctx, l.Host, "echo 0 > /sys/class/net/"+l.Netdev+"/ecn/roce_np/enable/3"); err != nil {
		t.Fatal(err)
	}
	before, marks := hwCounter(t, fleet, l.Host, l.RDMA, "np_cnp_sent"), hwCounter(t, fleet, l.Host, l.RDMA, "np_ecn_marked_roce_packets")
	if err := m.Step(); err != nil {
		t.Fatal(err)
	}
	if hwCounter(t, fleet, l.Host, l.RDMA, "np_cnp_sent") != before || hwCounter(t, fleet, l.Host, l.RDMA, "np_ecn_marked_roce_packets") <= marks {
		t.Error("NP off: want marks without CNPs")
	}
	// Drops recover by NAK: over the fabric every NAK a sender counted is a gap a receiver
	// counted, and a sender behind a switch port without PFC (every port but l's) counts
	// NAKs, not ACK timeouts, for what the port dropped.
	sum := func(name string) (total uint64, per []uint64) {
		for _, k := range links {
			n := hwCounter(t, fleet, k.Host, k.RDMA, name)
			total += n
			per = append(per, n)
		}
		return total, per
	}
	naks0, perNAK0 := sum("packet_seq_err")
	oos0, _ := sum("out_of_sequence")
	_, perTO0 := sum("local_ack_timeout_err")
	if err := m.Step(); err != nil {
		t.Fatal(err)
	}
	naks1, perNAK1 := sum("packet_seq_err")
	oos1, _ := sum("out_of_sequence")
	_, perTO1 := sum("local_ack_timeout_err")
	if naks1-naks0 == 0 || naks1-naks0 != oos1-oos0 {
		t.Errorf("one tick: packet_seq_err +%d, out_of_sequence +%d; want equal and not zero", naks1-naks0, oos1-oos0)
	}
	if nak, to := perNAK1[1]-perNAK0[1], perTO1[1]-perTO0[1]; nak < dropsWithoutPFC-1 || to*10 > nak {
		t.Errorf("%s %s behind %s without PFC: packet_seq_err +%d, local_ack_timeout_err +%d; want NAKs for its %d drops, few timeouts",
			links[1].Host, links[1].RDMA, links[1].Port, nak, to, dropsWithoutPFC)
	}
	// A storm needs the watchdog on the port to show in COUNTERS_DB: without PFC on the NIC there is none.
	m.StormOn("leaf1", l.Port)
	if err := m.Step(); err != nil {
		t.Errorf("a storm the NIC cannot send failed the tick: %v", err)
	}
}
