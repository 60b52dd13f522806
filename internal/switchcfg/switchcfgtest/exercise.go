// Package switchcfgtest holds what the switch drivers' tests share.
package switchcfgtest

import (
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// Exercise runs on o everything a plan, an apply and a destroy ask of an observation, for
// fuzz targets: nothing may panic, whatever the switch answered.
func Exercise(o switchcfg.Observation, p switchcfg.Policy) {
	o.Check(p, 0)
	snap := o.Snapshot(nil, p, nil)
	_, _ = o.PlanUpdate(nil, p, snap)
	_, _ = o.Removal(p, snap)
	_, _ = o.Decode(p.Name, p.Ports, p)
	o.CheckLossless(p)
}

// Policy is a valid policy on two SONiC ports, with the fabric defaults.
func Policy() switchcfg.Policy {
	return switchcfg.Policy{
		Name:         switchcfg.DefaultName,
		Ports:        []string{"Ethernet0", "Ethernet8"},
		CableLengthM: 5,
		Class:        fabric.DefaultTrafficClass(),
		ECN:          switchcfg.ECN{MinBytes: 102400, MaxBytes: 153600, MarkProbabilityPercent: 100},
		PFC:          switchcfg.PFC{PauseThresholdBytes: 256000},
		RDMA:         switchcfg.Scheduler{Mode: switchcfg.SchedulerDWRR, Weight: 50},
		CNP:          switchcfg.Scheduler{Mode: switchcfg.SchedulerStrict},
		Watchdog:     &switchcfg.Watchdog{Action: "drop", DetectionTimeMs: 200, RestoreTimeMs: 200},
	}
}

// ViolationText renders violations one a line in Go names, "severity: field: summary:
// detail", for test failures.
// Detail is v's detail in the Go names of its fields.
func Detail(v violation.Violation) string {
	_, d := v.Words(violation.GoNames)
	return d
}

func ViolationText(vs violation.List) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString(v.Line(violation.GoNames) + "\n")
	}
	return b.String()
}
