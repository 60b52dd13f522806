package switchtwin

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

func countersGet(t *testing.T, c gpb.GNMIClient, elems ...[]string) (*gpb.GetResponse, error) {
	t.Helper()
	req := &gpb.GetRequest{Prefix: &gpb.Path{Target: "COUNTERS_DB"}, Encoding: gpb.Encoding_JSON_IETF}
	for _, e := range elems {
		p := &gpb.Path{}
		for _, n := range e {
			p.Elem = append(p.Elem, &gpb.PathElem{Name: n})
		}
		req.Path = append(req.Path, p)
	}
	return c.Get(ctxT(t), req)
}

func TestCountersDBAsSonicGNMIServesIt(t *testing.T) {
	tw := startTwin(t, Options{})
	c := dial(t, tw, nil)
	resp, err := countersGet(t, c, []string{"COUNTERS_PORT_NAME_MAP"}, []string{"COUNTERS_QUEUE_NAME_MAP"})
	if err != nil {
		t.Fatal(err)
	}
	var ports, queues map[string]string
	if err := json.Unmarshal(resp.Notification[0].Update[0].Val.GetJsonIetfVal(), &ports); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(resp.Notification[1].Update[0].Val.GetJsonIetfVal(), &queues); err != nil {
		t.Fatal(err)
	}
	if len(ports) != len(tw.Table("PORT")) || ports["Ethernet0"] == "" || queues["Ethernet0:3"] == "" {
		t.Fatalf("ports %v, queues %d", ports, len(queues))
	}

	if err := tw.AddQueueCounters("Ethernet0", 3, map[string]uint64{"SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS": 7}); err != nil {
		t.Fatal(err)
	}
	tw.PollCounters()
	resp, err = countersGet(t, c, []string{"COUNTERS", queues["Ethernet0:3"]}, []string{"COUNTERS", "Ethernet0", "SAI_PORT_STAT_PFC_3_RX_PKTS"})
	if err != nil {
		t.Fatal(err)
	}
	h, err := sonic.DecodeCounterHash(queues["Ethernet0:3"], resp.Notification[0].Update[0].Val.GetJsonIetfVal())
	if err != nil || h.Counters["SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"] != 7 {
		t.Errorf("queue hash = %+v, %v", h, err)
	}
	// One field of one object is a string_val, as sonic-gnmi's Msi2TypedValue answers it.
	if got := resp.Notification[1].Update[0].Val.GetStringVal(); got != "0" {
		t.Errorf("single field = %v", resp.Notification[1].Update[0].Val)
	}
	for _, bad := range [][]string{{"COUNTERS", "oid:0x99"}, {"NO_SUCH_MAP"}, {"COUNTERS", "Ethernet9999"}, {"COUNTERS", queues["Ethernet0:3"], "NO_SUCH_STAT"}} {
		_, err := countersGet(t, c, bad)
		wantCode(t, err, codes.NotFound)
	}
}

func TestCountersDBNeedsEveryPortAlias(t *testing.T) {
	tw := startTwin(t, Options{})
	e, _ := tw.Entry("PORT", "Ethernet8")
	delete(e, "alias")
	tw.SetEntry("PORT", "Ethernet8", e)
	c := dial(t, tw, nil)
	for _, p := range [][]string{{"COUNTERS", "Ethernet0"}, {"COUNTERS_PORT_NAME_MAP"}} {
		_, err := countersGet(t, c, p)
		wantCode(t, err, codes.NotFound, "alias")
	}
	_, err := countersGet(t, c)
	wantCode(t, err, codes.NotFound)
}

func TestCountersDBWatchdogFieldsFollowPFCWD(t *testing.T) {
	tw := startTwin(t, Options{})
	c := dial(t, tw, nil)
	if err := tw.SetQueueStormed("Ethernet0", 3, true); err == nil {
		t.Fatal("a storm on a queue the watchdog does not watch")
	}
	tw.SetEntry("PORT_QOS_MAP", "Ethernet0", sonic.Entry{"pfc_enable": "3,4"})
	tw.SetEntry("PFC_WD", "Ethernet0", sonic.Entry{"action": "drop", "detection_time": "200", "restoration_time": "400"})
	queue := func() sonic.CounterHash {
		t.Helper()
		resp, err := countersGet(t, c, []string{"COUNTERS_QUEUE_NAME_MAP"})
		if err != nil {
			t.Fatal(err)
		}
		var names map[string]string
		_ = json.Unmarshal(resp.Notification[0].Update[0].Val.GetJsonIetfVal(), &names)
		resp, err = countersGet(t, c, []string{"COUNTERS", names["Ethernet0:3"]})
		if err != nil {
			t.Fatal(err)
		}
		h, err := sonic.DecodeCounterHash("q", resp.Notification[0].Update[0].Val.GetJsonIetfVal())
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	if h := queue(); h.Text["PFC_WD_STATUS"] != "operational" || h.Counters["PFC_WD_DETECTION_TIME"] != 200000 || h.Counters["PFC_WD_RESTORATION_TIME"] != 400000 || h.Text["PFC_WD_ACTION"] != "drop" {
		t.Errorf("watched queue = %+v", h)
	}
	for _, stormed := range []bool{true, true, false} {
		if err := tw.SetQueueStormed("Ethernet0", 3, stormed); err != nil {
			t.Fatal(err)
		}
	}
	if h := queue(); h.Counters["PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"] != 1 || h.Counters["PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED"] != 1 || h.Text["PFC_WD_STATUS"] != "operational" {
		t.Errorf("after one storm = %+v", h)
	}
	if err := tw.SetQueueStormed("Ethernet0", 0, true); err == nil {
		t.Error("a storm on a priority without PFC")
	}
	if err := tw.AddQueueCounters("Ethernet0", 3, map[string]uint64{"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": 1}); err == nil {
		t.Error("the watchdog's counters moved without a storm")
	}
	tw.DeleteEntry("PFC_WD", "Ethernet0")
	if h := queue(); h.Text["PFC_WD_STATUS"] != "" || h.Counters["PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"] != 0 {
		t.Errorf("the watchdog's fields stayed after PFC_WD|Ethernet0 went: %+v", h)
	}
}

// COUNTERS_DB moves only when a flex counter group polls: every 10 s for queues by default
// (sonic-swss portsorch.cpp), every POLL_INTERVAL once counterpoll set one.
func TestCountersMoveWhenTheirGroupPolls(t *testing.T) {
	read := func(tw *Twin) uint64 {
		c := dial(t, tw, nil)
		resp, err := countersGet(t, c, []string{"COUNTERS_QUEUE_NAME_MAP"})
		if err != nil {
			t.Fatal(err)
		}
		var queues map[string]string
		if err := json.Unmarshal(resp.Notification[0].Update[0].Val.GetJsonIetfVal(), &queues); err != nil {
			t.Fatal(err)
		}
		resp, err = countersGet(t, c, []string{"COUNTERS", queues["Ethernet0:3"], "SAI_QUEUE_STAT_PACKETS"})
		if err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.ParseUint(resp.Notification[0].Update[0].Val.GetStringVal(), 10, 64)
		return n
	}
	stock := startTwin(t, Options{})
	if err := stock.AddQueueCounters("Ethernet0", 3, map[string]uint64{"SAI_QUEUE_STAT_PACKETS": 5}); err != nil {
		t.Fatal(err)
	}
	if got := read(stock); got != 0 {
		t.Errorf("queue packets before the 10 s poll = %d, want 0", got)
	}
	stock.PollCounters()
	if got := read(stock); got != 5 {
		t.Errorf("queue packets after a poll = %d, want 5", got)
	}
	fast := startTwin(t, Options{CounterPollInterval: time.Millisecond})
	if e, _ := fast.Entry("FLEX_COUNTER_TABLE", "QUEUE"); e["POLL_INTERVAL"] != "1" {
		t.Fatalf("FLEX_COUNTER_TABLE|QUEUE = %v", e)
	}
	if err := fast.AddQueueCounters("Ethernet0", 3, map[string]uint64{"SAI_QUEUE_STAT_PACKETS": 5}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for read(fast) != 5 {
		if time.Now().After(deadline) {
			t.Fatal("a 1 ms poll never published the queue's packets")
		}
	}
}
