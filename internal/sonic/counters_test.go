package sonic

import (
	"os"
	"path/filepath"
	"testing"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeNameMaps(t *testing.T) {
	ports, err := DecodeNameMap(CountersPortNameMap, readFixture(t, "counters_port_name_map.json"))
	if err != nil || ports["Ethernet4"] != "oid:0x1000000000013" {
		t.Fatalf("ports = %v, %v", ports, err)
	}
	queues, err := DecodeNameMap(CountersQueueNameMap, readFixture(t, "counters_queue_name_map.json"))
	if err != nil {
		t.Fatal(err)
	}
	if oid, ok := queues.ObjectOID("Ethernet0", 3); !ok || oid != "oid:0x1500000000035a" {
		t.Errorf("Ethernet0:3 = %q, %v", oid, ok)
	}
	if _, ok := queues.ObjectOID("Ethernet8", 3); ok {
		t.Error("a queue the map lacks was found")
	}
	if _, err := DecodeNameMap(CountersPortNameMap, []byte(`{"Ethernet0":"0x1000000000012"}`)); err == nil {
		t.Error("a value that is not an oid was accepted")
	}
}

func TestDecodeCounterHash(t *testing.T) {
	h, err := DecodeCounterHash("oid:0x1500000000035a", readFixture(t, "counters_queue_pfcwd_stormed.json"))
	if err != nil {
		t.Fatal(err)
	}
	if h.Counters["PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"] != 1 || h.Counters["SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"] != 19 {
		t.Errorf("counters = %v", h.Counters)
	}
	if h.Text[PFCWatchdogStatus] != PFCWatchdogStormed || h.Text["PFC_WD_ACTION"] != "drop" {
		t.Errorf("text = %v", h.Text)
	}
	p, err := DecodeCounterHash("oid:0x1000000000012", readFixture(t, "counters_port_hash.json"))
	if err != nil || p.Counters["SAI_PORT_STAT_PFC_3_TX_PKTS"] != 120344 {
		t.Errorf("port = %v, %v", p, err)
	}
	for _, bad := range []string{`{"SAI_QUEUE_STAT_PACKETS":99999999999999999999999}`, `{"SAI_QUEUE_STAT_PACKETS":"99999999999999999999999"}`, `[]`} {
		if _, err := DecodeCounterHash("oid:0x1", []byte(bad)); err == nil {
			t.Errorf("DecodeCounterHash(%s) = nil error", bad)
		}
	}
}

func FuzzDecodeCounterHash(f *testing.F) {
	f.Add(readFixture(f, "counters_queue_pfcwd_stormed.json"))
	f.Add(readFixture(f, "counters_port_hash.json"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		h, err := DecodeCounterHash("oid:0x1", raw)
		if err != nil {
			return
		}
		for k := range h.Counters {
			if _, both := h.Text[k]; both {
				t.Fatalf("%s is both a counter and text", k)
			}
		}
	})
}
