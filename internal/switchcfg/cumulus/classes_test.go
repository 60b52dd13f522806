package cumulus

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg/switchcfgtest"
)

// storageClass is a second lossless class on priority 4, SONiC's stock second lossless one.
func storageClass() switchcfg.LosslessClass {
	return switchcfg.LosslessClass{Name: "storage", DSCP: []int{34, 35}, Priority: 4,
		ECN: switchcfg.ECN{MinBytes: 200000, MaxBytes: 400000, MarkProbabilityPercent: 50},
		PFC: switchcfg.PFC{PauseThresholdBytes: 500000}, Scheduler: switchcfg.Scheduler{Mode: switchcfg.SchedulerDWRR, Weight: 25}}
}

func classPolicy() switchcfg.Policy {
	p := cumulusPolicy()
	p.Lossless = []switchcfg.LosslessClass{storageClass()}
	return p
}

func applyChanges(t *testing.T, b *Backend, c switchcfg.Changes) {
	t.Helper()
	if _, err := b.Apply(context.Background(), c); err != nil {
		t.Fatalf("apply: %v\nlines:\n%s", err, strings.Join(c.Lines(), "\n"))
	}
}

// TestNVUELosslessClassesApplyDecodeAndRestore: a storage class beside the default one lands
// in every profile, on the twin's validator (which refuses what NVUE's schema and its
// cross-object rules refuse); the second plan is empty, the decode gives the policy back, the
// lossless check passes, and the removal leaves the switch as it was.
func TestNVUELosslessClassesApplyDecodeAndRestore(t *testing.T) {
	for _, rel := range []string{"5.9", "5.14"} {
		t.Run(rel, func(t *testing.T) {
			tw, b := startNVUETwin(t, rel)
			before := tw.Applied()
			p := classPolicy()
			if fs := p.Validate(fabric.DefaultRatioWindow(), Driver{}); fs.HasErrors() {
				t.Fatal(fs)
			}
			o := nvueObserve(t, b)
			if _, fs := o.Check(p, 0); fs.HasErrors() {
				t.Fatal(fs)
			}
			snap := o.Snapshot(nil, p, nil)
			c, _ := o.PlanUpdate(nil, p, snap)
			applyChanges(t, b, c)
			a := tw.Applied()
			for _, w := range []struct {
				path string
				want any
			}{
				{"qos/pfc/ROCE/switch-priority/3", map[string]any{}},
				{"qos/pfc/ROCE/switch-priority/4", map[string]any{}},
				{"qos/mapping/ROCE/dscp/26/switch-priority", 3.0},
				{"qos/mapping/ROCE/dscp/34/switch-priority", 4.0},
				{"qos/mapping/ROCE/dscp/35/switch-priority", 4.0},
				{"qos/mapping/ROCE/dscp/36/switch-priority", 0.0},
				{"qos/egress-queue-mapping/default-global/switch-priority/4/traffic-class", 4.0},
				{"qos/egress-scheduler/ROCE/traffic-class/4/mode", "dwrr"},
				{"qos/egress-scheduler/ROCE/traffic-class/4/bw-percent", 25.0},
				{"qos/egress-scheduler/ROCE/traffic-class/3/bw-percent", 50.0},
				{"qos/egress-scheduler/ROCE/traffic-class/0/bw-percent", 25.0},
				{"qos/congestion-control/ROCE/traffic-class/4/min-threshold", 200000.0},
				{"qos/congestion-control/ROCE/traffic-class/4/max-threshold", 400000.0},
				{"qos/congestion-control/ROCE/traffic-class/4/probability", 50.0},
				{"qos/congestion-control/ROCE/traffic-class/4/ecn", "enable"},
				{"qos/traffic-pool/default-lossless/memory-percent", 50.0},
			} {
				got, _ := nvue.Lookup(a, strings.Split(w.path, "/")...)
				if !reflect.DeepEqual(got, w.want) {
					t.Errorf("%s = %#v, want %#v", w.path, got, w.want)
				}
			}
			if pool := nvue.Object(a, "qos", "traffic-pool", "default-lossless"); pool["switch-priority"] != nil {
				t.Errorf("the lossless pool lists switch priorities: %v", pool)
			}
			o = nvueObserve(t, b)
			if again, _ := o.PlanUpdate(nil, p, snap); !again.Empty() {
				t.Errorf("second plan not empty:\n%s", strings.Join(again.Lines(), "\n"))
			}
			got, err := o.Decode(p.Name, p.Ports, p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(p, got); diff != "" {
				t.Errorf("decode (-want +got):\n%s", diff)
			}
			if problems := o.CheckLossless(p); problems != nil {
				t.Errorf("lossless: %+v", problems)
			}
			rm, _ := o.Removal(p, snap)
			applyChanges(t, b, rm)
			wantJSON, _ := json.Marshal(before)
			gotJSON, _ := json.Marshal(tw.Applied())
			if string(wantJSON) != string(gotJSON) {
				t.Errorf("removal left the switch different:\n%s", cmp.Diff(before, tw.Applied()))
			}
		})
	}
}

// TestNVUELosslessClassesImportAndDrift: an import (prior without classes) names the class
// after its priority; a class prior has and the switch lacks is left out; a change of one
// class's ECN is one line; dropping the class removes its objects and restores the rest.
func TestNVUELosslessClassesImportAndDrift(t *testing.T) {
	tw, b := startNVUETwin(t, "5.12")
	p := classPolicy()
	o := nvueObserve(t, b)
	snap := o.Snapshot(nil, p, nil)
	c, _ := o.PlanUpdate(nil, p, snap)
	applyChanges(t, b, c)
	o = nvueObserve(t, b)

	bare := cumulusPolicy()
	got, err := o.Decode(p.Name, p.Ports, bare)
	if err != nil {
		t.Fatal(err)
	}
	want := storageClass()
	want.Name, want.PFC = "class4", switchcfg.PFC{}
	if diff := cmp.Diff([]switchcfg.LosslessClass{want}, got.Lossless); diff != "" {
		t.Errorf("imported classes (-want +got):\n%s", diff)
	}
	if got.Class.Priority != 3 || !reflect.DeepEqual(got.Class.DSCP, []int{26}) {
		t.Errorf("imported default class %+v", got.Class)
	}

	next := classPolicy()
	next.Lossless[0].ECN.MinBytes = 190000
	one, _ := o.PlanUpdate(&p, next, snap)
	if diff := cmp.Diff([]string{"set qos/congestion-control/ROCE/traffic-class/4/min-threshold = 190000"}, one.Lines()); diff != "" {
		t.Errorf("one class's ECN change (-want +got):\n%s", diff)
	}

	// Out of band, priority 4 leaves the PFC profile: the class is drift, the lossless check
	// names the priority, and the plan puts it back.
	tw.SetApplied("qos/pfc/ROCE/switch-priority/4", nil)
	o = nvueObserve(t, b)
	if got, _ := o.Decode(p.Name, p.Ports, p); len(got.Lossless) != 0 {
		t.Errorf("decode with priority 4 gone from the PFC profile: %+v", got.Lossless)
	}
	problems := o.CheckLossless(p)
	if len(problems) != 2 || !problems[0].Fatal || !strings.Contains(problems[0].Detail, "switch priority 4 (bound: \"ROCE\")") {
		t.Errorf("lossless with priority 4 gone: %+v", problems)
	}
	fix, _ := o.PlanUpdate(&p, p, snap)
	if diff := cmp.Diff([]string{"set qos/pfc/ROCE/switch-priority/4"}, fix.Lines()); diff != "" {
		t.Errorf("drift repair (-want +got):\n%s", diff)
	}
	applyChanges(t, b, fix)

	// Dropping the class: its objects go, the default class's stay.
	o = nvueObserve(t, b)
	one, _ = o.PlanUpdate(&p, cumulusPolicy(), snap)
	applyChanges(t, b, one)
	a := tw.Applied()
	for _, path := range []string{"qos/pfc/ROCE/switch-priority/4", "qos/congestion-control/ROCE/traffic-class/4", "qos/egress-scheduler/ROCE/traffic-class/4"} {
		if _, ok := nvue.Lookup(a, strings.Split(path, "/")...); ok {
			t.Errorf("%s is left after the class was dropped", path)
		}
	}
	if v, _ := nvue.Lookup(a, "qos", "mapping", "ROCE", "dscp", "34", "switch-priority"); v != 0.0 {
		t.Errorf("DSCP 34 maps to %v after the class was dropped, want 0", v)
	}
	if again, _ := nvueObserve(t, b).PlanUpdate(nil, cumulusPolicy(), snap); !again.Empty() {
		t.Errorf("plan after dropping the class not empty:\n%s", strings.Join(again.Lines(), "\n"))
	}
}

// TestNVUELosslessClassesRefusedInRoCEMode: RoCE lossless mode buffers one priority, so a
// class beside it is refused at plan, naming the attribute and the fix.
func TestNVUELosslessClassesRefusedInRoCEMode(t *testing.T) {
	tw, b := startNVUETwin(t, "5.14")
	if err := tw.RoCE("lossless"); err != nil {
		t.Fatal(err)
	}
	_, fs := nvueObserve(t, b).Check(classPolicy(), 0)
	text := switchcfgtest.ViolationText(fs)
	for _, want := range []string{
		"error: Lossless: Lossless Classes Beside Cumulus RoCE Mode",
		"Lossless lists 1 lossless class (storage on priority 4)",
		"nv unset qos roce; nv config apply",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("findings lack %q:\n%s", want, text)
		}
	}
	if _, fs := nvueObserve(t, b).Check(cumulusPolicy(), 0); fs.HasErrors() {
		t.Errorf("one class in RoCE lossless mode refused: %v", fs)
	}
}
