package switchtwin

import (
	"encoding/json"
	"testing"

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

func TestCountersDBVirtualPathNeedsAliases(t *testing.T) {
	tw := startTwin(t, Options{})
	e, _ := tw.Entry("PORT", "Ethernet8")
	delete(e, "alias")
	tw.SetEntry("PORT", "Ethernet8", e)
	c := dial(t, tw, nil)
	_, err := countersGet(t, c, []string{"COUNTERS", "Ethernet0"})
	wantCode(t, err, codes.NotFound, "alias")
	if _, err := countersGet(t, c, []string{"COUNTERS_PORT_NAME_MAP"}); err != nil {
		t.Errorf("a name map needs no alias: %v", err)
	}
}

func TestCountersDBWatchdogFieldsFollowPFCWD(t *testing.T) {
	tw := startTwin(t, Options{})
	storm := map[string]uint64{"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED": 1}
	if err := tw.AddQueueCounters("Ethernet0", 3, storm); err == nil {
		t.Fatal("a storm counted on a queue the watchdog does not watch")
	}
	tw.SetEntry("PORT_QOS_MAP", "Ethernet0", sonic.Entry{"pfc_enable": "3,4"})
	tw.SetEntry("PFC_WD", "Ethernet0", sonic.Entry{"action": "drop", "detection_time": "200", "restoration_time": "200"})
	if err := tw.AddQueueCounters("Ethernet0", 3, storm); err != nil {
		t.Fatalf("watchdog on Ethernet0 priority 3: %v", err)
	}
	if err := tw.AddQueueCounters("Ethernet0", 0, storm); err == nil {
		t.Error("a storm counted on a priority without PFC")
	}
	tw.DeleteEntry("PFC_WD", "Ethernet0")
	if err := tw.AddQueueCounters("Ethernet0", 3, storm); err == nil {
		t.Error("the watchdog's fields stayed after PFC_WD|Ethernet0 went")
	}
}
