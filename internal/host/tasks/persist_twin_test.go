package tasks

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin/hosttwintest"
)

// roceTwins starts host twins for one test, stopped when it ends, and
// returns a client per host. It fails (never skips) when twins cannot start.
func roceTwins(t *testing.T, specs ...hosttwin.HostSpec) (*hosttwin.Fleet, map[string]host.Runner) {
	t.Helper()
	fleet := hosttwintest.Start(t, hosttwin.Options{Hosts: specs})
	clients := map[string]host.Runner{}
	for _, h := range fleet.Hosts() {
		pool, err := ssh.NewPool(ssh.Config{User: h.User, PrivateKeyFile: h.PrivateKeyFile, KnownHostsFile: h.KnownHostsFile})
		if err != nil {
			t.Fatalf("ssh pool for %s: %v", h.Name, err)
		}
		t.Cleanup(func() {
			if err := pool.Close(); err != nil {
				t.Errorf("close pool: %v", err)
			}
		})
		clients[h.Name] = host.SSH(pool.Client(h.Address))
	}
	return fleet, clients
}

// roceTwinRun runs script inside host name, outside SSH, and returns its output.
func roceTwinRun(t *testing.T, f *hosttwin.Fleet, name, script string) string {
	t.Helper()
	out, err := f.Run(context.Background(), name, script)
	if err != nil {
		t.Fatalf("run on twin %s: %q: %v: %s", name, script, err, out)
	}
	return strings.TrimSpace(string(out))
}

// roceTwinPlan plans tasks and returns the summaries of the changes. A
// plan is one round trip, however many tasks and netdevs.
func roceTwinPlan(t *testing.T, c host.Runner, tasks []host.Task) []string {
	t.Helper()
	rep, err := host.Engine{Runner: c}.Plan(context.Background(), tasks)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if rep.RoundTrips != 1 {
		t.Errorf("plan took %d round trips, want 1", rep.RoundTrips)
	}
	var out []string
	for _, ch := range rep.Changes() {
		out = append(out, ch.Task+": "+ch.Summary)
	}
	return out
}

func roceReboot(t *testing.T, f *hosttwin.Fleet, name string) {
	t.Helper()
	if err := f.Reboot(context.Background(), name); err != nil {
		t.Fatalf("reboot %s: %v", name, err)
	}
}

// Apply DCQCN, host QoS and their persistence on a ConnectX-7 host; after a
// reboot the values are back without the provider doing anything.
func TestPersistenceTwinRebootRestores(t *testing.T) {
	fleet, cs := roceTwins(t, hosttwin.HostSpec{Name: "gpu", Profile: "cx7"})
	c := cs["gpu"]
	p := persistGPU()
	tasks := []host.Task{*p.DCQCN, *p.QoS, p}
	ctx := context.Background()

	start := time.Now()
	rep, err := host.Engine{Runner: c}.Apply(ctx, tasks)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	t.Logf("first apply: %d changes, %d round trips, %v", len(rep.Changes()), rep.RoundTrips, time.Since(start))
	// gather, DCQCN script, QoS script, 3 file writes (each creating its
	// missing directories), systemctl+udevadm script, verify gather.
	if rep.RoundTrips != 8 {
		t.Errorf("apply took %d round trips, want 8:\n%s", rep.RoundTrips, rep)
	}
	if n := len(rep.Changes()); n != 8+8+5 {
		t.Errorf("apply made %d changes, want 21 (8 DCQCN, 8 QoS, 5 persistence):\n%s", n, rep)
	}
	if got := roceTwinPlan(t, c, tasks); len(got) != 0 {
		t.Fatalf("second plan: %v", got)
	}
	if got := roceTwinRun(t, fleet, "gpu", "systemctl is-enabled roce-gpu.service; systemctl is-active roce-gpu.service || true"); got != "enabled\ninactive" {
		t.Errorf("unit state = %q, want enabled and not started", got)
	}

	roceReboot(t, fleet, "gpu")
	if got := roceTwinRun(t, fleet, "gpu", "systemctl is-active roce-gpu.service"); got != "active" {
		t.Errorf("after reboot the unit is %q; boot log:\n%s", got, roceTwinRun(t, fleet, "gpu", "cat /run/twin/boot.log /run/twin/journal"))
	}
	if got := roceTwinPlan(t, c, tasks); len(got) != 0 {
		t.Errorf("plan after reboot: %v", got)
	}
	if got := roceTwinRun(t, fleet, "gpu", "cat /sys/class/net/ens8f0np0/ecn/roce_rp/rpg_ai_rate"); got != "10" {
		t.Errorf("rpg_ai_rate after reboot = %q, want 10", got)
	}

	// What the udev rule does on a driver reload: only the named netdev.
	roceTwinRun(t, fleet, "gpu", "echo 5 >/sys/class/net/ens1f0np0/ecn/roce_rp/rpg_ai_rate; "+
		"echo 5 >/sys/class/net/ens2f0np0/ecn/roce_rp/rpg_ai_rate; mlnx_qos -i ens2f0np0 --pfc 0,0,0,0,0,0,0,0 >/dev/null")
	roceTwinRun(t, fleet, "gpu", p.ScriptPath()+" ens2f0np0")
	want := []string{"dcqcn: set DCQCN of ens1f0np0 through OFED sysfs: 1 of 21 values differ"}
	if got := roceTwinPlan(t, c, tasks); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after the udev run for ens2f0np0: %v, want %v", got, want)
	}
}

// Without the persistence unit a reboot resets the DCQCN values: the plan is
// not empty any more.
func TestDCQCNTwinRebootWithoutPersistence(t *testing.T) {
	fleet, cs := roceTwins(t, hosttwin.HostSpec{Name: "bare", Profile: "cx8"})
	c := cs["bare"]
	tasks := []host.Task{tunedDCQCN()}
	if _, err := (host.Engine{Runner: c}).Apply(context.Background(), tasks); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if got := roceTwinPlan(t, c, tasks); len(got) != 0 {
		t.Fatalf("second plan: %v", got)
	}
	roceReboot(t, fleet, "bare")
	got := roceTwinPlan(t, c, tasks)
	if len(got) != 8 || got[0] != "dcqcn: set DCQCN of ens1f0np0 through OFED sysfs: 1 of 21 values differ" {
		t.Errorf("plan after reboot: %v, want the 8 netdevs' rpg_ai_rate back to the firmware default", got)
	}
}

// The traffic class and RDMA-CM ToS are applied live, read back (both
// forms of traffic_class) and converge; the boot script restores them after
// a reboot.
func TestPersistenceTwinClassAndTos(t *testing.T) {
	fleet, cs := roceTwins(t, hosttwin.HostSpec{Name: "tos", Profile: "cx7"})
	c := cs["tos"]
	q := HostQoS{Netdevs: []string{"ens4f0np0"}, TrafficClass: 106, CMARoCETos: 106}
	p := Persistence{ID: "tos", QoS: &q}
	want := []string{
		"host qos ens4f0np0: set the RoCE traffic class of mlx5_3 (ens4f0np0) to 106",
		"host qos ens4f0np0: set the RDMA-CM default ToS of mlx5_3 (ens4f0np0) to 106",
	}
	if got := roceTwinPlan(t, c, []host.Task{q, p}); len(got) < 2 || strings.Join(got[:2], "\n") != strings.Join(want, "\n") {
		t.Errorf("plan = %v, want first %v", got, want)
	}
	rep, err := (host.Engine{Runner: c}).Apply(context.Background(), []host.Task{q, p})
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	// gather, the QoS script (class and ToS), 3 writes, systemctl+udevadm,
	// verify gather.
	if rep.RoundTrips != 7 {
		t.Errorf("apply took %d round trips, want 7:\n%s", rep.RoundTrips, rep)
	}
	const read = "cat /sys/class/infiniband/mlx5_3/tc/1/traffic_class; cma_roce_tos -d mlx5_3"
	if got := roceTwinRun(t, fleet, "tos", read); got != "106\n106" {
		t.Errorf("after the live apply: %q, want traffic class 106 and ToS 106", got)
	}
	if got := roceTwinRun(t, fleet, "tos", "cma_roce_tos -d mlx5_0"); got != "0" {
		t.Errorf("mlx5_0 ToS = %q, want 0: only ens4f0np0 was named", got)
	}
	// OFED reads the class back as "Global tclass=106": the same value.
	roceTwinRun(t, fleet, "tos", "echo 'Global tclass=106' >/sys/class/infiniband/mlx5_3/tc/1/traffic_class")
	if got := roceTwinPlan(t, c, []host.Task{q, p}); len(got) != 0 {
		t.Errorf("plan with \"Global tclass=106\": %v, want none", got)
	}
	roceTwinRun(t, fleet, "tos", "echo 'Global tclass=98' >/sys/class/infiniband/mlx5_3/tc/1/traffic_class")
	if got := roceTwinPlan(t, c, []host.Task{q}); len(got) != 1 || got[0] != want[0] {
		t.Errorf("plan with \"Global tclass=98\": %v, want %v", got, want[:1])
	}

	roceReboot(t, fleet, "tos")
	if got := roceTwinRun(t, fleet, "tos", read); got != "106\n106" {
		t.Errorf("after reboot: %q, want traffic class 106 and ToS 106", got)
	}
	if got := roceTwinPlan(t, c, []host.Task{q, p}); len(got) != 0 {
		t.Errorf("plan after reboot: %v", got)
	}
}

// The DCQCN path follows the host: debugfs on the inbox stack, NV config
// when lockdown blocks debugfs too, OFED sysfs under lockdown with OFED;
// VFs are refused.
func TestDCQCNTwinPaths(t *testing.T) {
	inboxLocked, _ := hostprofile.Lookup("inbox")
	inboxLocked.Name, inboxLocked.Lockdown = "inbox-lockdown", hostprofile.LockdownIntegrity
	fleet, cs := roceTwins(t,
		hosttwin.HostSpec{Name: "inbox", Profile: "inbox"},
		hosttwin.HostSpec{Name: "inboxlock", Custom: &inboxLocked},
		hosttwin.HostSpec{Name: "vf", Profile: "vf"},
		hosttwin.HostSpec{Name: "lockdown", Profile: "lockdown"},
	)
	ctx := context.Background()
	task := tunedDCQCN()
	facts := func(name string) host.Facts {
		f, err := host.Gather(ctx, cs[name], task.Needs())
		if err != nil {
			t.Fatalf("gather %s: %v", name, err)
		}
		return f
	}
	tests := []struct {
		host, want string
		reboot     bool
	}{
		{"inbox", "set DCQCN of ens1f0np0 through debugfs 0000:17:00.0: 1 of 19 values differ", false},
		{"inboxlock", "store DCQCN of ens1f0np0 in NV config (mlxconfig 0000:17:00.0): 1 of 20 values differ", true},
		{"vf", "found no ConnectX physical function with an Ethernet (RoCE) link layer (left out: ens1f0v0 (virtual function)", false},
	}
	for _, tc := range tests {
		f := facts(tc.host)
		cs, err := task.Plan(f)
		if tc.host == "vf" {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: plan err = %v\nwant %s", tc.host, err, tc.want)
			}
		} else if a := actionable(cs); err != nil || len(a) != 8 || a[0].Summary != tc.want {
			t.Errorf("%s: plan = %+v, %v\nwant 8 changes, the first %s", tc.host, plannedOf(a), err, tc.want)
		}
		if got := task.RebootRequired(f); got != tc.reboot {
			t.Errorf("%s: RebootRequired = %v, want %v", tc.host, got, tc.reboot)
		}
	}
	named := tunedDCQCN()
	named.Netdevs = []string{"ens1f0v0"}
	if _, err := named.Plan(facts("vf")); err == nil || !strings.Contains(err.Error(), "netdev ens1f0v0 (0000:17:00.1) is an SR-IOV virtual function") {
		t.Errorf("vf named: err = %v", err)
	}
	qf, err := host.Gather(ctx, cs["inbox"], losslessQoS().Needs())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := losslessQoS().Plan(qf); err == nil || !strings.Contains(err.Error(), "netdev ens1f0np0: mlnx_qos is not installed") {
		t.Errorf("QoS on inbox: err = %v", err)
	}

	// Lockdown with OFED: the ecn/ tree works.
	if _, err := (host.Engine{Runner: cs["lockdown"]}).Apply(ctx, []host.Task{task}); err != nil {
		t.Errorf("lockdown with OFED: %v", err)
	}

	// Inbox: DCQCN goes live through debugfs and converges, in one script.
	const aiRate = "cat /sys/kernel/debug/mlx5/0000:17:00.0/cc_params/rp_ai_rate"
	rep, err := (host.Engine{Runner: cs["inbox"]}).Apply(ctx, []host.Task{task})
	if err != nil {
		t.Fatalf("DCQCN on inbox: %v", err)
	}
	if rep.RoundTrips != 3 || len(rep.Changes()) != 8 {
		t.Errorf("DCQCN on inbox: %d round trips, %d changes; want 3 (gather, script, verify) and 8:\n%s", rep.RoundTrips, len(rep.Changes()), rep)
	}
	if got := roceTwinRun(t, fleet, "inbox", aiRate); got != "10" {
		t.Errorf("inbox rp_ai_rate after apply = %q, want 10", got)
	}
	if got := roceTwinPlan(t, cs["inbox"], []host.Task{task}); len(got) != 0 {
		t.Errorf("second plan on inbox: %v", got)
	}
	// The boot script writes debugfs again after a reboot.
	p := Persistence{ID: "cc", DCQCN: &task}
	if _, err := (host.Engine{Runner: cs["inbox"]}).Apply(ctx, []host.Task{p}); err != nil {
		t.Fatalf("persist on inbox: %v", err)
	}
	roceReboot(t, fleet, "inbox")
	if got := roceTwinRun(t, fleet, "inbox", aiRate); got != "10" {
		t.Errorf("inbox rp_ai_rate after reboot = %q, want 10", got)
	}
	if got := roceTwinPlan(t, cs["inbox"], []host.Task{task, p}); len(got) != 0 {
		t.Errorf("plan on inbox after reboot: %v", got)
	}

	// Inbox under lockdown: the NV configuration takes the values for the
	// next boot; the plan converges on the next-boot column, and after the
	// reboot the firmware runs with them.
	if _, err := (host.Engine{Runner: cs["inboxlock"]}).Apply(ctx, []host.Task{task}); err != nil {
		t.Fatalf("DCQCN on inbox under lockdown: %v", err)
	}
	const nvQuery = "mlxconfig -d 0000:17:00.0 -e q RPG_AI_RATE_P1 | grep RPG_AI_RATE_P1"
	if got := strings.Fields(roceTwinRun(t, fleet, "inboxlock", nvQuery)); len(got) < 4 || got[len(got)-2] != "5" || got[len(got)-1] != "10" {
		t.Errorf("NV config before reboot: %v, want current 5 and next boot 10", got)
	}
	roceReboot(t, fleet, "inboxlock")
	if got := strings.Fields(roceTwinRun(t, fleet, "inboxlock", nvQuery)); len(got) < 4 || got[len(got)-2] != "10" || got[len(got)-1] != "10" {
		t.Errorf("NV config after reboot: %v, want current and next boot 10", got)
	}
	if got := roceTwinPlan(t, cs["inboxlock"], []host.Task{task}); len(got) != 0 {
		t.Errorf("plan under lockdown after reboot: %v", got)
	}
}
