package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/twinvars"
)

type scenario struct {
	hosts int
	rtt   time.Duration
	// parallelism is Terraform's -parallelism (0: its default, 10).
	parallelism int
	// pods splits the hosts and switches into that many Terraform states (the scale-out
	// layout), applied side by side; 0 or 1 is one state.
	pods int
}

// defaultParallelism is Terraform's when -parallelism is not given.
const defaultParallelism = 10

func (s scenario) String() string {
	out := s.hostsText() + " hosts, RTT " + s.rtt.String()
	if s.parallelism != 0 {
		out += fmt.Sprintf(", -parallelism=%d", s.parallelism)
	}
	return out
}

// hostsText is the host count, with the states it is split into: "256 (4 × 64)".
func (s scenario) hostsText() string {
	if s.pods > 1 {
		return fmt.Sprintf("%d (%d × %d)", s.hosts, s.pods, s.hosts/s.pods)
	}
	return fmt.Sprint(s.hosts)
}

// label names the scenario's folders.
func (s scenario) label() string {
	out := fmt.Sprintf("%dh-%s", s.hosts, s.rtt)
	if s.parallelism != 0 {
		out += fmt.Sprintf("-p%d", s.parallelism)
	}
	if s.pods > 1 {
		out += fmt.Sprintf("-pods%d", s.pods)
	}
	return out
}

// step is one measured command.
type step struct {
	name        string
	wall        time.Duration
	connsMax    int // SSH connections of the busiest host
	connsMin    int
	commandsMax int // remote commands of the busiest host
	commandsMin int
	rpcs        []map[string]int // gNMI RPCs per switch (nil for Ansible)
	provider    providerUsage    // the provider processes the step started (none for Ansible)
	lowerBound  time.Duration    // network lower bound (bounds.go)
	stateBytes  int64            // terraform.tfstate after the step (0 for Ansible)
	controller  time.Duration    // CPU of the command and what it waited for (cpu.go)
	twins       time.Duration    // the rest of the machine's busy time: the twins
	hosts       int
}

type scenarioResult struct {
	scenario
	steps []step
	// equivalent says whether Ansible and Terraform left the same files on a host, per
	// Ansible configuration; diff holds compare.sh's output when they did not.
	equivalent map[string]bool
	diff       map[string]string
	// idempotent: a second run of the playbook changed nothing (per configuration).
	idempotent map[string]bool
	// handshake is the cost of an SSH connection to one of the scenario's hosts.
	handshake handshake
	// took is the scenario's whole run: starting its twins, every step, stopping them.
	took time.Duration
}

// Resources the demo manages on every host (bootstrap, DCQCN, NCCL profile).
const hostResources = 3

// driftScript changes on a host what an operator or a reboot without persistence might: a
// DCQCN knob on every port and a line of the NCCL file.
const driftScript = `for f in /sys/class/net/*/ecn/roce_np/enable/3; do echo 0 >"$f"; done
echo NCCL_DEBUG=TRACE >>/etc/nccl.conf`

func runScenario(ctx context.Context, c config, sc scenario) (res scenarioResult, err error) {
	res = scenarioResult{scenario: sc, equivalent: map[string]bool{}, diff: map[string]string{}, idempotent: map[string]bool{}}
	dir := filepath.Join(c.work, sc.label())
	fmt.Printf("==> %s: starting %d switch twins and %d host twins\n", sc, c.switches, sc.hosts)
	fab, err := startSwitches(c, dir)
	if err != nil {
		return res, err
	}
	defer func() {
		if stopErr := fab.stop(ctx); err == nil {
			err = stopErr
		}
	}()
	fleet, err := startHosts(ctx, hostStateDir(dir, 0), sc.hosts, sc.rtt)
	if err != nil {
		return res, err
	}
	if err := fab.useHosts(ctx, fleet); err != nil {
		return res, err
	}
	var profiles string
	if c.pprof != "" {
		profiles = filepath.Join(c.pprof, sc.label())
	}
	wss, err := podWorkspaces(ctx, c, dir, profiles, fab.ep, sc.pods)
	if err != nil {
		return res, err
	}
	each := func(fn func(*workspace) error) error { return sideBySide(wss, fn) }
	var parallelism []string
	if sc.parallelism > 0 {
		parallelism = []string{fmt.Sprintf("-parallelism=%d", sc.parallelism)}
	}
	terraform := func(name string, args ...string) func() error {
		// Options before the plan file, which must come last.
		args = append(append([]string{args[0], "-input=false", "-no-color"}, parallelism...), args[1:]...)
		return func() error {
			return each(func(w *workspace) error {
				_, err := w.run(ctx, name, []int{0}, args...)
				return err
			})
		}
	}
	plan := func(name string) func() error {
		args := append([]string{"plan", "-detailed-exitcode", "-input=false", "-no-color"}, parallelism...)
		return func() error {
			return each(func(w *workspace) error {
				code, err := w.run(ctx, name, []int{0, 2}, args...)
				if err == nil && code == 2 {
					err = fmt.Errorf("plan after apply has changes; see %s", filepath.Join(w.logs, name+".log"))
				}
				return err
			})
		}
	}
	usage := make([]string, len(wss))
	for i, w := range wss {
		usage[i] = w.usage
	}

	steps := []struct {
		name   string
		before func() error
		run    func() error
		bound  func(time.Duration) time.Duration
	}{
		{planStep, nil, terraform("plan", "plan", "-out=tfplan"), planBound},
		{applyStep, nil, terraform("apply", "apply", "tfplan"), applyBound},
		{noopStep, nil, plan("noop"), planBound},
		{repairStep, func() error { return onEveryHost(ctx, fab.hosts, driftScript) }, terraform("repair", "apply", "-auto-approve"), applyBound},
	}
	for _, s := range steps {
		fmt.Printf("    %s  %s\n", time.Now().UTC().Format("15:04:05"), s.name)
		if s.before != nil {
			if err := s.before(); err != nil {
				return res, err
			}
		}
		st, err := measure(s.name, fab.hosts, fab.switches, usage, s.run)
		if err != nil {
			return res, err
		}
		st.lowerBound = s.bound(sc.rtt)
		for _, w := range wss {
			if fi, err := os.Stat(filepath.Join(w.dir, "terraform.tfstate")); err == nil {
				st.stateBytes += fi.Size()
			}
		}
		res.steps = append(res.steps, st)
		// The step's row now, so that a run stopped later still shows it.
		rows := strings.Split(strings.TrimSpace(renderTable([]scenarioResult{{scenario: sc, steps: []step{st}}})), "\n")
		fmt.Println("    " + rows[len(rows)-1])
	}
	if err := plan("after-repair")(); err != nil {
		return res, err
	}
	fmt.Printf("    %s  %d SSH handshakes\n", time.Now().UTC().Format("15:04:05"), handshakeRounds)
	if res.handshake, err = measureHandshake(ctx, fab.hosts, sc.rtt); err != nil {
		return res, err
	}
	fmt.Println("    " + res.handshake.render(0))

	// Ansible on fresh hosts, one fleet per configuration; the Terraform fleet stays up so
	// that its first host can be compared with Ansible's.
	tfFleet := fab.hosts
	fab.hosts = nil
	defer func() {
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		defer cancel()
		_ = tfFleet.Stop(stopCtx)
	}()
	var modes []string
	if sc.pods <= 1 { // Ansible runs once per host count, beside its one-state scenario
		modes = c.ansibleFor(sc.hosts)
	}
	for i, mode := range modes {
		fmt.Printf("    %s  ansible-playbook (%s)\n", time.Now().UTC().Format("15:04:05"), mode)
		fleet, err := startHosts(ctx, hostStateDir(dir, i+1), sc.hosts, sc.rtt)
		if err != nil {
			return res, err
		}
		a := ansibleRun{root: c.root, dir: filepath.Join(dir, "ansible-"+mode), mode: mode, fleet: fleet, ofed: twinOFEDVars()}
		st, err := measure(ansibleStep(mode), fleet, nil, nil, func() error { return a.run(ctx, "converge") })
		if err == nil {
			st.lowerBound = applyBound(sc.rtt)
			res.steps = append(res.steps, st)
			if c.idempotency {
				var second step
				second, err = measure(ansibleSecondStep(mode), fleet, nil, nil, func() error {
					var e error
					res.idempotent[mode], e = a.unchanged(ctx)
					return e
				})
				res.steps = append(res.steps, second)
			}
		}
		if err == nil {
			res.equivalent[mode], res.diff[mode], err = compareHosts(ctx, c.root, tfFleet, fleet)
		}
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
		stopErr := fleet.Stop(stopCtx)
		cancel()
		if err != nil {
			return res, fmt.Errorf("ansible (%s): %w", mode, err)
		}
		if stopErr != nil {
			return res, stopErr
		}
	}
	return res, nil
}

// measure runs fn and reports its wall time and what the twins counted meanwhile; usage are
// the provider usage folders of the workspaces fn runs Terraform in.
func measure(name string, fleet *hosttwin.Fleet, switches []*switchtwin.Twin, usage []string, fn func() error) (step, error) {
	st := step{name: name}
	f := &fabric{hosts: fleet, switches: switches}
	before, err := f.counters()
	if err != nil {
		return st, err
	}
	for _, dir := range usage {
		if err := emptyDir(dir); err != nil {
			return st, err
		}
	}
	cpu0, err := sampleCPU()
	if err != nil {
		return st, err
	}
	began := time.Now()
	if err := fn(); err != nil {
		return st, err
	}
	st.wall = time.Since(began)
	cpu1, err := sampleCPU()
	if err != nil {
		return st, err
	}
	st.controller, st.twins = split(cpu0, cpu1)
	st.hosts = len(fleet.Hosts())
	after, err := f.counters()
	if err != nil {
		return st, err
	}
	var conns, cmds []int
	for h := range after.conns {
		conns = append(conns, after.conns[h]-before.conns[h])
		cmds = append(cmds, after.commands[h]-before.commands[h])
	}
	st.connsMin, st.connsMax = slices.Min(conns), slices.Max(conns)
	st.commandsMin, st.commandsMax = slices.Min(cmds), slices.Max(cmds)
	for i := range after.rpcs {
		d := map[string]int{}
		for m, n := range after.rpcs[i] {
			if n -= before.rpcs[i][m]; n > 0 {
				d[m] = n
			}
		}
		st.rpcs = append(st.rpcs, d)
	}
	st.provider = readProviderUsage(usage...)
	return st, nil
}

// onEveryHost runs script on every host of fleet, side by side.
func onEveryHost(ctx context.Context, fleet *hosttwin.Fleet, script string) error {
	return sideBySide(fleet.Hosts(), func(h hosttwin.Host) error {
		_, err := fleet.Run(ctx, h.Name, script)
		return err
	})
}

// sideBySide runs fn on every item at once and returns their errors joined.
func sideBySide[T any](items []T, fn func(T) error) error {
	errs := make([]error, len(items))
	var wg sync.WaitGroup
	for i, it := range items {
		wg.Go(func() { errs[i] = fn(it) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// podWorkspaces are the scenario's Terraform workspaces: one for the whole fabric, or, for
// pods > 1, one per pod, each with its share of the hosts and switches in its own state (the
// scale-out layout). Each has its variables written and its modules installed.
func podWorkspaces(ctx context.Context, c config, dir, profiles string, ep twinvars.Endpoints, pods int) ([]*workspace, error) {
	pods = max(pods, 1)
	var out []*workspace
	for i := range pods {
		name, prof := "terraform", profiles
		part := ep
		if pods > 1 {
			name = fmt.Sprintf("terraform-pod%d", i+1)
			if prof != "" {
				prof = filepath.Join(profiles, name)
			}
			part.Hosts = ep.Hosts[i*len(ep.Hosts)/pods : (i+1)*len(ep.Hosts)/pods]
			part.Switches = ep.Switches[i*len(ep.Switches)/pods : (i+1)*len(ep.Switches)/pods]
		}
		w, err := newWorkspace(c, filepath.Join(dir, name), prof)
		if err != nil {
			return nil, err
		}
		v, err := twinvars.New(part)
		if err == nil {
			err = twinvars.Write(filepath.Join(w.dir, "terraform.tfvars.json"), v)
		}
		if err != nil {
			return nil, err
		}
		if _, err := w.run(ctx, "get", []int{0}, "get", "-no-color"); err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}
