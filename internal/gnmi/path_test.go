package gnmi

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/protobuf/testing/protocmp"
)

func TestPathString(t *testing.T) {
	for _, tt := range []struct {
		p    Path
		want string
	}{
		{Path{Origin: "sonic-db", Elems: []string{"CONFIG_DB", "localhost", "QUEUE", "Ethernet0|3"}}, "sonic-db:CONFIG_DB/localhost/QUEUE/Ethernet0|3"},
		{Path{Elems: []string{"ROUTE", "10.0.0.0/8", `a\b`}}, `ROUTE/10.0.0.0\/8/a\\b`},
		{Path{Origin: "openconfig"}, "openconfig:"},
	} {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestPathProto(t *testing.T) {
	want := &gpb.Path{Origin: "sonic-db", Elem: []*gpb.PathElem{{Name: "CONFIG_DB"}, {Name: "localhost"}, {Name: "QUEUE"}, {Name: "Ethernet0|3"}}}
	p := Path{Origin: "sonic-db", Elems: []string{"CONFIG_DB", "localhost", "QUEUE", "Ethernet0|3"}}
	if diff := cmp.Diff(want, p.Proto(), protocmp.Transform()); diff != "" {
		t.Errorf("Proto (-want +got):\n%s", diff)
	}
	prefix := &gpb.Path{Origin: "sonic-db", Elem: want.Elem[:2]}
	back := PathFromProto(prefix, &gpb.Path{Elem: want.Elem[2:]})
	if diff := cmp.Diff(p, back); diff != "" {
		t.Errorf("PathFromProto (-want +got):\n%s", diff)
	}
	if got := PathFromProto(prefix, &gpb.Path{Origin: "other"}); got.Origin != "other" {
		t.Errorf("the path's own origin lost to the prefix's: %+v", got)
	}
}
