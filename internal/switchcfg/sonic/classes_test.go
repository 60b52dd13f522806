package sonic

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// storagePolicy is the test policy plus a storage class on priority 4 with ecn as its ECN.
func storagePolicy(ecn switchcfg.ECN) switchcfg.Policy {
	p := testPolicy()
	p.Lossless = []switchcfg.LosslessClass{{Name: "storage", DSCP: []int{34, 35}, Priority: 4, ECN: ecn,
		PFC: switchcfg.PFC{PauseThresholdBytes: 500_000}, Scheduler: switchcfg.Scheduler{Mode: switchcfg.SchedulerDWRR, Weight: 25}}}
	return p
}

// TestTwoClassesConvergeAndDecode: on every release a policy with a storage class applies in
// one Set, re-plans empty, passes the lossless check on both priorities, decodes back whole
// and is removed without a trace; before 202511 the class shares the stock WRED profile.
func TestTwoClassesConvergeAndDecode(t *testing.T) {
	for _, release := range []string{"202411", "202511"} {
		t.Run(release, func(t *testing.T) {
			tw, b := startTwin(t, switchtwin.Options{Release: release})
			before := tw.Snapshot()
			p := storagePolicy(testPolicy().ECN)
			if release == "202511" {
				p.Lossless[0].ECN = switchcfg.ECN{MinBytes: 200_000, MaxBytes: 400_000, MarkProbabilityPercent: 90}
			}
			o := observe(t, b)
			if _, vs := o.Check(p, 0); vs.HasErrors() {
				t.Fatalf("Check: %v", vs.Err())
			}
			snap := o.Snapshot(nil, p, nil)
			c, err := o.plan(p)
			if err != nil {
				t.Fatal(err)
			}
			apply(t, b, c)
			o = observe(t, b)
			if again, err := o.plan(p); err != nil || !again.Empty() {
				t.Fatalf("re-plan: err %v, lines %v", err, again.Lines())
			}
			if problems := o.CheckLossless(p); len(problems) != 0 {
				t.Errorf("CheckLossless: %+v", problems)
			}
			prior := switchcfg.Policy{PFC: p.PFC, Class: fabric.TrafficClass{ECNBits: p.Class.ECNBits, Trust: p.Class.Trust},
				Lossless: []switchcfg.LosslessClass{{Name: "storage", PFC: p.Lossless[0].PFC}}}
			got, err := o.Decode(p.Name, p.Ports, prior)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(p, got); diff != "" {
				t.Errorf("decoded policy (-want +got):\n%s", diff)
			}
			wantWRED := map[string]string{"202411": stockWREDProfile, "202511": "ROCE_storage"}[release]
			if q, _ := tw.Entry("QUEUE", "Ethernet8|4"); q["wred_profile"] != wantWRED || q["scheduler"] != "ROCE_storage" {
				t.Errorf("QUEUE|Ethernet8|4 = %v, want wred_profile %s and scheduler ROCE_storage", q, wantWRED)
			}
			if m, _ := tw.Entry("DSCP_TO_TC_MAP", "ROCE"); m["34"] != "4" || m["35"] != "4" || m["26"] != "3" {
				t.Errorf("DSCP_TO_TC_MAP|ROCE = %v", m)
			}
			if q, _ := tw.Entry("PORT_QOS_MAP", "Ethernet0"); q["pfc_enable"] != "3,4" || q["pfcwd_sw_enable"] != "3,4" {
				t.Errorf("PORT_QOS_MAP|Ethernet0 = %v, want PFC and its watchdog on 3,4", q)
			}
			rm, err := o.removal(p, snap)
			if err != nil {
				t.Fatal(err)
			}
			apply(t, b, rm)
			if diff := cmp.Diff(before, tw.Snapshot()); diff != "" {
				t.Errorf("switch after removal differs (-before +after):\n%s", diff)
			}
		})
	}
}

// TestTwoClassesDynamicModel: in the dynamic buffer model both lossless priorities are in the
// group buffermgrdyn sizes (APPL_DB BUFFER_PG_TABLE <port>:3-4), and the lossless check finds
// each; a port whose group lacks priority 4 is fatal for the storage class.
func TestTwoClassesDynamicModel(t *testing.T) {
	tw, b := startTwin(t, switchtwin.Options{Release: "202511", Ports: 2, BufferModel: switchtwin.BufferModelDynamic})
	p := storagePolicy(switchcfg.ECN{MinBytes: 200_000, MaxBytes: 400_000, MarkProbabilityPercent: 100})
	p.Ports = []string{"Ethernet0", "Ethernet4"}
	p.CableLengthM = 40
	c, err := observe(t, b).plan(p)
	if err != nil {
		t.Fatal(err)
	}
	apply(t, b, c)
	if got := observe(t, b).CheckLossless(p); got != nil {
		t.Fatalf("CheckLossless after apply: %+v", got)
	}
	if name := tw.ApplDB()["BUFFER_PG_TABLE"]["Ethernet4:3-4"]["profile"]; name != "pg_lossless_400000_40m_profile" {
		t.Errorf("APPL_DB BUFFER_PG_TABLE Ethernet4:3-4 profile = %q", name)
	}
	// The operator narrows Ethernet4's lossless group to 3: priority 4 has none.
	tw.DeleteEntry("BUFFER_PG", "Ethernet4|3-4")
	tw.SetEntry("BUFFER_PG", "Ethernet4|3", map[string]string{"profile": "NULL"})
	got := observe(t, b).CheckLossless(p)
	if len(got) != 1 || !got[0].Fatal || !strings.Contains(got[0].Detail, "Ethernet4 has no lossless priority group for priority 4") {
		t.Errorf("CheckLossless after narrowing = %+v, want one fatal problem for priority 4 on Ethernet4", got)
	}
}

// TestClassECNNeedsOwnProfile: before 202511 a class's ECN must be the default class's (one
// stock profile serves both queues); from 202511 it may differ.
func TestClassECNNeedsOwnProfile(t *testing.T) {
	own := switchcfg.ECN{MinBytes: 200_000, MaxBytes: 400_000, MarkProbabilityPercent: 100}
	for _, tc := range []struct {
		release string
		want    string
	}{
		{"202411", "error: Lossless[0].Thresholds.ECNMinBytes: Per-Class ECN Needs SONiC 202511"},
		{"202511", ""},
	} {
		t.Run(tc.release, func(t *testing.T) {
			_, b := startTwin(t, switchtwin.Options{Release: tc.release})
			_, vs := observe(t, b).Check(storagePolicy(own), 0)
			var lines []string
			for _, v := range vs.Errors() {
				lines = append(lines, v.Line(violation.GoNames))
			}
			got := strings.Join(lines, "\n")
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("errors %q, want %q", got, tc.want)
			}
		})
	}
}

// TestClassPriorityNotLosslessOnPort: a class whose priority the port's pfc_enable lacks is
// refused on the class's priority (buffermgrd would leave overlapping groups).
func TestClassPriorityNotLosslessOnPort(t *testing.T) {
	f := Facts{PFCEnable: map[string]string{"Ethernet0": "3"}}
	vs := f.CheckPFCEnable(storagePolicy(testPolicy().ECN))
	if len(vs) != 1 || !vs[0].At.Equal(fabric.In(0, fabric.FieldClassPriority)) {
		t.Fatalf("CheckPFCEnable = %v", vs)
	}
	if got := f.losslessValue("Ethernet4", []int{3, 4}); got != "3,4" {
		t.Errorf("losslessValue on a port without a list = %q, want 3,4", got)
	}
}

// TestAddingAndDroppingAClass: an update that adds a storage class and one that drops it
// again leave the switch as the one-class policy had it, and the removal as it was before.
func TestAddingAndDroppingAClass(t *testing.T) {
	tw, b := startTwin(t, switchtwin.Options{Release: "202511"})
	before := tw.Snapshot()
	one := testPolicy()
	o := observe(t, b)
	snap := o.Snapshot(nil, one, nil)
	c, _ := o.plan(one)
	apply(t, b, c)
	withOne := tw.Snapshot()

	two := storagePolicy(switchcfg.ECN{MinBytes: 200_000, MaxBytes: 400_000, MarkProbabilityPercent: 100})
	for _, step := range []struct{ from, to switchcfg.Policy }{{one, two}, {two, one}} {
		o = observe(t, b)
		snap = o.Snapshot(&step.from, step.to, snap)
		c, err := o.planUpdate(&step.from, step.to, snap)
		if err != nil {
			t.Fatal(err)
		}
		apply(t, b, c)
	}
	after := tw.Snapshot()
	for _, table := range []string{"SCHEDULER", "WRED_PROFILE", "QUEUE", "DSCP_TO_TC_MAP", "TC_TO_PRIORITY_GROUP_MAP", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "PORT_QOS_MAP"} {
		if diff := cmp.Diff(withOne[table], after[table]); diff != "" {
			t.Errorf("%s after adding and dropping the class (-one class +after):\n%s", table, diff)
		}
	}
	rm, err := observe(t, b).removal(one, snap)
	if err != nil {
		t.Fatal(err)
	}
	apply(t, b, rm)
	if diff := cmp.Diff(before, tw.Snapshot()); diff != "" {
		t.Errorf("switch after removal differs (-before +after):\n%s", diff)
	}
}

// TestTwoClassesDriftReadsBack: with two classes, a default queue whose scheduler was changed
// out of band decodes as drift (priority -1), which a re-plan puts back, not as a read error.
func TestTwoClassesDriftReadsBack(t *testing.T) {
	tw, b := startTwin(t, switchtwin.Options{Release: "202511"})
	p := storagePolicy(switchcfg.ECN{MinBytes: 200_000, MaxBytes: 400_000, MarkProbabilityPercent: 100})
	c, _ := observe(t, b).plan(p)
	apply(t, b, c)
	q, _ := tw.Entry("QUEUE", "Ethernet0|3")
	q["scheduler"] = "scheduler.1"
	tw.SetEntry("QUEUE", "Ethernet0|3", q)
	o := observe(t, b)
	got, err := o.Decode(p.Name, p.Ports, p)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if got.Class.Priority != -1 || len(got.Lossless) != 1 || got.Lossless[0].Priority != 4 {
		t.Errorf("decoded default priority %d, classes %+v; want -1 and storage on 4", got.Class.Priority, got.Lossless)
	}
	again, err := o.plan(p)
	if err != nil || !slices.Contains(again.Lines(), "update CONFIG_DB/QUEUE/Ethernet0|3/scheduler = ROCE_RDMA") {
		t.Errorf("re-plan: err %v, lines %v", err, again.Lines())
	}
}
