package sonic

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiff(t *testing.T) {
	before := DB{
		"WRED_PROFILE": {"AZURE_LOSSLESS": {"green_min_threshold": "1048576", "ecn": "ecn_all", "wred_green_enable": "true"}},
		"PFC_WD":       {"GLOBAL": {"POLL_INTERVAL": "200"}},
		"GONE":         {"x": {"a": "1"}},
		"QUEUE":        {"Ethernet0|3": {"scheduler": "scheduler.1"}},
	}
	after := DB{
		"WRED_PROFILE": {
			"AZURE_LOSSLESS": {"green_min_threshold": "102400", "ecn": "ecn_all", "green_drop_probability": "5"},
			"ROCE":           {"ecn": "ecn_all", "green_min_threshold": "81920"},
		},
		"PFC_WD": {"GLOBAL": {"POLL_INTERVAL": "200"}},
		"NEW":    {"b": {"f": "v"}, "a": {"f": "v"}},
	}
	want := []Change{
		{Op: OpRemove, Table: "GONE"},
		{Op: OpAdd, Table: "NEW", Fields: []string{"a", "b"}},
		{Op: OpRemove, Table: "QUEUE"},
		{Op: OpAdd, Table: "WRED_PROFILE", Key: "AZURE_LOSSLESS", Field: "green_drop_probability"},
		{Op: OpReplace, Table: "WRED_PROFILE", Key: "AZURE_LOSSLESS", Field: "green_min_threshold"},
		{Op: OpRemove, Table: "WRED_PROFILE", Key: "AZURE_LOSSLESS", Field: "wred_green_enable"},
		{Op: OpAdd, Table: "WRED_PROFILE", Key: "ROCE", Fields: []string{"ecn", "green_min_threshold"}},
	}
	if diff := cmp.Diff(want, Diff(before, after)); diff != "" {
		t.Errorf("Diff mismatch (-want +got):\n%s", diff)
	}
	if got := Diff(before, before.Clone()); len(got) != 0 {
		t.Errorf("Diff of equal images = %v, want none", got)
	}
}

func TestChangePath(t *testing.T) {
	tests := []struct {
		c    Change
		want string
	}{
		{Change{Op: OpReplace, Table: "QUEUE", Key: "Ethernet0|3", Field: "scheduler"}, "replace /QUEUE/Ethernet0|3/scheduler"},
		{Change{Op: OpRemove, Table: "ROUTE", Key: "10.0.0.0/8"}, "remove /ROUTE/10.0.0.0~18"},
		{Change{Op: OpAdd, Table: "T"}, "add /T"},
	}
	for _, tt := range tests {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestDBEdits(t *testing.T) {
	db := DB{}
	db.SetField("PORT", "Ethernet0", "mtu", "9100")
	db.SetEntry("PORT", "Ethernet4", Entry{"mtu": "1500"})
	db.DeleteField("PORT", "Ethernet0", "mtu")
	db.DeleteField("PORT", "Ethernet8", "mtu")
	db.DeleteEntry("NOPE", "x")
	want := DB{"PORT": {"Ethernet4": {"mtu": "1500"}}}
	if diff := cmp.Diff(want, db); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	db.SetEntry("PORT", "Ethernet4", Entry{})
	if len(db) != 0 {
		t.Errorf("empty entry should remove entry and table, got %v", db)
	}
	db.SetTable("T", Table{"k": {}})
	if _, ok := db["T"]; ok {
		t.Errorf("table of empty entries should vanish, got %v", db)
	}
}
