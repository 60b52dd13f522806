package sonicdb

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/protobuf/testing/protocmp"
)

func TestPathForms(t *testing.T) {
	for _, tt := range []struct {
		p           Path
		gnmi, plain string
	}{
		{ConfigDBPath("QUEUE", "Ethernet0|3", ""), "sonic-db:CONFIG_DB/localhost/QUEUE/Ethernet0|3", "CONFIG_DB/QUEUE/Ethernet0|3"},
		{ConfigDBPath("WRED_PROFILE", "ROCE", "green_min_threshold"), "sonic-db:CONFIG_DB/localhost/WRED_PROFILE/ROCE/green_min_threshold", "CONFIG_DB/WRED_PROFILE/ROCE/green_min_threshold"},
		{ConfigDBPath("PORT", "", ""), "sonic-db:CONFIG_DB/localhost/PORT", "CONFIG_DB/PORT"},
		{ConfigDBPath("ROUTE", "10.0.0.0/8", ""), `sonic-db:CONFIG_DB/localhost/ROUTE/10.0.0.0\/8`, `CONFIG_DB/ROUTE/10.0.0.0\/8`},
		{Path{DB: ApplDB, Table: "BUFFER_PG_TABLE", Key: "Ethernet0:3-4"}, "sonic-db:APPL_DB/localhost/BUFFER_PG_TABLE/Ethernet0:3-4", "APPL_DB/BUFFER_PG_TABLE/Ethernet0:3-4"},
	} {
		if got := tt.p.GNMI().String(); got != tt.gnmi {
			t.Errorf("GNMI() = %q, want %q", got, tt.gnmi)
		}
		if got := tt.p.String(); got != tt.plain {
			t.Errorf("String() = %q, want %q", got, tt.plain)
		}
	}
	want := &gpb.Path{Origin: "sonic-db", Elem: []*gpb.PathElem{{Name: "CONFIG_DB"}, {Name: "localhost"}, {Name: "QUEUE"}, {Name: "Ethernet0|3"}}}
	if diff := cmp.Diff(want, ConfigDBPath("QUEUE", "Ethernet0|3", "").GNMI().Proto(), protocmp.Transform()); diff != "" {
		t.Errorf("Proto (-want +got):\n%s", diff)
	}
}

func TestPathValidate(t *testing.T) {
	for _, bad := range []Path{{DB: ApplDB, Table: "PORT"}, ConfigDBPath("", "k", ""), ConfigDBPath("PORT", "", "mtu")} {
		if bad.validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if err := ConfigDBPath("PORT", "Ethernet0", "mtu").validate(); err != nil {
		t.Error(err)
	}
}
