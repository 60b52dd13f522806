package sonic

import (
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
