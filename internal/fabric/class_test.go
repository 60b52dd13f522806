package fabric

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTrafficClassValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*TrafficClass)
		want   []string
	}{
		{"default is clean", func(*TrafficClass) {}, nil},
		{"several DSCPs on the priority", func(c *TrafficClass) { c.DSCP = []int{24, 26, 31} }, nil},
		{"empty DSCP list", func(c *TrafficClass) { c.DSCP = nil }, []string{"error rdma.dscp"}},
		{"DSCP negative", func(c *TrafficClass) { c.DSCP = []int{26, -1} }, []string{"error rdma.dscp[1]"}},
		{"DSCP above 63", func(c *TrafficClass) { c.DSCP = []int{64} }, []string{"error rdma.dscp[0]"}},
		{"repeated DSCP", func(c *TrafficClass) { c.DSCP = []int{26, 27, 26} }, []string{"error rdma.dscp[2]"}},
		{"priority above 7", func(c *TrafficClass) { c.Priority = 8 }, []string{"error rdma.priority"}},
		{"priority negative", func(c *TrafficClass) { c.Priority = -1 }, []string{"error rdma.priority"}},
		{"CNP priority above 7", func(c *TrafficClass) { c.CNPPriority = 8 }, []string{"error cnp.priority"}},
		{"CNP priority equals RDMA", func(c *TrafficClass) { c.CNPPriority = 3 }, []string{"error cnp.priority"}},
		{"CNP DSCP above 63", func(c *TrafficClass) { c.CNPDSCP = 64 }, []string{"error cnp.dscp"}},
		{"CNP DSCP in RDMA set", func(c *TrafficClass) { c.DSCP = []int{26, 48}; c.Priority = 6; c.CNPPriority = 7 },
			[]string{"warning rdma.dscp[0]", "error cnp.dscp"}},
		{"ECN bits above 3", func(c *TrafficClass) { c.ECNBits = 4 }, []string{"error rdma.ecn_bits"}},
		{"ECN bits negative", func(c *TrafficClass) { c.ECNBits = -1 }, []string{"error rdma.ecn_bits"}},
		{"ECN bits Not-ECT", func(c *TrafficClass) { c.ECNBits = 0 }, []string{"warning rdma.ecn_bits"}},
		{"ECN bits CE", func(c *TrafficClass) { c.ECNBits = 3 }, []string{"warning rdma.ecn_bits"}},
		{"ECN bits ECT(1)", func(c *TrafficClass) { c.ECNBits = 1 }, nil},
		{"trust pcp", func(c *TrafficClass) { c.Trust = TrustPCP }, nil},
		{"trust empty", func(c *TrafficClass) { c.Trust = "" }, []string{"error trust"}},
		{"trust upper case", func(c *TrafficClass) { c.Trust = "DSCP" }, []string{"error trust"}},
		{"DSCP off default mapping", func(c *TrafficClass) { c.Priority = 5 }, []string{"warning rdma.dscp[0]"}},
		{"cloud convention 26 on TC5 warns once per DSCP", func(c *TrafficClass) { c.DSCP = []int{26, 40}; c.Priority = 5 },
			[]string{"warning rdma.dscp[0]"}},
		{"mapping not checked under pcp trust", func(c *TrafficClass) { c.Priority = 5; c.Trust = TrustPCP }, nil},
		{"many errors at once", func(c *TrafficClass) {
			*c = TrafficClass{DSCP: []int{70, 70}, Priority: 9, CNPDSCP: 99, CNPPriority: 9, ECNBits: 5, Trust: "x"}
		}, []string{"error rdma.dscp[0]", "error rdma.dscp[1]", "error rdma.priority", "error cnp.priority",
			"error cnp.dscp", "error rdma.ecn_bits", "error trust"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultTrafficClass()
			tt.modify(&c)
			checkFindings(t, tt.want, c.Validate())
		})
	}
}

func TestTrafficClassMappingWarningNamesTheFix(t *testing.T) {
	c := DefaultTrafficClass()
	c.Priority = 5
	fs := render(c.Validate())
	if len(fs) != 1 {
		t.Fatalf("Validate() = %v, want one warning", fs)
	}
	for _, want := range []string{"priority 3", "rdma.priority 5", "dscp2prio", "40..47"} {
		if !strings.Contains(fs[0].Detail, want) {
			t.Errorf("detail %q does not mention %q", fs[0].Detail, want)
		}
	}
}

func TestDefaultTrafficClass(t *testing.T) {
	want := TrafficClass{DSCP: []int{26}, Priority: 3, CNPDSCP: 48, CNPPriority: 6, ECNBits: 2, Trust: "dscp"}
	if diff := cmp.Diff(want, DefaultTrafficClass()); diff != "" {
		t.Errorf("DefaultTrafficClass() mismatch (-want +got):\n%s", diff)
	}
}

func TestTrafficClassToS(t *testing.T) {
	tests := []struct {
		name string
		c    TrafficClass
		want int
	}{
		{"default", DefaultTrafficClass(), 106},
		{"first DSCP wins", TrafficClass{DSCP: []int{46, 26}, ECNBits: 2}, 186},
		{"not ECT", TrafficClass{DSCP: []int{26}}, 104},
		{"no DSCP", TrafficClass{ECNBits: 2}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.ToS(); got != tt.want {
				t.Errorf("ToS() = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestToS(t *testing.T) {
	tests := []struct {
		dscp, ecn int
		want      int
		wantErr   string
	}{
		{26, 2, 106, ""},
		{0, 0, 0, ""},
		{63, 3, 255, ""},
		{48, 0, 192, ""},
		{64, 2, 0, "dscp 64 is out of range: use 0..63"},
		{-1, 2, 0, "dscp -1 is out of range: use 0..63"},
		{26, 4, 0, "ecn bits 4 are out of range: use 0..3 (2 = ECT(0))"},
		{26, -1, 0, "ecn bits -1 are out of range: use 0..3 (2 = ECT(0))"},
	}
	for _, tt := range tests {
		got, err := ToS(tt.dscp, tt.ecn)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if got != tt.want || gotErr != tt.wantErr {
			t.Errorf("ToS(%d, %d) = %d, %q; want %d, %q", tt.dscp, tt.ecn, got, gotErr, tt.want, tt.wantErr)
		}
	}
}

func TestTrafficClassCNPKnobs(t *testing.T) {
	want := []Knob{{"cnp_dscp", 48}, {"cnp_802p_prio", 6}}
	if diff := cmp.Diff(want, DefaultTrafficClass().CNPKnobs()); diff != "" {
		t.Errorf("CNPKnobs() mismatch (-want +got):\n%s", diff)
	}
}
