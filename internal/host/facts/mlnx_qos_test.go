package facts

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// defaultDSCPMap is the firmware default prio = DSCP >> 3.
func defaultDSCPMap() map[int]int {
	m := map[int]int{}
	for d := 0; d < 64; d++ {
		m[d] = d >> 3
	}
	return m
}

func TestParseMlnxQoS(t *testing.T) {
	vendorTCs := make([]MlnxTC, 8)
	for i := range vendorTCs {
		vendorTCs[i] = MlnxTC{TC: i, RateLimit: "unlimited", TSA: "vendor", BW: -1, Priorities: []int{i}}
	}
	vendorTCs[0].Priorities, vendorTCs[1].Priorities = []int{1}, []int{0}

	tests := []struct {
		fixture string
		want    MlnxQoS
	}{
		{"mlnx_qos_dscp.txt", MlnxQoS{
			DCBXMode:        "OS controlled",
			Trust:           "dscp",
			DSCPToPrio:      defaultDSCPMap(),
			TotalBufferSize: -1,
			CableLen:        7,
			PFC:             [8]bool{3: true},
			PrioToTC:        [8]int{1, 0, 2, 3, 4, 5, 6, 7},
			TCs:             vendorTCs,
		}},
		{"mlnx_qos_buffers.txt", MlnxQoS{
			DCBXMode: "OS controlled",
			Trust:    "dscp",
			DSCPToPrio: map[int]int{
				0: 0, 1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0, 7: 0,
				23: 3, 24: 3, 25: 3, 26: 3, 27: 3, 28: 3, 29: 3, 30: 3, 31: 3,
				48: 6, 49: 6, 50: 6, 51: 6, 52: 6, 53: 6, 54: 6, 55: 6,
			},
			DefaultPrio:     []int{0},
			BufferSize:      []int64{130944, 261888, 0, 0, 0, 0, 0, 0},
			TotalBufferSize: 2097152,
			CableLen:        7,
			PFC:             [8]bool{3: true},
			PrioToBuffer:    []int{0, 0, 0, 1, 0, 0, 0, 0},
			PrioToTC:        [8]int{0, 0, 0, 3, 0, 0, 6, 0},
			TCs: []MlnxTC{
				{TC: 0, RateLimit: "unlimited", TSA: "ets", BW: 50, Priorities: []int{0, 1, 2, 4, 5, 7}},
				{TC: 3, RateLimit: "25.0 Gbps", TSA: "ets", BW: 50, Priorities: []int{3}},
				{TC: 6, RateLimit: "unlimited", TSA: "strict", BW: -1, Priorities: []int{6}},
			},
			Warnings: []string{"****** WARNING: lldpad service is running and may overwrite your settings ******"},
		}},
		{"mlnx_qos_pcp.txt", MlnxQoS{
			DCBXMode:        "Firmware controlled",
			Trust:           "pcp",
			DSCPToPrio:      map[int]int{},
			TotalBufferSize: -1,
			CableLen:        0,
			PrioToTC:        [8]int{},
			TCs:             []MlnxTC{{TC: 0, RateLimit: "unlimited", TSA: "vendor", BW: -1, Priorities: []int{0, 1, 2, 3, 4, 5, 6, 7}}},
			Warnings:        []string{"Buffers commands are not supported on your system"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			got, err := ParseMlnxQoS(fixture(t, tt.fixture))
			if err != nil {
				t.Fatalf("ParseMlnxQoS() error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseMlnxQoS() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseMlnxQoSUnlistedPriority(t *testing.T) {
	in := "PFC configuration:\n\tpriority 0 1 2 3 4 5 6 7\n\tenabled 0 0 0 1 0 0 0 0\ntc: 0 ratelimit: unlimited, tsa: strict\n\t priority:  0\n"
	got, err := ParseMlnxQoS(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := [8]int{0, -1, -1, -1, -1, -1, -1, -1}; got.PrioToTC != want {
		t.Errorf("PrioToTC = %v, want %v", got.PrioToTC, want)
	}
}

func TestParseMlnxQoSErrors(t *testing.T) {
	pfc := "PFC configuration:\n\tenabled 0 0 0 1 0 0 0 0\n"
	for name, in := range map[string]string{
		"usage":          fixture(t, "mlnx_qos_usage.txt"),
		"empty":          "",
		"seven values":   "PFC configuration:\n\tenabled 0 0 0 1 0 0 0\n",
		"pfc value 2":    "PFC configuration:\n\tenabled 0 0 0 2 0 0 0 0\n",
		"bad buffer row": pfc + "\tbuffer 0 0 0 9 0 0 0 0\n",
		"bad cable":      pfc + "Cable len: long\n",
		"bad tc line":    pfc + "tc: zero ratelimit: unlimited\n",
		"tc 8":           pfc + "tc: 8 ratelimit: unlimited, tsa: vendor\n",
		"priority 9":     pfc + "tc: 0 ratelimit: unlimited, tsa: vendor\n\t priority:  9\n",
		"dscp 64":        "dscp2prio mapping:\n\tprio:0 dscp:64,\n" + pfc,
		"dscp prio 8":    "dscp2prio mapping:\n\tprio:8 dscp:01,\n" + pfc,
		"buffer sizes":   "Receive buffer size (bytes): 1,x,total_size=3\n" + pfc,
		"default prio 8": "default priority:\n\tprio:8\n" + pfc,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseMlnxQoS(in)
			wantParseError(t, err, "mlnx_qos")
		})
	}
}

func FuzzMlnxQoS(f *testing.F) {
	addSeeds(f, "mlnx_qos_dscp.txt", "mlnx_qos_buffers.txt", "mlnx_qos_pcp.txt")
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseMlnxQoS(s)
		if err != nil {
			return
		}
		for p, tc := range q.PrioToTC {
			if tc < -1 || tc > 7 {
				t.Errorf("priority %d maps to traffic class %d", p, tc)
			}
		}
		for d, p := range q.DSCPToPrio {
			if d < 0 || d > 63 || p < 0 || p > 7 {
				t.Errorf("dscp %d -> prio %d out of range", d, p)
			}
		}
	})
}

// TestParseMlnxQoSOlderBufferTotal reads the buffer total of older mlnx-tools (total_size=).
func TestParseMlnxQoSOlderBufferTotal(t *testing.T) {
	current := fixture(t, "mlnx_qos_buffers.txt")
	older := strings.Replace(current, ",max_buffer_size=", ",total_size=", 1)
	got, err := ParseMlnxQoS(older)
	if err != nil {
		t.Fatal(err)
	}
	if got.TotalBufferSize != 2097152 {
		t.Errorf("TotalBufferSize = %d, want 2097152", got.TotalBufferSize)
	}
}
