// Command bench measures the provider against twins of a RoCE fabric and against an
// equivalent Ansible playbook on the same twins, and prints one table (`make bench`).
//
// For every host count and round-trip time asked for, it starts S SONiC switch twins and N
// ConnectX host twins, each host in a network namespace of its own behind a relay that adds
// the RTT (hosttwin Options.Network, RTT), and measures through the real Terraform CLI:
//
//	apply     terraform apply from empty state (OFED pin, GPUDirect, DCQCN, NCCL profile,
//	          switch QoS: examples/demo)
//	no-op     terraform plan with nothing to change
//	repair    terraform apply after drift was made on every host
//
// counting SSH connections and remote commands per host (the twins' sshd logs), gNMI RPCs per
// switch (the twins' counters) and the provider's peak RSS (each provider process runs under
// this binary, which records its maximum resident set). Then it starts fresh hosts and runs
// bench/ansible/site.yml on them, once with Ansible's defaults and once tuned, and checks that
// both tools leave a host with the same files.
//
//	bench [-hosts 8,32,64] [-rtt 0,2ms] [-switches 2] [-ports 32] [-ansible default,tuned]
//	      [-pods 1,4] [-out bench/results] [-pprof DIR]
//
// -pods 4 also runs each host count split into four Terraform states of a quarter of the
// hosts and switches each, applied side by side: the scale-out layout
// (examples/scale-out), against one state of the whole fabric.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if args := os.Getenv(envHandshake); args != "" {
		os.Exit(handshakeChild(args))
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type config struct {
	root     string // the repository
	hosts    []int
	rtts     []time.Duration
	switches int
	ports    int
	ansible  []string // Ansible configurations to run: default, tuned
	// ansibleHosts are the host counts at which Ansible runs (all when empty): at 64 hosts on
	// 2 cores, Ansible alone takes longer than every Terraform scenario together.
	ansibleHosts []int
	idempotency  bool // run the playbook a second time and require no change
	out          string
	terraform    string
	provider     string
	work         string
	keep         bool
	// parallelism holds Terraform's -parallelism per run of a host count: 0 for its default,
	// -1 for the host count.
	parallelism []int
	// pods holds the number of Terraform states per run of a host count (scenario.pods), at
	// the counts of podsHosts (all when empty); one state runs at every count.
	pods      []int
	podsHosts []int
	pprof     string // where the provider processes write CPU and heap profiles (empty: none)
}

func run() error {
	var c config
	var hosts, rtts, ansible, ansibleHosts, parallelism, pods, podsHosts string
	flag.StringVar(&hosts, "hosts", "8,32,64", "host counts, comma-separated")
	flag.StringVar(&rtts, "rtt", "0,2ms", "round-trip times between Terraform/Ansible and the hosts, comma-separated")
	flag.StringVar(&parallelism, "parallelism", "", "Terraform -parallelism values to run each host count with, comma-separated: numbers, or hosts for the host count (default: Terraform's, 10)")
	flag.StringVar(&pods, "pods", "1", "Terraform states to split each host count into (the scale-out layout, applied side by side), comma-separated: 1 is one state")
	flag.StringVar(&podsHosts, "pods-hosts", "", "host counts at which to run the -pods splits, comma-separated (default: every count of -hosts)")
	flag.IntVar(&c.switches, "switches", 2, "switch twins")
	flag.IntVar(&c.ports, "ports", 32, "RoCE ports per switch")
	flag.StringVar(&ansible, "ansible", "default,tuned", "Ansible configurations to compare with (default, tuned, mitogen), comma-separated; empty for none")
	flag.StringVar(&ansibleHosts, "ansible-hosts", "", "host counts at which to run Ansible, comma-separated (default: every count of -hosts)")
	flag.BoolVar(&c.idempotency, "idempotency", true, "run the playbook a second time on the same hosts and check that it changes nothing")
	flag.StringVar(&c.out, "out", "bench/results", "directory for the results table")
	flag.StringVar(&c.root, "root", ".", "the repository root")
	flag.BoolVar(&c.keep, "keep", false, "keep the work directory (workspaces, logs)")
	flag.StringVar(&c.pprof, "pprof", "", "directory for CPU and heap profiles of the provider processes, one folder per scenario and step (go tool pprof)")
	flag.Parse()
	var err error
	if c.hosts, err = parseInts(hosts); err != nil {
		return fmt.Errorf("-hosts: %w", err)
	}
	if c.rtts, err = parseDurations(rtts); err != nil {
		return fmt.Errorf("-rtt: %w", err)
	}
	if c.parallelism, err = parseParallelism(parallelism); err != nil {
		return fmt.Errorf("-parallelism: %w", err)
	}
	if c.pods, err = parseInts(pods); err != nil {
		return fmt.Errorf("-pods: %w", err)
	}
	if podsHosts != "" {
		if c.podsHosts, err = parseInts(podsHosts); err != nil {
			return fmt.Errorf("-pods-hosts: %w", err)
		}
		for _, n := range c.podsHosts {
			if !slices.Contains(c.hosts, n) {
				return fmt.Errorf("-pods-hosts %d: not one of -hosts %s; add it there or drop it here", n, hosts)
			}
		}
	}
	for _, p := range c.pods {
		for _, n := range c.hosts {
			if p == 1 || !c.splitAt(n) {
				continue
			}
			if n%p != 0 || c.switches < p {
				return fmt.Errorf("-pods %d: %d hosts and %d switches do not split into %d pods with a share of each", p, n, c.switches, p)
			}
		}
	}
	if ansibleHosts != "" {
		if c.ansibleHosts, err = parseInts(ansibleHosts); err != nil {
			return fmt.Errorf("-ansible-hosts: %w", err)
		}
	}
	for _, a := range strings.Split(ansible, ",") {
		switch a = strings.TrimSpace(a); a {
		case "":
		case ansibleDefault, ansibleTuned, ansibleMitogen:
			c.ansible = append(c.ansible, a)
		default:
			return fmt.Errorf("-ansible %q: want default, tuned and/or mitogen", a)
		}
	}
	if c.root, err = filepath.Abs(c.root); err != nil {
		return err
	}
	if c.pprof != "" {
		if c.pprof, err = filepath.Abs(c.pprof); err != nil {
			return err
		}
	}
	c.terraform = filepath.Join(c.root, "bin", "terraform")
	c.provider = filepath.Join(c.root, "bin", providerBinary)
	for _, f := range []string{c.terraform, c.provider} {
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("%s is missing: run make bench, which builds it", f)
		}
	}
	if len(c.ansible) > 0 {
		if _, err := lookPath("ansible-playbook"); err != nil {
			return errors.New("ansible-playbook is missing: make bench installs it (Debian package ansible-core)")
		}
	}
	if c.work, err = os.MkdirTemp("", "roce-bench-"); err != nil {
		return err
	}
	if !c.keep {
		defer os.RemoveAll(c.work)
	} else {
		fmt.Println("work directory:", c.work)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	began := time.Now()
	path, err := reportPath(c, began)
	if err != nil {
		return err
	}
	planned := 0
	for _, n := range c.hosts {
		planned += len(c.rtts) * len(c.scenarios(n, 0))
	}
	var results []scenarioResult
	for _, n := range c.hosts {
		for _, rtt := range c.rtts {
			for _, sc := range c.scenarios(n, rtt) {
				began := time.Now()
				r, err := runScenario(ctx, c, sc)
				r.took = time.Since(began)
				if err != nil {
					return fmt.Errorf("%s: %w", sc, err)
				}
				results = append(results, r)
				fmt.Println(renderTable(results[len(results)-1:]))
				if len(results) < planned {
					// A long run stopped later still leaves the scenarios it finished.
					if err := writeReport(path, renderReport(c, results, time.Since(began), planned)); err != nil {
						return err
					}
				}
			}
		}
	}
	report := renderReport(c, results, time.Since(began), planned)
	fmt.Println(report)
	if err := writeReport(path, report); err != nil {
		return err
	}
	fmt.Println("results written to", path)
	return nil
}

// scenarios are the runs of n hosts at rtt: every -parallelism for every -pods.
func (c config) scenarios(n int, rtt time.Duration) []scenario {
	var out []scenario
	for _, pods := range c.pods {
		if pods > 1 && !c.splitAt(n) {
			continue
		}
		for _, p := range c.parallelism {
			if p == parallelismHosts {
				p = n
			}
			out = append(out, scenario{hosts: n, rtt: rtt, parallelism: p, pods: pods})
		}
	}
	return out
}

// splitAt reports whether the -pods splits run at n hosts.
func (c config) splitAt(n int) bool {
	return len(c.podsHosts) == 0 || slices.Contains(c.podsHosts, n)
}

// ansibleFor returns the Ansible configurations to run at n hosts.
func (c config) ansibleFor(n int) []string {
	if len(c.ansibleHosts) == 0 || slices.Contains(c.ansibleHosts, n) {
		return c.ansible
	}
	return nil
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive number", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// parallelismHosts in config.parallelism stands for the scenario's host count.
const parallelismHosts = -1

// parseParallelism reads -parallelism: "" is Terraform's default alone.
func parseParallelism(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return []int{0}, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "hosts" {
			out = append(out, parallelismHosts)
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is neither a positive number nor hosts", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func parseDurations(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "0" {
			out = append(out, 0)
			continue
		}
		d, err := time.ParseDuration(f)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("%q is not a duration such as 2ms", f)
		}
		out = append(out, d)
	}
	return out, nil
}
