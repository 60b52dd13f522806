package switchcfg

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

func TestPolicyValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Policy)
		want   []string // "severity path"
	}{
		{"sound", func(*Policy) {}, nil},
		{"ratio 1.5", func(p *Policy) { p.PFC.PauseThresholdBytes = 153600 }, []string{"error Thresholds.PFCPauseBytes"}},
		{"ecn min above max", func(p *Policy) { p.ECN.MaxBytes = 100000 }, []string{"error Thresholds.ECNMinBytes"}},
		{"cnp on rdma priority", func(p *Policy) { p.Class.CNPPriority = 3 }, []string{"error TrafficClass.CNPPriority"}},
		{"bad port", func(p *Policy) { p.Ports = []string{"Ethernet0", "eth1"} }, []string{"error Policy.Ports[1]"}},
		{"repeated port", func(p *Policy) { p.Ports = []string{"Ethernet0", "Ethernet0"} }, []string{"error Policy.Ports[1]"}},
		{"strict rdma", func(p *Policy) { p.RDMA = Scheduler{Mode: SchedulerStrict} }, []string{"warning Policy.RDMA.Mode"}},
		{"dwrr weight 0", func(p *Policy) { p.CNP = Scheduler{Mode: SchedulerDWRR} }, []string{"error Policy.CNP.Weight"}},
		{"watchdog", func(p *Policy) { p.Watchdog = &Watchdog{Action: "panic", DetectionTimeMs: 50, RestoreTimeMs: 200} },
			[]string{"error Policy.Watchdog.Action", "error Policy.Watchdog.DetectionTimeMs"}},
		{"name", func(p *Policy) { p.Name = "RoCE policy" }, []string{"error Policy.Name"}},
		{"empty name", func(p *Policy) { p.Name = "" }, []string{"error Policy.Name"}},
		{"mark probability 0", func(p *Policy) { p.ECN.MarkProbabilityPercent = 0 }, []string{"error Thresholds.MarkProbabilityPercent"}},
		{"storage class", func(p *Policy) { p.Lossless = []LosslessClass{storage()} }, nil},
		{"storage shares the RDMA DSCP", func(p *Policy) { s := storage(); s.DSCP = []int{26, 34}; p.Lossless = []LosslessClass{s} },
			[]string{"error Lossless[0].LosslessClass.DSCP[0]"}},
		{"storage on the RDMA priority", func(p *Policy) { s := storage(); s.Priority = 3; s.DSCP = []int{27}; p.Lossless = []LosslessClass{s} },
			[]string{"error Lossless[0].LosslessClass.Priority"}},
		{"storage on the CNP priority", func(p *Policy) { s := storage(); s.Priority = 6; s.DSCP = []int{50}; p.Lossless = []LosslessClass{s} },
			[]string{"error Lossless[0].LosslessClass.Priority"}},
		{"storage weight 0", func(p *Policy) { s := storage(); s.Scheduler.Weight = 0; p.Lossless = []LosslessClass{s} },
			[]string{"error Lossless[0].LosslessClass.Scheduler.Weight"}},
		{"storage probability 0", func(p *Policy) { s := storage(); s.ECN.MarkProbabilityPercent = 0; p.Lossless = []LosslessClass{s} },
			[]string{"error Lossless[0].LosslessClass.ECN.MarkProbabilityPercent"}},
		{"weights leave nothing", func(p *Policy) { s := storage(); s.Scheduler.Weight = 50; p.Lossless = []LosslessClass{s} },
			[]string{"error Lossless[0].LosslessClass.Scheduler.Weight"}},
		{"strict storage beside dwrr 50", func(p *Policy) {
			s := storage()
			s.Scheduler = Scheduler{Mode: SchedulerStrict}
			p.Lossless = []LosslessClass{s}
		}, nil},
		{"storage ECN after PFC", func(p *Policy) { s := storage(); s.ECN.MaxBytes = 600_000; p.Lossless = []LosslessClass{s} },
			[]string{"error Lossless[0].Thresholds.ECNMaxBytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := testPolicy()
			tt.change(&p)
			var got []string
			for _, f := range p.Validate(fabric.DefaultRatioWindow(), ethernetPorts{}) {
				got = append(got, f.Severity.String()+" "+f.At.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// ethernetPorts names ports Ethernet<N>.
type ethernetPorts struct{}

func (ethernetPorts) CheckPort(name string) string {
	if !regexp.MustCompile(`^Ethernet[0-9]+$`).MatchString(name) {
		return "ports are Ethernet<N>"
	}
	return ""
}

func storage() LosslessClass {
	return LosslessClass{Name: "storage", DSCP: []int{34}, Priority: 4,
		ECN: ECN{MinBytes: 200_000, MaxBytes: 400_000, MarkProbabilityPercent: 100}, PFC: PFC{PauseThresholdBytes: 500_000},
		Scheduler: Scheduler{Mode: SchedulerDWRR, Weight: DefaultClassWeight}}
}

// TestWeightsExhaustedWords: the weight rule gives the sum and each class's share.
func TestWeightsExhaustedWords(t *testing.T) {
	p := testPolicy()
	s := storage()
	s.Scheduler.Weight = 60
	p.Lossless = []LosslessClass{s}
	vs := p.Validate(fabric.DefaultRatioWindow(), ethernetPorts{})
	if len(vs) != 1 {
		t.Fatalf("Validate() = %v, want one violation", vs)
	}
	_, detail := vs[0].Words(violation.GoNames)
	if want := "add up to 110 (rdma 50, storage 60)"; !regexp.MustCompile(regexp.QuoteMeta(want)).MatchString(detail) {
		t.Errorf("detail %q, want %q", detail, want)
	}
}

func testPolicy() Policy {
	return Policy{
		Name: DefaultName, Ports: []string{"Ethernet0", "Ethernet8"}, CableLengthM: 5, Class: fabric.DefaultTrafficClass(),
		ECN: ECN{MinBytes: 102400, MaxBytes: 153600, MarkProbabilityPercent: 100}, PFC: PFC{PauseThresholdBytes: 256000},
		RDMA: Scheduler{Mode: SchedulerDWRR, Weight: 50}, CNP: Scheduler{Mode: SchedulerStrict},
		Watchdog: &Watchdog{Action: "drop", DetectionTimeMs: 200, RestoreTimeMs: 200},
	}
}
