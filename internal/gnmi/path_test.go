package gnmi

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/protobuf/testing/protocmp"
)

func TestConfigDBPath(t *testing.T) {
	tests := []struct {
		p                 Path
		str               string
		table, key, field string
	}{
		{ConfigDBPath("QUEUE", "Ethernet0|3", ""), "sonic-db:CONFIG_DB/localhost/QUEUE/Ethernet0|3", "QUEUE", "Ethernet0|3", ""},
		{ConfigDBPath("WRED_PROFILE", "ROCE", "green_min_threshold"), "sonic-db:CONFIG_DB/localhost/WRED_PROFILE/ROCE/green_min_threshold", "WRED_PROFILE", "ROCE", "green_min_threshold"},
		{ConfigDBPath("PORT", "", ""), "sonic-db:CONFIG_DB/localhost/PORT", "PORT", "", ""},
		{ConfigDBPath("ROUTE", "10.0.0.0/8", ""), `sonic-db:CONFIG_DB/localhost/ROUTE/10.0.0.0\/8`, "ROUTE", "10.0.0.0/8", ""},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.str {
			t.Errorf("String() = %q, want %q", got, tt.str)
		}
		if tt.p.Table() != tt.table || tt.p.Key() != tt.key || tt.p.Field() != tt.field {
			t.Errorf("%s: Table/Key/Field = %q/%q/%q", tt.str, tt.p.Table(), tt.p.Key(), tt.p.Field())
		}
		back, err := ParsePath(tt.str)
		if err != nil {
			t.Errorf("ParsePath(%q): %v", tt.str, err)
			continue
		}
		if diff := cmp.Diff(tt.p, back); diff != "" {
			t.Errorf("ParsePath(%q) (-want +got):\n%s", tt.str, diff)
		}
	}
}

func TestParsePath(t *testing.T) {
	p, err := ParsePath("/sonic-db:CONFIG_DB/localhost/BUFFER_PG/Ethernet64|3-4")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ConfigDBPath("BUFFER_PG", "Ethernet64|3-4", ""), p); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	p, err = ParsePath("osversion/build")
	if err != nil || p.Origin != "" || p.IsConfigDB() {
		t.Errorf("ParsePath(osversion/build) = %+v, %v", p, err)
	}
	for _, bad := range []string{"", "/", "sonic-db:CONFIG_DB//PORT", `a\`} {
		if p, err := ParsePath(bad); err == nil {
			t.Errorf("ParsePath(%q) = %+v, want an error", bad, p)
		}
	}
}

func TestPathProto(t *testing.T) {
	want := &gpb.Path{Origin: "sonic-db", Elem: []*gpb.PathElem{{Name: "CONFIG_DB"}, {Name: "localhost"}, {Name: "QUEUE"}, {Name: "Ethernet0|3"}}}
	got := ConfigDBPath("QUEUE", "Ethernet0|3", "").Proto()
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		t.Errorf("Proto (-want +got):\n%s", diff)
	}
	prefix := &gpb.Path{Origin: "sonic-db", Elem: want.Elem[:2]}
	back := PathFromProto(prefix, &gpb.Path{Elem: want.Elem[2:]})
	if diff := cmp.Diff(ConfigDBPath("QUEUE", "Ethernet0|3", ""), back); diff != "" {
		t.Errorf("PathFromProto (-want +got):\n%s", diff)
	}
}
