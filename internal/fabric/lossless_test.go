package fabric

import (
	"strings"
	"testing"
)

func storageClass() LosslessClass {
	return LosslessClass{Name: "storage", DSCP: []int{34}, Priority: 4,
		Thresholds: Thresholds{ECNMinBytes: 200_000, ECNMaxBytes: 400_000, PFCPauseBytes: 500_000}}
}

func TestCheckLossless(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*TrafficClass, *[]LosslessClass)
		want   []string
	}{
		{"storage on 4 is clean", func(*TrafficClass, *[]LosslessClass) {}, nil},
		{"no classes", func(_ *TrafficClass, m *[]LosslessClass) { *m = nil }, nil},
		{"DSCP of the default class", func(_ *TrafficClass, m *[]LosslessClass) { (*m)[0].DSCP = []int{34, 26} },
			[]string{"error lossless_classes[0].dscp[1]"}},
		{"DSCP of an earlier class", func(_ *TrafficClass, m *[]LosslessClass) {
			third := storageClass()
			third.Name, third.Priority, third.DSCP = "backup", 2, []int{34}
			*m = append(*m, third)
		}, []string{"error lossless_classes[1].dscp[0]"}},
		{"DSCP repeated in the class", func(_ *TrafficClass, m *[]LosslessClass) { (*m)[0].DSCP = []int{34, 34} },
			[]string{"error lossless_classes[0].dscp[1]"}},
		{"DSCP out of range", func(_ *TrafficClass, m *[]LosslessClass) { (*m)[0].DSCP = []int{64} },
			[]string{"error lossless_classes[0].dscp[0]"}},
		{"no DSCP", func(_ *TrafficClass, m *[]LosslessClass) { (*m)[0].DSCP = nil },
			[]string{"error lossless_classes[0].dscp"}},
		{"CNP DSCP", func(_ *TrafficClass, m *[]LosslessClass) { (*m)[0].DSCP = []int{48}; (*m)[0].Priority = 6 },
			[]string{"error lossless_classes[0].dscp[0]", "error lossless_classes[0].priority"}},
		{"priority of the default class", func(_ *TrafficClass, m *[]LosslessClass) { (*m)[0].Priority = 3; (*m)[0].DSCP = []int{27} },
			[]string{"error lossless_classes[0].priority"}},
		{"priority of the CNPs", func(_ *TrafficClass, m *[]LosslessClass) { (*m)[0].Priority = 6; (*m)[0].DSCP = []int{50} },
			[]string{"error lossless_classes[0].priority"}},
		{"priority out of range", func(_ *TrafficClass, m *[]LosslessClass) { (*m)[0].Priority = 8 },
			[]string{"error lossless_classes[0].priority"}},
		{"DSCP off the class's priority", func(_ *TrafficClass, m *[]LosslessClass) { (*m)[0].DSCP = []int{26 + 8*2} },
			[]string{"warning lossless_classes[0].dscp[0]"}},
		{"name reserved", func(_ *TrafficClass, m *[]LosslessClass) { (*m)[0].Name = "RDMA" },
			[]string{"error lossless_classes[0].name"}},
		{"name too long", func(_ *TrafficClass, m *[]LosslessClass) { (*m)[0].Name = "storage-class" },
			[]string{"error lossless_classes[0].name"}},
		{"name repeated", func(_ *TrafficClass, m *[]LosslessClass) {
			again := storageClass()
			again.Priority, again.DSCP = 2, []int{18}
			*m = append(*m, again)
		}, []string{"error lossless_classes[1].name"}},
		{"class thresholds out of order", func(_ *TrafficClass, m *[]LosslessClass) { (*m)[0].Thresholds.ECNMaxBytes = 150_000 },
			[]string{"error lossless_classes[0].ecn.min_threshold_bytes"}},
		{"class ratio outside window", func(_ *TrafficClass, m *[]LosslessClass) { (*m)[0].Thresholds.PFCPauseBytes = 900_000 },
			[]string{"error lossless_classes[0].pfc.pause_threshold_bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultTrafficClass()
			more := []LosslessClass{storageClass()}
			tt.modify(&c, &more)
			checkFindings(t, tt.want, CheckLossless(c, more, DefaultRatioWindow()))
		})
	}
}

// TestCheckLosslessWordsNameTheClass: a rule found on a class's thresholds names the class's
// attributes in its words, and the clash rules name the class they clash with.
func TestCheckLosslessWordsNameTheClass(t *testing.T) {
	k := storageClass()
	k.Thresholds.PFCPauseBytes = 900_000
	got := render(CheckLossless(DefaultTrafficClass(), []LosslessClass{k}, DefaultRatioWindow()))
	if len(got) != 1 || !strings.Contains(got[0].Detail, "lossless_classes[0].pfc.pause_threshold_bytes is 900000, 4.50 x lossless_classes[0].ecn.min_threshold_bytes (200000)") {
		t.Errorf("ratio words = %+v", got)
	}
	k = storageClass()
	k.Priority, k.DSCP = 3, []int{26}
	got = render(CheckLossless(DefaultTrafficClass(), []LosslessClass{k}, DefaultRatioWindow()))
	want := []string{
		`lossless_classes[0].dscp[0] is 26, which lossless class "rdma" already uses`,
		`lossless_classes[0].priority is 3, the priority of lossless class "rdma"`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i, w := range want {
		if !strings.Contains(got[i].Detail, w) {
			t.Errorf("detail %q, want it to contain %q", got[i].Detail, w)
		}
	}
	k = storageClass()
	k.Priority, k.DSCP = 6, []int{50}
	got = render(CheckLossless(DefaultTrafficClass(), []LosslessClass{k}, DefaultRatioWindow()))
	if len(got) != 1 || !strings.Contains(got[0].Detail, "lossless_classes[0].priority is 6, the priority of CNPs (cnp.priority)") {
		t.Errorf("CNP words = %+v", got)
	}
}

func TestCheckClassesCapacity(t *testing.T) {
	sn5600, _ := LookupPlatform("sn5600")
	one := []ClassReservation{{Class: "rdma", HeadroomBytes: 250_000, PauseBytes: 250_000}}
	two := append(one, ClassReservation{Class: "storage", HeadroomBytes: 250_000, PauseBytes: 250_000})
	if vs := CheckClassesCapacity(sn5600, one, 128); vs.HasErrors() {
		t.Fatalf("one class on 128 ports: %v", render(vs))
	}
	vs := CheckClassesCapacity(sn5600, two, 128)
	got := render(vs)
	if len(got) != 1 || got[0].Path != "ports" {
		t.Fatalf("two classes on 128 ports = %+v, want one error on ports", got)
	}
	for _, w := range []string{"2 lossless classes", "rdma 250000 + 250000, storage 250000 + 250000 B = 1000000 B per port",
		"128 ports x 1000000 B = 128000000 B exceeds the SN5600 ingress lossless pool of 67737959 B", "at most 529202 B per port"} {
		if !strings.Contains(got[0].Detail, w) {
			t.Errorf("detail %q lacks %q", got[0].Detail, w)
		}
	}
	if _, ok := vs[0].Rule.(ClassesBufferExhausted); !ok {
		t.Errorf("rule %T, want ClassesBufferExhausted", vs[0].Rule)
	}
}
