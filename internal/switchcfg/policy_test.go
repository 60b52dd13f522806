package switchcfg

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
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

func testPolicy() Policy {
	return Policy{
		Name: DefaultName, Ports: []string{"Ethernet0", "Ethernet8"}, CableLengthM: 5, Class: fabric.DefaultTrafficClass(),
		ECN: ECN{MinBytes: 102400, MaxBytes: 153600, MarkProbabilityPercent: 100}, PFC: PFC{PauseThresholdBytes: 256000},
		RDMA: Scheduler{Mode: SchedulerDWRR, Weight: 50}, CNP: Scheduler{Mode: SchedulerStrict},
		Watchdog: &Watchdog{Action: "drop", DetectionTimeMs: 200, RestoreTimeMs: 200},
	}
}
