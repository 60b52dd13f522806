package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// Targets (benchmark results, not timed tests), for the largest scenario with a nonzero RTT.
const (
	targetConnsPerHost    = 1
	targetCmdsPerRes      = 3
	targetSetsPerSwitch   = 1
	targetRSSMiB          = 200.0
	targetNoopCPUPerHost  = 60.0  // controller CPU-ms per host, no-op plan
	targetApplyCPUPerHost = 300.0 // controller CPU-ms per host, plan and apply of fresh hosts
	targetStateKiBPerHost = 10.0  // terraform.tfstate per host after the apply, the module's defaults
	// targetNoopTwinsPerHost is the twins' CPU-ms per host of a no-op plan: one gather with its
	// SSH session on every host (and one switch read each), what a real host spends in its tools.
	targetNoopTwinsPerHost = 100.0
	targetGrowthExponent   = 1.1 // of controller CPU over host counts (growth.go)
	scaleHosts             = 256 // the host count of the scale targets
	targetScaleNoopWall    = 30 * time.Second
	targetScaleScenario    = 20 * time.Minute // the scale scenario whole, twins included
	planStep               = "terraform plan -out (empty state)"
	applyStep              = "terraform apply of that plan"
	noopStep               = "terraform plan (no changes)"
	repairStep             = "terraform apply -auto-approve (drift on every host)"
	ansibleStepPrefix      = "ansible-playbook ("
	resultsFileTimeStamp   = "2006-01-02T15-04-05"
)

func (r scenarioResult) step(name string) (step, bool) {
	i := slices.IndexFunc(r.steps, func(s step) bool { return s.name == name })
	if i < 0 {
		return step{}, false
	}
	return r.steps[i], true
}

// speedup is how many times faster Terraform converged fresh hosts (plan, then apply the
// plan) than Ansible's mode did.
func (r scenarioResult) speedup(mode string) (float64, bool) {
	a, ok1 := r.step(ansibleStep(mode))
	p, ok2 := r.step(planStep)
	t, ok3 := r.step(applyStep)
	if !ok1 || !ok2 || !ok3 || p.wall+t.wall == 0 {
		return 0, false
	}
	return a.wall.Seconds() / (p.wall + t.wall).Seconds(), true
}

// noopSpeedup is how many times faster Terraform's plan with nothing to change was than a
// second run of Ansible's mode on the hosts it converged: the drift check of each.
func (r scenarioResult) noopSpeedup(mode string) (float64, bool) {
	a, ok1 := r.step(ansibleSecondStep(mode))
	n, ok2 := r.step(noopStep)
	if !ok1 || !ok2 || n.wall == 0 {
		return 0, false
	}
	return a.wall.Seconds() / n.wall.Seconds(), true
}

// speedups prints the speed-ups of step s over each Ansible configuration the scenario ran
// ("6.1× default, 4.2× tuned"): the converge for the apply, the second run for the no-op plan.
func (r scenarioResult) speedups(s step) string {
	var out []string
	for _, a := range ansibleConfigs {
		x, ok := 0.0, false
		switch s.name {
		case applyStep:
			x, ok = r.speedup(a.name)
		case noopStep:
			x, ok = r.noopSpeedup(a.name)
		}
		if ok {
			out = append(out, fmt.Sprintf("%.1f× %s", x, a.name))
		}
	}
	return strings.Join(out, ", ")
}

func renderTable(results []scenarioResult) string {
	var b strings.Builder
	b.WriteString("| hosts | RTT | parallelism | step | wall | × vs Ansible | SSH conns/host | commands/host | gNMI RPCs/switch | provider peak RSS | network lower bound | controller CPU | controller CPU/host | of it provider | twins CPU | state |\n")
	b.WriteString("|---:|---:|---:|---|---:|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		for _, s := range r.steps {
			rss, providerCPU := "", ""
			if s.provider.processes > 0 {
				rss = fmt.Sprintf("%.0f MiB (%d processes)", s.provider.peakMiB, s.provider.processes)
				providerCPU = fmt.Sprintf("%.1f s", s.provider.cpu.Seconds())
			}
			state := ""
			if s.stateBytes > 0 {
				state = fmt.Sprintf("%.0f KiB", float64(s.stateBytes)/1024)
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %.1f s | %s | %s | %s | %s | %s | %s | %.1f s | %.0f ms | %s | %.1f s | %s |\n",
				r.hostsText(), r.rtt, r.effectiveParallelism(), s.name, s.wall.Seconds(), r.speedups(s),
				span(s.connsMin, s.connsMax), span(s.commandsMin, s.commandsMax), rpcSummary(s.rpcs), rss,
				s.lowerBound.Round(time.Millisecond), s.controller.Seconds(), s.perHost(), providerCPU, s.twins.Seconds(), state)
		}
	}
	return b.String()
}

// effectiveParallelism is the -parallelism Terraform ran with.
func (s scenario) effectiveParallelism() int {
	if s.parallelism == 0 {
		return defaultParallelism
	}
	return s.parallelism
}

// perHost is the step's controller CPU per host, in milliseconds.
func (s step) perHost() float64 {
	if s.hosts == 0 {
		return 0
	}
	return float64(s.controller.Microseconds()) / 1000 / float64(s.hosts)
}

// span prints a per-host count as one number, or min–max when hosts differ.
func span(lo, hi int) string {
	if lo == hi {
		return fmt.Sprint(hi)
	}
	return fmt.Sprintf("%d–%d", lo, hi)
}

// rpcSummary prints the most RPCs any switch got, by method.
func rpcSummary(perSwitch []map[string]int) string {
	if perSwitch == nil {
		return ""
	}
	most := map[string]int{}
	for _, m := range perSwitch {
		for k, n := range m {
			most[k] = max(most[k], n)
		}
	}
	var parts []string
	for _, k := range []string{"Set", "Get", "Capabilities", "Subscribe"} {
		if most[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, most[k]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// renderReport renders the report of results; a run that has not finished its planned
// scenarios says so at the top.
func renderReport(c config, results []scenarioResult, took time.Duration, planned int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# make bench, %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	if len(results) < planned {
		fmt.Fprintf(&b, "**Partial: %d of %d scenarios done; the run went on.**\n\n", len(results), planned)
	}
	args := make([]string, 0, len(os.Args)-1)
	for _, a := range os.Args[1:] {
		args = append(args, shell.Quote(a)) // an empty -ansible '' stays visible
	}
	fmt.Fprintf(&b, "Command: `roce-bench %s`\n\n", strings.Join(args, " "))
	fmt.Fprintf(&b, "Machine: %d CPUs (%s; a fork and exec of /bin/true takes %s), %s; %s; %s; %s. %d switch twins of %d ports; host twins of profile %s "+
		"(8 ConnectX-7 ports each), each in its own network namespace behind a relay adding the RTT. "+
		"Whole run: %s.\n\n",
		runtime.NumCPU(), cpuModel(), forkExecCost().Round(10*time.Microsecond), runtime.Version(), versionLine("Terraform v", c.terraform, "version"),
		versionLine("ansible-playbook", "ansible-playbook", "--version"), versionLine("OpenSSH", "sshd", "-V"), c.switches, c.ports, hostProfile, took.Round(time.Second))
	b.WriteString(renderTable(results))
	b.WriteString("\nThe speed-ups compare Ansible on fresh hosts with Terraform's plan and apply of that plan together. " +
		"SSH conns/host and commands/host come from the host twins' sshd logs (min–max over hosts); " +
		"gNMI RPCs/switch from the switch twins' counters (most on any switch); provider peak RSS is the largest " +
		"maximum resident set of the provider processes the command started (`terraform apply` starts one for " +
		"the plan and one for the apply, so it opens a connection per host in each). The network lower bound is the fewest round trips any tool needs on a " +
		"host (an SSH connection, then reading, writing and verifying: bounds.go) times the RTT. " +
		"Controller CPU is what the command and the processes it waited for used (terraform with its providers; " +
		"ansible-playbook with its workers and ssh clients), from the bench's RUSAGE_CHILDREN, and of it the provider processes' own (each one's rusage); the rest is Terraform's. Twins CPU is the rest of " +
		"the machine's busy time over the step (/proc/stat): the host twins' sessions and stand-ins and the switch twins (cpu.go).\n\n")
	b.WriteString("Ansible and Terraform leave the same files on a host (bench/ansible/compare.sh on the hosts' overlay upper directories):\n\n")
	for _, r := range results {
		for _, mode := range c.ansibleFor(r.hosts) {
			verdict := "yes"
			if !r.equivalent[mode] {
				verdict = "NO:\n\n```\n" + strings.TrimSpace(r.diff[mode]) + "\n```\n"
			}
			idem := "a second run changed nothing"
			switch {
			case !c.idempotency:
				idem = "not run twice"
			case !r.idempotent[mode]:
				idem = "a second run CHANGED something"
			}
			fmt.Fprintf(&b, "- %s, Ansible %s: %s (%s)\n", r.scenario, mode, verdict, idem)
		}
	}
	b.WriteString(renderHandshakes(results))
	b.WriteString("\n" + renderGrowth(results))
	b.WriteString(renderScaleOut(results))
	b.WriteString("\n" + renderTargets(results))
	return b.String()
}

// renderHandshakes prices, per scenario, the second SSH connection per host that a one-shot
// apply's two provider processes open, against the drift repair's controller CPU per host
// (a one-shot apply, both walks).
func renderHandshakes(results []scenarioResult) string {
	var b strings.Builder
	for _, r := range results {
		var perHost time.Duration
		if s, ok := r.step(repairStep); ok {
			perHost = time.Duration(s.perHost() * float64(time.Millisecond))
		}
		if line := r.handshake.render(perHost); line != "" {
			fmt.Fprintf(&b, "- %s: %s.\n", r.scenario, line)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\nThe handshakes (handshake.go; the provider's SSH client in a child process, its CPU from its own rusage, sshd's from the machine's busy time):\n\n" + b.String()
}

// renderScaleOut sets each scale-out scenario beside the one-state scenario of the same hosts,
// RTT and -parallelism: the full apply (plan and apply) and the no-op plan, by wall time and
// controller CPU per host.
func renderScaleOut(results []scenarioResult) string {
	var b strings.Builder
	for _, split := range results {
		if split.pods <= 1 {
			continue
		}
		i := slices.IndexFunc(results, func(r scenarioResult) bool {
			return r.pods <= 1 && r.hosts == split.hosts && r.rtt == split.rtt && r.parallelism == split.parallelism
		})
		if i < 0 {
			continue
		}
		one := results[i]
		line := func(what string, x, y scenarioResult, names ...string) {
			var wa, wb time.Duration
			var ca, cb float64
			for _, n := range names {
				sa, ok1 := x.step(n)
				sb, ok2 := y.step(n)
				if !ok1 || !ok2 {
					return
				}
				wa, wb, ca, cb = wa+sa.wall, wb+sb.wall, ca+sa.perHost(), cb+sb.perHost()
			}
			fmt.Fprintf(&b, "- %s: %.1f s against %.1f s wall (%.2f×), %.0f ms against %.0f ms controller CPU per host\n",
				what, wa.Seconds(), wb.Seconds(), wb.Seconds()/wa.Seconds(), ca, cb)
		}
		fmt.Fprintf(&b, "\n## Scale-out: %s against one state\n\n", split.scenario)
		line("full apply (plan and apply)", split, one, planStep, applyStep)
		line("no-op plan", split, one, noopStep)
		line("drift repair", split, one, repairStep)
	}
	return b.String()
}

// renderTargets checks the targets on the largest scenario with the largest RTT.
func renderTargets(results []scenarioResult) string {
	if len(results) == 0 {
		return ""
	}
	best := slices.MaxFunc(results, func(a, b scenarioResult) int {
		if a.hosts != b.hosts {
			return a.hosts - b.hosts
		}
		if a.rtt != b.rtt {
			return int(a.rtt - b.rtt)
		}
		return min(b.pods, 2) - min(a.pods, 2) // one state before its scale-out split
	})
	var b strings.Builder
	fmt.Fprintf(&b, "## Targets (%s)\n\n", best.scenario)
	check := func(name string, ok bool, got string) {
		mark := "met"
		if !ok {
			mark = "MISSED"
		}
		fmt.Fprintf(&b, "- %s: %s (%s)\n", name, mark, got)
	}
	for _, a := range ansibleConfigs {
		name := fmt.Sprintf("apply ≥ %.0f× faster than %s Ansible", a.target, a.name)
		if x, ok := best.speedup(a.name); ok {
			check(name, x >= a.target, fmt.Sprintf("%.1f×", x))
		} else {
			fmt.Fprintf(&b, "- %s: not measured in this run (Ansible %s did not run at %d hosts; see -ansible and -ansible-hosts)\n", name, a.name, best.hosts)
		}
		if x, ok := best.noopSpeedup(a.name); ok {
			fmt.Fprintf(&b, "- no-op plan against a second %s Ansible run (reported, no target): %.1f×\n", a.name, x)
		}
	}
	for _, s := range best.steps {
		if strings.HasPrefix(s.name, ansibleStepPrefix) {
			continue
		}
		check(fmt.Sprintf("≤ %d SSH connection per host: %s", targetConnsPerHost, s.name), s.connsMax <= targetConnsPerHost,
			fmt.Sprintf("%d", s.connsMax))
	}
	if s, ok := best.step(noopStep); ok {
		per := float64(s.commandsMax) / hostResources
		check(fmt.Sprintf("≤ %d remote commands per host per resource on a no-op plan", targetCmdsPerRes), per <= targetCmdsPerRes,
			fmt.Sprintf("%d commands for %d resources", s.commandsMax, hostResources))
	}
	for _, s := range best.steps {
		if s.rpcs == nil || strings.HasPrefix(s.name, "terraform plan") {
			continue
		}
		most := 0
		for _, m := range s.rpcs {
			most = max(most, m["Set"])
		}
		check(fmt.Sprintf("one Set per switch: %s", s.name), most == targetSetsPerSwitch || (most == 0 && s.name == repairStep),
			fmt.Sprintf("at most %d", most))
	}
	if s, ok := best.step(noopStep); ok {
		check(fmt.Sprintf("controller CPU ≤ %.0f ms per host on a no-op plan", targetNoopCPUPerHost), s.perHost() <= targetNoopCPUPerHost,
			fmt.Sprintf("%.0f ms", s.perHost()))
	}
	if p, ok1 := best.step(planStep); ok1 {
		if a, ok2 := best.step(applyStep); ok2 {
			per := p.perHost() + a.perHost()
			check(fmt.Sprintf("controller CPU ≤ %.0f ms per host on a full apply (plan and apply)", targetApplyCPUPerHost), per <= targetApplyCPUPerHost,
				fmt.Sprintf("%.0f ms", per))
		}
	}
	if s, ok := best.step(noopStep); ok && s.hosts > 0 {
		per := float64(s.twins.Microseconds()) / 1000 / float64(s.hosts)
		check(fmt.Sprintf("twins CPU ≤ %.0f ms per host on a no-op plan (a gather and its SSH session)", targetNoopTwinsPerHost),
			per <= targetNoopTwinsPerHost, fmt.Sprintf("%.0f ms", per))
	}
	if s, ok := best.step(applyStep); ok && s.stateBytes > 0 && best.hosts > 0 {
		per := float64(s.stateBytes) / 1024 / float64(best.hosts)
		check(fmt.Sprintf("state ≤ %.0f KiB per host after the apply", targetStateKiBPerHost), per <= targetStateKiBPerHost, fmt.Sprintf("%.1f KiB", per))
	}
	var rss float64
	for _, s := range best.steps {
		rss = max(rss, s.provider.peakMiB)
	}
	check(fmt.Sprintf("provider peak RSS < %.0f MB", targetRSSMiB), rss < targetRSSMiB, fmt.Sprintf("%.0f MiB", rss))
	if best.hosts >= scaleHosts {
		if s, ok := best.step(noopStep); ok {
			check(fmt.Sprintf("%d-host no-op plan under %s", scaleHosts, targetScaleNoopWall), s.wall < targetScaleNoopWall, fmt.Sprintf("%.1f s", s.wall.Seconds()))
		}
		if best.took > 0 {
			check(fmt.Sprintf("%d-host scenario whole (twins, steps%s) in ≤ %s", scaleHosts, ansibleNote(best), targetScaleScenario),
				best.took <= targetScaleScenario, best.took.Round(time.Second).String())
		}
	}
	return b.String()
}

// ansibleNote says whether a scenario's whole run includes Ansible's.
func ansibleNote(r scenarioResult) string {
	for _, s := range r.steps {
		if strings.HasPrefix(s.name, ansibleStepPrefix) {
			return ", Ansible"
		}
	}
	return ""
}

// cpuModel is the first "model name" of /proc/cpuinfo, or "unknown CPU".
func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// forkExecCost is the mean wall time of starting /bin/true and waiting for it. Twins are
// shell scripts and sshd sessions, so every figure scales with it: the same commit's 8-host
// no-op plan took 2.4 s on one 2-CPU machine and 16.8 s on another, whose fork and exec took
// about 4 ms.
func forkExecCost() time.Duration {
	const n = 50
	began := time.Now()
	for range n {
		if err := exec.Command("/bin/true").Run(); err != nil {
			return 0
		}
	}
	return time.Since(began) / n
}

// versionLine is the first line of a version command's output that starts with prefix
// (Terraform may print warnings about its CLI configuration first), or "" when none does.
func versionLine(prefix, name string, args ...string) string {
	out, _ := exec.Command(name, args...).CombinedOutput()
	for line := range strings.Lines(string(out)) {
		if strings.HasPrefix(line, prefix) {
			return strings.TrimSpace(line)
		}
	}
	return "no " + name
}

// reportPath is the file a run started at began writes its report to, under c.out.
func reportPath(c config, began time.Time) (string, error) {
	dir := c.out
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(c.root, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return filepath.Join(dir, began.UTC().Format(resultsFileTimeStamp)+".md"), nil
}

// writeReport replaces the report at path whole.
func writeReport(path, report string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(report), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
