package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseFlags(t *testing.T) {
	if got, err := parseInts("8, 32,64"); err != nil || len(got) != 3 || got[2] != 64 {
		t.Errorf("parseInts = %v, %v", got, err)
	}
	if _, err := parseInts("8,x"); err == nil {
		t.Error("parseInts accepted x")
	}
	got, err := parseDurations("0,2ms")
	if err != nil || len(got) != 2 || got[0] != 0 || got[1] != 2*time.Millisecond {
		t.Errorf("parseDurations = %v, %v", got, err)
	}
	if _, err := parseDurations("-1ms"); err == nil {
		t.Error("parseDurations accepted a negative RTT")
	}
}

func TestPeakRSS(t *testing.T) {
	log := filepath.Join(t.TempDir(), "rss.log")
	if err := os.WriteFile(log, []byte("40960\n102400\ngarbage\n51200\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mib, n := peakRSS(log)
	if mib != 100 || n != 3 {
		t.Errorf("peakRSS = %v MiB over %d processes, want 100 over 3", mib, n)
	}
}

func TestTargets(t *testing.T) {
	res := []scenarioResult{{
		scenario: scenario{hosts: 64, rtt: 2 * time.Millisecond},
		steps: []step{
			{name: planStep, wall: 4 * time.Second, connsMin: 1, connsMax: 1},
			{name: applyStep, wall: 6 * time.Second, connsMin: 2, connsMax: 2, rpcs: []map[string]int{{"Set": 1, "Get": 3}}, rssMiB: 80, providers: 6},
			{name: noopStep, wall: 2 * time.Second, connsMin: 1, connsMax: 1, commandsMin: 1, commandsMax: 1, rpcs: []map[string]int{{"Get": 1}}},
			{name: ansibleDefaultStep, wall: 60 * time.Second},
			{name: ansibleTunedStep, wall: 15 * time.Second},
		},
	}}
	out := renderTargets(res)
	for _, want := range []string{
		"apply ≥ 5× faster than default Ansible: met (6.0×)",
		"apply ≥ 2× faster than tuned Ansible: MISSED (1.5×)",
		"terraform apply of that plan: MISSED (2)",
		"no-op plan: met (1 commands for 3 resources)",
		"one Set per switch: terraform apply of that plan: met",
		"provider peak RSS < 200 MB: met (80 MiB)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("targets lack %q:\n%s", want, out)
		}
	}
	if table := renderTable(res); !strings.Contains(table, "| 64 | 2ms | terraform apply of that plan | 6.0 s | 6.0× | 1.5× | 2 |") {
		t.Errorf("table row:\n%s", table)
	}
}
