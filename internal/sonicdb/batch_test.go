package sonicdb

import (
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

var update = flag.Bool("update", false, "rewrite golden files")

// roceBatch is a realistic batch, added in a scrambled order.
func roceBatch() *Batch {
	dscp := map[string]string{}
	for d := range 64 {
		dscp[strconv.Itoa(d)] = "0"
	}
	dscp["26"], dscp["48"] = "3", "6"
	b := &Batch{}
	b.Update(ConfigDBPath("QUEUE", "Ethernet12|3", ""), map[string]string{"scheduler": "roce", "wred_profile": "ROCE"})
	b.Update(ConfigDBPath("QUEUE", "Ethernet8|3", ""), map[string]string{"wred_profile": "ROCE", "scheduler": "roce"})
	b.Update(ConfigDBPath("WRED_PROFILE", "ROCE", ""), map[string]string{
		"ecn": "ecn_all", "green_min_threshold": "102400", "green_max_threshold": "256000", "green_drop_probability": "100",
	})
	b.Delete(ConfigDBPath("QUEUE", "Ethernet8|4", ""))
	b.UpdateField(ConfigDBPath("PORT_QOS_MAP", "Ethernet8", "pfc_enable"), "3")
	b.UpdateField(ConfigDBPath("PORT_QOS_MAP", "Ethernet12", "pfcwd_sw_enable"), "3,4")
	b.ReplaceField(ConfigDBPath("WRED_PROFILE", "AZURE_LOSSLESS", "green_min_threshold"), "102400")
	b.Update(ConfigDBPath("DSCP_TO_TC_MAP", "ROCE", ""), dscp)
	b.UpdateField(ConfigDBPath("DEVICE_METADATA", "localhost", "description"), "rack 7, row B")
	b.Delete(ConfigDBPath("PFC_WD", "Ethernet8", ""))
	return b
}

func TestBatchLinesGolden(t *testing.T) {
	got := strings.Join(roceBatch().Lines(), "\n") + "\n"
	golden := filepath.Join("testdata", "batch_lines.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("Lines() mismatch (-want +got):\n%s", diff)
	}
}

func TestBatchRequest(t *testing.T) {
	b := &Batch{}
	b.Update(ConfigDBPath("SCHEDULER", "roce", ""), map[string]string{"weight": "50", "type": "DWRR"})
	b.Delete(ConfigDBPath("QUEUE", "Ethernet0|4", ""))
	b.ReplaceField(ConfigDBPath("PORT", "Ethernet0", "mtu"), "9100")
	path := func(elems ...string) *gpb.Path {
		p := &gpb.Path{Origin: "sonic-db", Elem: []*gpb.PathElem{{Name: "CONFIG_DB"}, {Name: "localhost"}}}
		for _, e := range elems {
			p.Elem = append(p.Elem, &gpb.PathElem{Name: e})
		}
		return p
	}
	ietf := func(s string) *gpb.TypedValue {
		return &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(s)}}
	}
	want := &gpb.SetRequest{
		Delete:  []*gpb.Path{path("QUEUE", "Ethernet0|4")},
		Replace: []*gpb.Update{{Path: path("PORT", "Ethernet0", "mtu"), Val: ietf(`"9100"`)}},
		Update:  []*gpb.Update{{Path: path("SCHEDULER", "roce"), Val: ietf(`{"type":"DWRR","weight":"50"}`)}},
	}
	if diff := cmp.Diff(want, b.Request(), protocmp.Transform()); diff != "" {
		t.Errorf("Request() (-want +got):\n%s", diff)
	}
}

func TestBatchOrderIndependent(t *testing.T) {
	a, b := &Batch{}, &Batch{}
	ops := []func(*Batch){
		func(x *Batch) { x.UpdateField(ConfigDBPath("PORT", "Ethernet8", "mtu"), "9100") },
		func(x *Batch) { x.UpdateField(ConfigDBPath("PORT", "Ethernet12", "mtu"), "9100") },
		func(x *Batch) { x.Delete(ConfigDBPath("QUEUE", "Ethernet0|4", "")) },
	}
	for i := range ops {
		ops[i](a)
		ops[len(ops)-1-i](b)
	}
	if diff := cmp.Diff(a.Request(), b.Request(), protocmp.Transform()); diff != "" {
		t.Errorf("request depends on insertion order (-a +b):\n%s", diff)
	}
}

func TestBatchErrors(t *testing.T) {
	b := &Batch{}
	b.Update(ConfigDBPath("PORT", "Ethernet0", "mtu"), map[string]string{"mtu": "9100"})
	b.UpdateField(ConfigDBPath("PORT", "Ethernet0", ""), "9100")
	b.Replace(ConfigDBPath("PORT", "Ethernet0", ""), nil)
	b.Delete(Path{DB: ApplDB, Table: "BUFFER_PG_TABLE"})
	b.Update(ConfigDBPath("PORT", "", ""), map[string]string{"a": "b"})
	if b.Len() != 0 {
		t.Errorf("invalid operations were added: %v", b.Lines())
	}
	err := b.Err()
	if err == nil {
		t.Fatal("Err() = nil")
	}
	for _, f := range []string{"use UpdateField for a field", "want a field path", "at least one field", "path APPL_DB/BUFFER_PG_TABLE: a Set writes CONFIG_DB only", "want an entry path"} {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("Err() = %q lacks %q", err, f)
		}
	}
	if (&Batch{}).Err() != nil {
		t.Error("empty batch has an error")
	}
}

func TestBatchValuesAreCopied(t *testing.T) {
	v := map[string]string{"type": "DWRR"}
	b := (&Batch{}).Update(ConfigDBPath("SCHEDULER", "s", ""), v)
	v["type"] = "STRICT"
	if got := b.Lines()[0]; got != "update CONFIG_DB/SCHEDULER/s {type=DWRR}" {
		t.Errorf("line = %q", got)
	}
}

func TestBatchApplyTo(t *testing.T) {
	db := sonic.DB{
		"QUEUE":     {"Ethernet0|3": {"scheduler": "s1", "wred_profile": "AZURE_LOSSLESS"}, "Ethernet0|4": {"scheduler": "s1"}},
		"SCHEDULER": {"s1": {"type": "DWRR", "weight": "15"}},
	}
	b := &Batch{}
	b.Update(ConfigDBPath("QUEUE", "Ethernet0|3", ""), map[string]string{"scheduler": "roce"})
	b.Delete(ConfigDBPath("QUEUE", "Ethernet0|4", ""))
	b.Delete(ConfigDBPath("SCHEDULER", "s1", "weight"))
	b.UpdateField(ConfigDBPath("SCHEDULER", "roce", "type"), "STRICT")
	b.applyTo(db)
	want := sonic.DB{
		"QUEUE":     {"Ethernet0|3": {"scheduler": "roce"}},
		"SCHEDULER": {"s1": {"type": "DWRR"}, "roce": {"type": "STRICT"}},
	}
	if diff := cmp.Diff(want, db); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"QUEUE", "SCHEDULER"}, b.tables()); diff != "" {
		t.Errorf("tables (-want +got):\n%s", diff)
	}
}

func TestBatchLinesGroupKeys(t *testing.T) {
	b := &Batch{}
	for _, port := range []string{"Ethernet8", "Ethernet0", "Ethernet4"} {
		b.UpdateField(ConfigDBPath("PFC_WD", port, "action"), "drop")
	}
	b.UpdateField(ConfigDBPath("PFC_WD", "Ethernet12", "action"), "alert")
	b.UpdateField(ConfigDBPath("BUFFER_PG", "Ethernet0,Ethernet4|3", "profile"), "pg_lossless")
	b.UpdateField(ConfigDBPath("BUFFER_PG", "Ethernet8|3", "profile"), "pg_lossless")
	want := []string{
		"update CONFIG_DB/BUFFER_PG/Ethernet0,Ethernet4|3/profile = pg_lossless",
		"update CONFIG_DB/BUFFER_PG/Ethernet8|3/profile = pg_lossless",
		"update CONFIG_DB/PFC_WD/{Ethernet0,Ethernet4,Ethernet8}/action = drop",
		"update CONFIG_DB/PFC_WD/Ethernet12/action = alert",
	}
	if diff := cmp.Diff(want, b.Lines()); diff != "" {
		t.Errorf("grouped lines (-want +got):\n%s", diff)
	}

	// A path written twice keeps a line per operation, so the lines keep the order.
	twice := &Batch{}
	twice.UpdateField(ConfigDBPath("PFC_WD", "Ethernet0", "action"), "drop")
	twice.UpdateField(ConfigDBPath("PFC_WD", "Ethernet4", "action"), "drop")
	twice.UpdateField(ConfigDBPath("PFC_WD", "Ethernet0", "action"), "alert")
	want = []string{
		"update CONFIG_DB/PFC_WD/Ethernet0/action = drop",
		"update CONFIG_DB/PFC_WD/Ethernet0/action = alert",
		"update CONFIG_DB/PFC_WD/Ethernet4/action = drop",
	}
	if diff := cmp.Diff(want, twice.Lines()); diff != "" {
		t.Errorf("a path written twice (-want +got):\n%s", diff)
	}
}

// Lines are the plan's record of what apply sends: a batch that sends something else must
// read differently.
func TestBatchLinesNameEveryOperation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := []string{"Ethernet0", "Ethernet4", "Ethernet8", "Ethernet0|3", "Ethernet4|3"}
	values := []string{"drop", "alert", "3"}
	build := func(ops [][3]int) *Batch {
		b := &Batch{}
		for _, o := range ops {
			p := ConfigDBPath("PFC_WD", keys[o[0]], []string{"action", "detection_time"}[o[1]])
			if o[2] == len(values) {
				b.Delete(p)
			} else {
				b.UpdateField(p, values[o[2]])
			}
		}
		return b
	}
	for range 2000 {
		var ops [][3]int
		for range 1 + rng.IntN(6) {
			ops = append(ops, [3]int{rng.IntN(len(keys)), rng.IntN(2), rng.IntN(len(values) + 1)})
		}
		other := slices.Clone(ops)
		i := rng.IntN(len(other))
		other[i][rng.IntN(3)] = rng.IntN(2)
		a, b := build(ops), build(other)
		if slices.Equal(a.Lines(), b.Lines()) != proto.Equal(a.Request(), b.Request()) {
			t.Fatalf("batches %v and %v: equal lines %v, equal requests %v\n%q\n%q", ops, other,
				slices.Equal(a.Lines(), b.Lines()), proto.Equal(a.Request(), b.Request()), a.Lines(), b.Lines())
		}
	}
}
