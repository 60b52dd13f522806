package cumulus

import (
	"context"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/health"
	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/nvuetwin"
)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestParseCumulusQoSCounters(t *testing.T) {
	raw, err := os.ReadFile("testdata/counters/counters-qos.json")
	if err != nil {
		t.Fatal(err)
	}
	stats, queues, pgs, err := ParseQoSCounters(raw)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]uint64{
		health.PFCRxFrames(3): 1289, health.PFCTxFrames(3): 77, health.PFCTxFrames(0): 0, health.ECNMarkedPackets: 4412,
	} {
		if got, ok := stats[name]; !ok || got != want {
			t.Errorf("stats[%s] = %d (present %v), want %d", name, got, ok, want)
		}
	}
	if len(stats) != 17 {
		t.Errorf("%d port counters, want rx and tx frames per priority and the ECN marks (17): %v", len(stats), stats)
	}
	want := health.Counters{health.TxPackets: 9012345, health.DroppedBytes: 18432, health.WREDDroppedPackets: 0}
	if q := queues[3]; !maps.Equal(q, want) {
		t.Errorf("queue 3 = %v, want %v (no ECN: the guide's egress queues count none)", q, want)
	}
	if len(queues) != 8 || len(pgs) != 8 || !maps.Equal(pgs[3], health.Counters{health.DroppedBytes: 0}) {
		t.Errorf("queues %d, priority groups %d (pg 3 %v), want 8 each", len(queues), len(pgs), pgs[3])
	}
}

// The byte columns come as numbers of bytes or as NVUE prints them.
func TestCumulusByteCounters(t *testing.T) {
	for in, want := range map[string]uint64{
		`0`: 0, `9216`: 9216, `"0 Bytes"`: 0, `"9216 Bytes"`: 9216, `"146.48 KB"`: 149996, `"7.29 MB"`: 7644119, `"1 B"`: 1,
	} {
		raw := `{"egress-queue-stats":{"3":{"tx-uc-buffer-discards":` + in + `}},"ingress-buffer-stats":{"3":{"rx-buffer-discards":` + in + `}}}`
		_, queues, pgs, err := ParseQoSCounters([]byte(raw))
		if err != nil || queues[3][health.DroppedBytes] != want || pgs[3][health.DroppedBytes] != want {
			t.Errorf("%s: queue %v, pg %v, err %v; want %d bytes", in, queues[3], pgs[3], err, want)
		}
	}
	for _, in := range []string{`"12 frames"`, `"-1 Bytes"`, `"KB"`, `"1e30 TB"`, `-3`} {
		raw := `{"egress-queue-stats":{"3":{"tx-uc-buffer-discards":` + in + `}}}`
		if _, _, _, err := ParseQoSCounters([]byte(raw)); err == nil {
			t.Errorf("%s accepted as bytes", in)
		}
	}
	// A count is never a size.
	if _, _, _, err := ParseQoSCounters([]byte(`{"egress-queue-stats":{"3":{"wred-discards":"3 Bytes"}}}`)); err == nil {
		t.Error("wred-discards accepted as a size")
	}
}

func TestParseCumulusQoSCountersRefuses(t *testing.T) {
	for name, raw := range map[string]string{
		"not an object":      `[1,2]`,
		"priority 8":         `{"pfc-stats":{"8":{"rx-pause-frames":1}}}`,
		"negative":           `{"egress-queue-stats":{"3":{"tx-frames":-1}}}`,
		"fraction":           `{"egress-queue-stats":{"3":{"tx-frames":1.5}}}`,
		"text":               `{"ingress-buffer-stats":{"3":{"rx-frames":"12 KB"}}}`,
		"member not objects": `{"pfc-stats":{"3":7}}`,
		"port-stats flat":    `{"port-stats":{"ecn-marked-packets":3}}`,
		"port ECN text":      `{"port-stats":{"tx-stats":{"ecn-marked-packets":"n/a"}}}`,
	} {
		if _, _, _, err := ParseQoSCounters([]byte(raw)); err == nil {
			t.Errorf("%s: %s accepted", name, raw)
		}
	}
	// A release without a group, and integral numbers as NVUE's JSON may write them.
	stats, queues, _, err := ParseQoSCounters([]byte(`{"egress-queue-stats":{"3":{"tx-frames":1e3,"wred-discards":12.0}},"port-stats":{}}`))
	if err != nil || len(stats) != 0 || queues[3][health.TxPackets] != 1000 || queues[3][health.WREDDroppedPackets] != 12 {
		t.Errorf("stats %v, queues %v, err %v", stats, queues, err)
	}
}

func TestParseCumulusWatchdog(t *testing.T) {
	raw, err := os.ReadFile("testdata/counters/pfc-watchdog.json")
	if err != nil {
		t.Fatal(err)
	}
	deadlocks, stormed, err := ParseWatchdog(raw)
	if err != nil {
		t.Fatal(err)
	}
	if deadlocks[3] != 2 || len(deadlocks) != 8 || !slices.Equal(stormed, []int{3}) {
		t.Errorf("deadlocks %v, stormed %v; want 2 on 3 of 8, 3 stormed", deadlocks, stormed)
	}
	if _, _, err := ParseWatchdog([]byte(`{"status":{"3":{"status":"STORM"}}}`)); err == nil || !strings.Contains(err.Error(), "OK or DEADLOCK") {
		t.Errorf("an unknown status: %v", err)
	}
	// A port whose watchdog is off has no status.
	if d, s, err := ParseWatchdog([]byte(`{"state":"disable"}`)); err != nil || len(d) != 0 || s != nil {
		t.Errorf("disabled watchdog: %v %v %v", d, s, err)
	}
}

func FuzzParseCumulusQoSCounters(f *testing.F) {
	if raw, err := os.ReadFile("testdata/counters/counters-qos.json"); err == nil {
		f.Add(raw)
	}
	f.Add([]byte(`{"pfc-stats":{"3":{"rx-pause-frames":18446744073709551615}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		stats, queues, pgs, err := ParseQoSCounters(raw)
		if err != nil {
			return
		}
		for k := range stats {
			if !strings.HasPrefix(k, "pfc/") && k != health.ECNMarkedPackets {
				t.Fatalf("port counter %q is neither PFC frames nor ECN marks", k)
			}
		}
		for _, m := range []map[int]health.Counters{queues, pgs} {
			for i := range m {
				if i < 0 || i > 7 {
					t.Fatalf("index %d outside 0-7", i)
				}
			}
		}
	})
}

func FuzzParseCumulusWatchdog(f *testing.F) {
	if raw, err := os.ReadFile("testdata/counters/pfc-watchdog.json"); err == nil {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		deadlocks, stormed, err := ParseWatchdog(raw)
		if err != nil {
			return
		}
		for _, tc := range stormed {
			if tc < 0 || tc > 7 {
				t.Fatalf("stormed traffic class %d", tc)
			}
		}
		for tc := range deadlocks {
			if tc < 0 || tc > 7 {
				t.Fatalf("deadlock traffic class %d", tc)
			}
		}
	})
}

func TestCumulusReadsEveryPortFromTheTwin(t *testing.T) {
	tw, ca, err := nvuetwin.StartWithCA(t.TempDir(), nvuetwin.Options{Ports: 4, Username: "cumulus", Password: "Passw0rd!"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tw.Stop)
	c, err := nvue.Dial(nvue.Config{Address: tw.Addr(), Username: "cumulus", Password: "Passw0rd!", CAFile: ca})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	tw.SetApplied("interface/swp2/qos/pfc-watchdog", map[string]any{"state": "enable"})
	for _, e := range []error{
		tw.AddCounter("swp1", "pfc-stats", 3, "rx-pause-frames", 40),
		tw.AddCounter("swp1", "egress-queue-stats", 3, "tx-uc-buffer-discards", 7),
		tw.AddPortStat("swp1", "tx-stats", "ecn-marked-packets", 11),
		tw.AddCounter("swp2", "ingress-buffer-stats", 3, "rx-buffer-discards", 5),
		tw.SetDeadlock("swp2", 3, true),
	} {
		if e != nil {
			t.Fatal(e)
		}
	}
	if err := tw.AddCounter("swp9", "pfc-stats", 3, "rx-pause-frames", 1); err == nil {
		t.Error("the twin counted on a port it does not have")
	}
	if err := tw.AddCounter("swp1", "egress-queue-stats", 3, "rx-pause-frames", 1); err == nil {
		t.Error("the twin took a pfc-stats field in egress-queue-stats")
	}
	if err := tw.AddCounter("swp1", "egress-queue-stats", 3, "ecn-marked-frames", 1); err == nil {
		t.Error("the twin counts ECN per egress queue, which the guide's table does not")
	}
	if err := tw.AddPortStat("swp1", "rx-stats", "ecn-marked-packets", 1); err == nil {
		t.Error("the twin counts received ECN marks, which the guide prints as n/a")
	}
	ports, err := ReadCounters(testCtx(t), c, tw.Addr(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range ports {
		names = append(names, p.Port)
		if _, ok := p.Advice.(cumulusAdvice); !ok || p.Switch != tw.Addr() {
			t.Errorf("%s: advice %T switch %q", p.Port, p.Advice, p.Switch)
		}
		// The twin's default configuration: priority n on traffic class n, every priority in
		// the default-lossy pool's priority group bulk (0).
		if p.QueueOf[5] != 5 || len(p.PriorityGroupOf) != 8 || p.PriorityGroupOf[3] != 0 {
			t.Errorf("%s: queues %v, priority groups %v", p.Port, p.QueueOf, p.PriorityGroupOf)
		}
	}
	if !slices.Equal(names, []string{"swp1", "swp2", "swp3", "swp4"}) {
		t.Fatalf("ports %v", names)
	}
	if ports[0].Stats[health.PFCRxFrames(3)] != 40 || ports[0].Queues[3][health.DroppedBytes] != 7 || ports[0].Stats[health.ECNMarkedPackets] != 11 {
		t.Errorf("swp1: %v %v", ports[0].Stats, ports[0].Queues[3])
	}
	if ports[0].Stormed != nil || ports[0].Queues[3][health.WatchdogStorms] != 0 {
		t.Errorf("swp1 has no watchdog, yet %v %v", ports[0].Stormed, ports[0].Queues[3])
	}
	if ports[1].PriorityGroups[3][health.DroppedBytes] != 5 || !slices.Equal(ports[1].Stormed, []int{3}) || ports[1].Queues[3][health.WatchdogStorms] != 1 {
		t.Errorf("swp2: %v stormed %v queue %v", ports[1].PriorityGroups[3], ports[1].Stormed, ports[1].Queues[3])
	}
	// Counters are operational state: the applied revision has none.
	if _, err := c.Get(testCtx(t), "interface/swp1/counters/qos", nvue.RevApplied); err == nil {
		t.Error("counters served at the applied revision")
	}
	// The judge names the port and gives Cumulus' advice.
	before, err := ReadCounters(testCtx(t), c, tw.Addr(), []string{"swp1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.AddCounter("swp1", "egress-queue-stats", 3, "tx-uc-buffer-discards", 9); err != nil {
		t.Fatal(err)
	}
	after, err := ReadCounters(testCtx(t), c, tw.Addr(), []string{"swp1"})
	if err != nil {
		t.Fatal(err)
	}
	d := health.Diff(health.Sample{Switches: before}, health.Sample{Switches: after})
	var found bool
	for _, v := range health.Judge(d, health.Options{Priority: 3}) {
		if v.Check == "lossless_drops" && !v.Pass {
			found = v.Subject == "swp1 queue 3" && strings.Contains(v.Detail, "dropped bytes: dropped_bytes +9")
			if !found {
				t.Errorf("verdict %+v", v)
			}
		}
	}
	if !found {
		t.Error("no lossless_drops verdict for swp1 queue 3")
	}
}

// TestCumulusJudgesEachPortsPFCPriorities: a port whose PFC profile has two lossless
// priorities is judged on both; a port without PFC leaves the judge its own priority.
func TestCumulusJudgesEachPortsPFCPriorities(t *testing.T) {
	tw, ca, err := nvuetwin.StartWithCA(t.TempDir(), nvuetwin.Options{Ports: 2, Username: "cumulus", Password: "Passw0rd!"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tw.Stop)
	c, err := nvue.Dial(nvue.Config{Address: tw.Addr(), Username: "cumulus", Password: "Passw0rd!", CAFile: ca})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	tw.SetApplied("qos/pfc/TWO", map[string]any{"switch-priority": map[string]any{"3": map[string]any{}, "4": map[string]any{}}})
	tw.SetApplied("interface/swp1", map[string]any{"type": "swp", "qos": map[string]any{"pfc": map[string]any{"profile": "TWO"}}})
	if err := tw.AddCounter("swp1", "egress-queue-stats", 4, "tx-uc-buffer-discards", 3); err != nil {
		t.Fatal(err)
	}
	ports, err := ReadCounters(testCtx(t), c, tw.Addr(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ports[0].Lossless, []int{3, 4}) || ports[1].Lossless != nil {
		t.Fatalf("PFC priorities: swp1 %v, swp2 %v; want [3 4] and none", ports[0].Lossless, ports[1].Lossless)
	}
	before := ports
	if err := tw.AddCounter("swp1", "egress-queue-stats", 4, "tx-uc-buffer-discards", 9); err != nil {
		t.Fatal(err)
	}
	after, err := ReadCounters(testCtx(t), c, tw.Addr(), nil)
	if err != nil {
		t.Fatal(err)
	}
	d := health.Diff(health.Sample{Switches: before}, health.Sample{Switches: after})
	var found bool
	for _, v := range health.Judge(d, health.Options{Priority: 3}) {
		if v.Check == "lossless_drops" && !v.Pass && v.Subject == "swp1 queue 4" {
			found = true
		}
	}
	if !found {
		t.Errorf("no failing lossless_drops verdict for swp1 queue 4, the second lossless priority's: %+v", health.Judge(d, health.Options{Priority: 3}))
	}
}
