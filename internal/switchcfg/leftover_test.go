package switchcfg

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// TestSnapshotAfterAnInterruptedCreate takes the restore point on a switch where an earlier
// create of the policy applied but recorded nothing (its client was interrupted): the ports
// already use the policy's own maps and schedulers. The restore point must name SONiC's stock
// objects, never the policy's own, so that the removal the switch accepts puts the ports back
// on AZURE and the ROCE objects go.
func TestSnapshotAfterAnInterruptedCreate(t *testing.T) {
	tw, b := startTwin(t, switchtwin.Options{})
	before := tw.Snapshot()
	p := testPolicy()
	c, _ := observe(t, b).plan(p)
	apply(t, b, c) // the interrupted create: applied, nothing recorded

	o := observe(t, b)
	snap := o.Snapshot(nil, p, nil)
	for key, want := range map[string]string{
		"PORT_QOS_MAP|Ethernet0|dscp_to_tc_map": "AZURE",
		"PORT_QOS_MAP|Ethernet8|tc_to_pg_map":   "AZURE",
		"QUEUE|Ethernet0|3|scheduler":           "scheduler.1",
		"QUEUE|Ethernet0|3|wred_profile":        "AZURE_LOSSLESS",
		"QUEUE|Ethernet0|6|scheduler":           "scheduler.0",
	} {
		if snap[key] != want {
			t.Errorf("restore point %s = %q, want the stock %q", key, snap[key], want)
		}
	}
	rm, err := o.removal(p, snap)
	if err != nil {
		t.Fatal(err)
	}
	apply(t, b, rm)
	after := tw.Snapshot()
	for _, table := range []string{"PORT_QOS_MAP", "QUEUE", "DSCP_TO_TC_MAP", "SCHEDULER", "TC_TO_PRIORITY_GROUP_MAP"} {
		if diff := cmp.Diff(before[table], after[table]); diff != "" {
			t.Errorf("%s after the removal differs from before the first create (-before +after):\n%s", table, diff)
		}
	}
}

// TestNVUESnapshotAfterAnInterruptedCreate is the same on Cumulus: once the policy's profiles
// are on the switch, the shared settings may hold the policy's values, so the restore point
// is Cumulus' defaults, and the removal leaves the switch as it was.
func TestNVUESnapshotAfterAnInterruptedCreate(t *testing.T) {
	tw, b := startNVUETwin(t, "5.14")
	before := tw.Applied()
	p := cumulusPolicy()
	o := nvueObserve(t, b)
	c, err := o.PlanUpdate(nil, p, o.Snapshot(nil, p, nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Apply(context.Background(), c); err != nil {
		t.Fatal(err)
	}

	o = nvueObserve(t, b)
	snap := o.Snapshot(nil, p, nil)
	rm, _ := o.Removal(p, snap)
	if _, err := b.Apply(context.Background(), rm); err != nil {
		t.Fatal(err)
	}
	wantJSON, _ := json.Marshal(before)
	gotJSON, _ := json.Marshal(tw.Applied())
	if string(wantJSON) != string(gotJSON) {
		t.Errorf("removal with the restore point taken after the interrupted create left the switch different:\n%s", cmp.Diff(before, tw.Applied()))
	}
}
