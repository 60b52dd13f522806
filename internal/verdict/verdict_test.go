package verdict

import "testing"

func TestLine(t *testing.T) {
	for _, tt := range []struct {
		v    Verdict
		want string
	}{
		{Verdict{Check: "lossless_drops", Target: "leaf1:8080", Subject: "Ethernet8 queue 3", Detail: "dropped", Remedy: "enable PFC"},
			"lossless_drops leaf1:8080 Ethernet8 queue 3: dropped. Remedy: enable PFC"},
		{Verdict{Check: "gpudirect", Subject: "GPU3", Detail: "off", Remedy: "load nvidia-peermem"}, "gpudirect GPU3: off. Remedy: load nvidia-peermem"},
		{Verdict{Check: "traffic", Detail: "idle", Remedy: "sample under load"}, "traffic: idle. Remedy: sample under load"},
	} {
		if got := tt.v.Line(); got != tt.want {
			t.Errorf("Line() = %q, want %q", got, tt.want)
		}
	}
	if p, f := Count([]Verdict{{Pass: true}, {}, {Pass: true}}); p != 2 || f != 1 {
		t.Errorf("Count = %d, %d; want 2, 1", p, f)
	}
}
