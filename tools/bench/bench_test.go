package main

import (
	"math"
	"os"
	"os/exec"
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

func TestReadProviderUsage(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"usage-1": "40960 1500000\n", "usage-2": "102400 250000\n", "usage-3": "51200 1000\n",
		"usage-4.tmp": "999999 1\n", "usage-5": "garbage\n", "usage-6": "51200 x\n", "heap-1.pprof": "1 1\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	u := readProviderUsage(dir)
	if u.peakMiB != 100 || u.processes != 3 || u.cpu != 1751*time.Millisecond {
		t.Errorf("readProviderUsage = %+v, want 100 MiB, 3 processes, 1.751 s", u)
	}
}

func TestTargets(t *testing.T) {
	res := []scenarioResult{{
		scenario: scenario{hosts: 64, rtt: 2 * time.Millisecond},
		steps: []step{
			{name: planStep, wall: 4 * time.Second, connsMin: 1, connsMax: 1},
			{name: applyStep, wall: 6 * time.Second, connsMin: 2, connsMax: 2, rpcs: []map[string]int{{"Set": 1, "Get": 3}}, provider: providerUsage{peakMiB: 80, processes: 6}},
			{name: noopStep, wall: 2 * time.Second, connsMin: 1, connsMax: 1, commandsMin: 1, commandsMax: 1, rpcs: []map[string]int{{"Get": 1}}},
			{name: ansibleStep(ansibleDefault), wall: 60 * time.Second},
			{name: ansibleStep(ansibleTuned), wall: 15 * time.Second},
			{name: ansibleSecondStep(ansibleTuned), wall: 5 * time.Second},
		},
	}}
	out := renderTargets(res)
	for _, want := range []string{
		"apply ≥ 6× faster than default Ansible: met (6.0×)",
		"apply ≥ 4× faster than tuned Ansible: MISSED (1.5×)",
		"terraform apply of that plan: MISSED (2)",
		"no-op plan: met (1 commands for 3 resources)",
		"one Set per switch: terraform apply of that plan: met",
		"provider peak RSS < 200 MB: met (80 MiB)",
		"apply ≥ 3× faster than mitogen Ansible: not measured in this run",
		"no-op plan against a second tuned Ansible run (reported, no target): 2.5×",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("targets lack %q:\n%s", want, out)
		}
	}
	if table := renderTable(res); !strings.Contains(table, "| 64 | 2ms | 10 | terraform apply of that plan | 6.0 s | 6.0× default, 1.5× tuned | 2 |") ||
		!strings.Contains(table, "| terraform plan (no changes) | 2.0 s | 2.5× tuned |") {
		t.Errorf("table row:\n%s", table)
	}
}

func TestParseProcStat(t *testing.T) {
	// The example of proc(5) (man-pages 6.x, /proc/stat), with the per-CPU lines after it.
	stat := "cpu  10132153 290696 3084719 46828483 16683 0 25195 0 175628 0\ncpu0 1393280 32966 572056 13343292 6130 0 17875 0 23933 0\nintr 1462898\n"
	got, err := parseProcStat(stat)
	// user+nice+system+irq+softirq+steal = 10132153+290696+3084719+0+25195+0 ticks of 10 ms.
	if want := 13532763 * clockTick; err != nil || got != want {
		t.Errorf("parseProcStat = %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"", "cpu  1 2 3\n", "cpu  1 2 x 4 5 6 7 8\n"} {
		if _, err := parseProcStat(bad); err == nil {
			t.Errorf("parseProcStat(%q) accepted it", bad)
		}
	}
	// The twins' share never goes below zero when the controller's exceeds the machine's
	// (the two clocks are read a moment apart).
	c, tw := split(cpuSample{children: time.Second, machine: 10 * time.Second}, cpuSample{children: 3 * time.Second, machine: 11 * time.Second})
	if c != 2*time.Second || tw != 0 {
		t.Errorf("split = %v, %v; want 2s, 0", c, tw)
	}
}

func TestCPUTargets(t *testing.T) {
	res := []scenarioResult{{
		scenario: scenario{hosts: 64, rtt: 2 * time.Millisecond},
		steps: []step{
			{name: planStep, hosts: 64, controller: 1280 * time.Millisecond},
			{name: applyStep, hosts: 64, controller: 6400 * time.Millisecond, twins: 30 * time.Second,
				provider: providerUsage{processes: 1, cpu: 4200 * time.Millisecond}},
			{name: noopStep, hosts: 64, controller: 4480 * time.Millisecond, twins: 32 * time.Second},
		},
	}}
	res[0].steps[1].stateBytes = 64 * 12 << 10
	out := renderTargets(res)
	for _, want := range []string{
		"controller CPU ≤ 60 ms per host on a no-op plan: MISSED (70 ms)",
		"controller CPU ≤ 300 ms per host on a full apply (plan and apply): met (120 ms)",
		"twins CPU ≤ 100 ms per host on a no-op plan (a gather and its SSH session): MISSED (500 ms)",
		"state ≤ 10 KiB per host after the apply: MISSED (12.0 KiB)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("targets lack %q:\n%s", want, out)
		}
	}
	if table := renderTable(res); !strings.Contains(table, "| 6.4 s | 100 ms | 4.2 s | 30.0 s |") {
		t.Errorf("table lacks the CPU split of the apply:\n%s", table)
	}
}

// TestSampleCPUCountsAChild: a child that burns CPU shows in the controller's clock once it
// has been waited for.
func TestSampleCPUCountsAChild(t *testing.T) {
	before, err := sampleCPU()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("sh", "-c", `i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done`).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	after, err := sampleCPU()
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := split(before, after); c < 50*time.Millisecond {
		t.Errorf("a child's busy loop counted %v of controller CPU, want at least 50ms", c)
	}
	if after.machine <= before.machine {
		t.Errorf("machine busy time did not grow: %v then %v", before.machine, after.machine)
	}
}

func TestGrowthExponent(t *testing.T) {
	// cpu = 0.05 s · hosts^1.2 exactly: the fit returns 1.2.
	var g growthSeries
	for _, n := range []int{16, 64, 256} {
		g.hosts = append(g.hosts, n)
		g.cpu = append(g.cpu, time.Duration(0.05*math.Pow(float64(n), 1.2)*float64(time.Second)))
	}
	if x, ok := g.exponent(); !ok || math.Abs(x-1.2) > 1e-6 {
		t.Errorf("exponent = %v, %v; want 1.2", x, ok)
	}
	if _, ok := (growthSeries{hosts: []int{16}, cpu: []time.Duration{time.Second}}).exponent(); ok {
		t.Error("one host count gave an exponent")
	}
}

func TestRenderGrowth(t *testing.T) {
	at := func(n int, noop time.Duration) scenarioResult {
		return scenarioResult{scenario: scenario{hosts: n, rtt: 2 * time.Millisecond}, steps: []step{
			{name: planStep, controller: time.Duration(n) * 10 * time.Millisecond},
			{name: applyStep, controller: time.Duration(n) * 90 * time.Millisecond},
			{name: noopStep, controller: noop},
		}}
	}
	// No-op CPU quadruples when hosts double: exponent 2, missed; the apply is linear.
	out := renderGrowth([]scenarioResult{at(16, time.Second), at(32, 4*time.Second)})
	for _, want := range []string{
		"RTT 2ms, parallelism 10, no-op plan: exponent 2.00, target ≤ 1.1: MISSED (controller CPU: 16 hosts 1.0 s, 32 hosts 4.0 s)",
		"RTT 2ms, parallelism 10, full apply (plan and apply): exponent 1.00, target ≤ 1.1: met",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("growth lacks %q:\n%s", want, out)
		}
	}
	if out := renderGrowth([]scenarioResult{at(16, time.Second)}); out != "" {
		t.Errorf("one host count rendered growth:\n%s", out)
	}
}

func TestPartialReportIsReplaced(t *testing.T) {
	c := config{root: t.TempDir(), out: "results", terraform: "/nonexistent/terraform"}
	path, err := reportPath(c, time.Date(2026, 12, 3, 11, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(c.root, "results", "2026-12-03T11-00-00.md"); path != want {
		t.Fatalf("path = %s, want %s", path, want)
	}
	one := []scenarioResult{{scenario: scenario{hosts: 16, parallelism: 10}}}
	if err := writeReport(path, renderReport(c, one, time.Minute, 2)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "Partial: 1 of 2 scenarios done") {
		t.Errorf("a report of 1 of 2 scenarios does not say it is partial:\n%s", b)
	}
	two := append(one, scenarioResult{scenario: scenario{hosts: 32, parallelism: 10}})
	if err := writeReport(path, renderReport(c, two, time.Minute, 2)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), "**Partial:") {
		t.Errorf("the finished report still says it is partial:\n%s", b)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("results holds %d files, want the one report", len(entries))
	}
}

// TestScaleOut: a run split into pods stands in the table with its split and is set beside the
// one-state run of the same hosts, and neither the growth series nor the targets take it.
func TestScaleOut(t *testing.T) {
	one := scenarioResult{scenario: scenario{hosts: 256, rtt: 2 * time.Millisecond, parallelism: 10}, steps: []step{
		{name: planStep, hosts: 256, wall: 100 * time.Second, controller: 25600 * time.Millisecond},
		{name: applyStep, hosts: 256, wall: 300 * time.Second, controller: 256 * time.Second},
		{name: noopStep, hosts: 256, wall: 50 * time.Second, controller: 38400 * time.Millisecond},
	}}
	split := scenarioResult{scenario: scenario{hosts: 256, rtt: 2 * time.Millisecond, parallelism: 10, pods: 4}, steps: []step{
		{name: planStep, hosts: 256, wall: 60 * time.Second, controller: 12800 * time.Millisecond},
		{name: applyStep, hosts: 256, wall: 140 * time.Second, controller: 64 * time.Second},
		{name: noopStep, hosts: 256, wall: 25 * time.Second, controller: 12800 * time.Millisecond},
	}}
	res := []scenarioResult{one, split}
	out := renderScaleOut(res)
	for _, want := range []string{
		"## Scale-out: 256 (4 × 64) hosts, RTT 2ms, -parallelism=10 against one state",
		"- full apply (plan and apply): 200.0 s against 400.0 s wall (2.00×), 300 ms against 1100 ms controller CPU per host",
		"- no-op plan: 25.0 s against 50.0 s wall (2.00×), 50 ms against 150 ms controller CPU per host",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("scale-out lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "drift repair") {
		t.Errorf("scale-out compares a step neither run has:\n%s", out)
	}
	if table := renderTable(res); !strings.Contains(table, "| 256 (4 × 64) | 2ms | 10 | terraform plan (no changes) | 25.0 s |") {
		t.Errorf("table lacks the split's row:\n%s", table)
	}
	if targets := renderTargets(res); !strings.Contains(targets, "MISSED (150 ms)") {
		t.Errorf("targets are not the one-state run's:\n%s", targets)
	}
	small := func(pods int) scenarioResult {
		return scenarioResult{scenario: scenario{hosts: 16, rtt: 2 * time.Millisecond, parallelism: 10, pods: pods}, steps: []step{
			{name: noopStep, hosts: 16, controller: 2400 * time.Millisecond},
		}}
	}
	if g := renderGrowth([]scenarioResult{small(1), one}); !strings.Contains(g, "16 hosts") {
		t.Errorf("growth lacks the one-state series:\n%s", g)
	}
	if g := renderGrowth([]scenarioResult{small(4), one}); strings.Contains(g, "16 hosts") {
		t.Errorf("growth takes a scale-out run:\n%s", g)
	}
}

// TestScenarios: -pods splits run at the -pods-hosts counts only, one state at every count.
func TestScenarios(t *testing.T) {
	c := config{parallelism: []int{10}, pods: []int{1, 4}, podsHosts: []int{256}}
	if got := c.scenarios(64, 0); len(got) != 1 || got[0].pods != 1 {
		t.Errorf("scenarios(64) = %v, want one state only", got)
	}
	if got := c.scenarios(256, 0); len(got) != 2 || got[1].pods != 4 || got[1].hostsText() != "256 (4 × 64)" {
		t.Errorf("scenarios(256) = %v, want one state and 4 × 64", got)
	}
}
