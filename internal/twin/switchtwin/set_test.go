package switchtwin

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

func TestSetSemantics(t *testing.T) {
	tw := startTwin(t, Options{Release: "202511"})
	c := dial(t, tw, nil)

	tests := []struct {
		name  string
		req   *gpb.SetRequest
		table string
		key   string
		want  sonic.Entry // nil: entry must not exist
	}{
		{
			name: "update replaces the whole entry",
			req: &gpb.SetRequest{Update: []*gpb.Update{
				upd(cfg("SCHEDULER", "scheduler.1"), `{"type":"STRICT"}`),
			}},
			table: "SCHEDULER", key: "scheduler.1",
			want: sonic.Entry{"type": "STRICT"}, // weight 15 vanished
		},
		{
			name: "field update changes one field",
			req: &gpb.SetRequest{Update: []*gpb.Update{
				upd(cfg("PORT_QOS_MAP", "Ethernet0", "pfc_enable"), `"3"`),
			}},
			table: "PORT_QOS_MAP", key: "Ethernet0",
			want: sonic.Entry{
				"dscp_to_tc_map": "AZURE", "tc_to_queue_map": "AZURE", "tc_to_pg_map": "AZURE",
				"pfc_to_queue_map": "AZURE", "pfc_to_pg_map": "AZURE", "pfc_enable": "3", "pfcwd_sw_enable": "3,4",
			},
		},
		{
			name:  "delete of a missing path is ignored",
			req:   &gpb.SetRequest{Delete: []*gpb.Path{cfg("WRED_PROFILE", "NOPE"), cfg("NO_TABLE"), cfg("QUEUE", "Ethernet0|3", "nofield")}},
			table: "WRED_PROFILE", key: "NOPE",
		},
		{
			name:  "delete of the last field removes the entry",
			req:   &gpb.SetRequest{Delete: []*gpb.Path{cfg("QUEUE", "Ethernet0|0", "scheduler")}},
			table: "QUEUE", key: "Ethernet0|0",
		},
		{
			name: "replace of an existing field",
			req: &gpb.SetRequest{Replace: []*gpb.Update{
				upd(cfg("WRED_PROFILE", "AZURE_LOSSLESS", "green_min_threshold"), `"81920"`),
			}},
			table: "WRED_PROFILE", key: "AZURE_LOSSLESS",
			want: func() sonic.Entry {
				e, _ := tw.Entry("WRED_PROFILE", "AZURE_LOSSLESS")
				e["green_min_threshold"] = "81920"
				return e
			}(),
		},
		{
			name: "deletes run before updates whatever the order",
			req: &gpb.SetRequest{
				Update: []*gpb.Update{upd(cfg("SCHEDULER", "roce"), `{"type":"DWRR","weight":"50"}`)},
				Delete: []*gpb.Path{cfg("SCHEDULER", "roce")},
			},
			table: "SCHEDULER", key: "roce",
			want: sonic.Entry{"type": "DWRR", "weight": "50"},
		},
		{
			name: "prefix carries origin and database",
			req: &gpb.SetRequest{
				Prefix: &gpb.Path{Origin: "sonic-db", Elem: []*gpb.PathElem{{Name: "CONFIG_DB"}, {Name: "localhost"}}},
				Update: []*gpb.Update{{Path: &gpb.Path{Elem: []*gpb.PathElem{{Name: "CABLE_LENGTH"}, {Name: "AZURE"}, {Name: "Ethernet0"}}}, Val: ietf(`"40m"`)}},
			},
			table: "CABLE_LENGTH", key: "AZURE",
			want: func() sonic.Entry {
				e, _ := tw.Entry("CABLE_LENGTH", "AZURE")
				e["Ethernet0"] = "40m"
				return e
			}(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := c.Set(ctxT(t), tt.req); err != nil {
				t.Fatalf("Set: %v", err)
			}
			got, ok := tw.Entry(tt.table, tt.key)
			if tt.want == nil {
				if ok {
					t.Fatalf("%s|%s = %v, want no entry", tt.table, tt.key, got)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s|%s (-want +got):\n%s", tt.table, tt.key, diff)
			}
		})
	}
}

func TestSetRejectsLikeSONiC(t *testing.T) {
	tw := startTwin(t, Options{})
	c := dial(t, tw, nil)
	other := func(p *gpb.Path, origin string) *gpb.Path { p.Origin = origin; return p }
	tests := []struct {
		name      string
		req       *gpb.SetRequest
		code      codes.Code
		fragments []string
	}{
		{"replace of a missing path", &gpb.SetRequest{Replace: []*gpb.Update{upd(cfg("SCHEDULER", "nope"), `{"type":"DWRR"}`)}},
			codes.Unknown, []string{"replace of missing path CONFIG_DB/localhost/SCHEDULER/nope"}},
		{"number value", &gpb.SetRequest{Update: []*gpb.Update{upd(cfg("SCHEDULER", "s"), `{"type":"DWRR","weight":50}`)}},
			codes.Unknown, []string{"SCHEDULER|s", "weight", "must be a JSON string"}},
		{"JSON instead of JSON_IETF", &gpb.SetRequest{Update: []*gpb.Update{{Path: cfg("SCHEDULER", "s"), Val: &gpb.TypedValue{Value: &gpb.TypedValue_JsonVal{JsonVal: []byte(`{"type":"DWRR"}`)}}}}},
			codes.Unknown, []string{"Value encoding is not IETF JSON"}},
		{"string value", &gpb.SetRequest{Update: []*gpb.Update{{Path: cfg("SCHEDULER", "s", "type"), Val: &gpb.TypedValue{Value: &gpb.TypedValue_StringVal{StringVal: "DWRR"}}}}},
			codes.Unknown, []string{"Value encoding is not IETF JSON"}},
		{"openconfig origin", &gpb.SetRequest{Update: []*gpb.Update{upd(other(cfg("x"), "openconfig"), `{}`)}},
			codes.Unimplemented, []string{"Translib write is disabled"}},
		{"no origin", &gpb.SetRequest{Update: []*gpb.Update{upd(other(cfg("x"), ""), `{}`)}},
			codes.Unimplemented, []string{"Translib write is disabled"}},
		{"origin conflict", &gpb.SetRequest{Delete: []*gpb.Path{cfg("A"), other(cfg("B"), "openconfig")}},
			codes.Unimplemented, []string{"Origin conflict"}},
		{"another database", &gpb.SetRequest{Delete: []*gpb.Path{{Origin: "sonic-db", Elem: []*gpb.PathElem{{Name: "APPL_DB"}, {Name: "localhost"}, {Name: "X"}}}}},
			codes.Unknown, []string{"Set RPC does not support APPL_DB"}},
		{"path keys", &gpb.SetRequest{Delete: []*gpb.Path{{Origin: "sonic-db", Elem: []*gpb.PathElem{{Name: "CONFIG_DB"}, {Name: "localhost"}, {Name: "QUEUE", Key: map[string]string{"name": "Ethernet0|3"}}}}}},
			codes.InvalidArgument, []string{"composite key"}},
		{"too deep", &gpb.SetRequest{Delete: []*gpb.Path{cfg("QUEUE", "Ethernet0", "3", "scheduler")}},
			codes.NotFound, []string{"Invalid db table Path"}},
		{"namespace", &gpb.SetRequest{Delete: []*gpb.Path{{Origin: "sonic-db", Elem: []*gpb.PathElem{{Name: "CONFIG_DB"}, {Name: "asic0"}, {Name: "X"}}}}},
			codes.NotFound, []string{"asic0"}},
	}
	before := tw.Snapshot()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Set(ctxT(t), tt.req)
			wantCode(t, err, tt.code, tt.fragments...)
		})
	}
	if diff := cmp.Diff(before, tw.Snapshot()); diff != "" {
		t.Errorf("rejected Sets changed CONFIG_DB (-before +after):\n%s", diff)
	}
}

func TestSetIsOneTransaction(t *testing.T) {
	tw := startTwin(t, Options{Release: "202511"})
	c := dial(t, tw, nil)
	before := tw.Snapshot()
	_, err := c.Set(ctxT(t), &gpb.SetRequest{
		Delete: []*gpb.Path{cfg("QUEUE", "Ethernet0|0")},
		Update: []*gpb.Update{
			upd(cfg("SCHEDULER", "roce"), `{"type":"DWRR","weight":"50"}`),
			upd(cfg("WRED_PROFILE", "ROCE"), `{"ecn":"ecn_all","green_min_threshold":"200","green_max_threshold":"100"}`),
		},
	})
	wantCode(t, err, codes.Unknown, "WRED_PROFILE|ROCE", "green_min_threshold", "must not exceed green_max_threshold")
	if diff := cmp.Diff(before, tw.Snapshot()); diff != "" {
		t.Errorf("a failed Set changed CONFIG_DB (-before +after):\n%s", diff)
	}
}

// roceConfig is a minimal CONFIG_DB set for DSCP 26 → TC 3, PFC 3, ECN on
// TC 3, for one port.
func roceConfig() *gpb.SetRequest {
	dscp := `{`
	for d := range 64 {
		tc := "0"
		switch d {
		case 26:
			tc = "3"
		case 48:
			tc = "6"
		}
		if d > 0 {
			dscp += ","
		}
		dscp += `"` + strconv.Itoa(d) + `":"` + tc + `"`
	}
	dscp += `}`
	return &gpb.SetRequest{Update: []*gpb.Update{
		upd(cfg("DSCP_TO_TC_MAP", "ROCE"), dscp),
		upd(cfg("TC_TO_PRIORITY_GROUP_MAP", "ROCE"), `{"0":"0","3":"3","6":"6"}`),
		upd(cfg("TC_TO_QUEUE_MAP", "ROCE"), `{"0":"0","1":"1","2":"2","3":"3","4":"4","5":"5","6":"6","7":"7"}`),
		upd(cfg("MAP_PFC_PRIORITY_TO_QUEUE", "ROCE"), `{"3":"3"}`),
		upd(cfg("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "ROCE"), `{"3":"3"}`),
		upd(cfg("WRED_PROFILE", "ROCE_LOSSLESS"), `{"ecn":"ecn_all","wred_green_enable":"false","green_min_threshold":"81920","green_max_threshold":"122880","green_drop_probability":"100"}`),
		upd(cfg("SCHEDULER", "roce_dwrr"), `{"type":"DWRR","weight":"50"}`),
		upd(cfg("QUEUE", "Ethernet0|3"), `{"scheduler":"roce_dwrr","wred_profile":"ROCE_LOSSLESS"}`),
		upd(cfg("PORT_QOS_MAP", "Ethernet0"), `{"dscp_to_tc_map":"ROCE","tc_to_queue_map":"ROCE","tc_to_pg_map":"ROCE","pfc_to_queue_map":"ROCE","pfc_to_pg_map":"ROCE","pfc_enable":"3","pfcwd_sw_enable":"3"}`),
		upd(cfg("CABLE_LENGTH", "AZURE", "Ethernet0"), `"40m"`),
		upd(cfg("PFC_WD", "Ethernet0"), `{"action":"drop","detection_time":"200","restoration_time":"200"}`),
	}}
}

func TestSetRoCEConfig(t *testing.T) {
	for _, rel := range []string{"202511", "master"} {
		t.Run(rel, func(t *testing.T) {
			tw := startTwin(t, Options{Release: rel})
			c := dial(t, tw, nil)
			if _, err := c.Set(ctxT(t), roceConfig()); err != nil {
				t.Fatalf("Set RoCE config: %v", err)
			}
			got, _ := tw.Entry("QUEUE", "Ethernet0|3")
			if diff := cmp.Diff(sonic.Entry{"scheduler": "roce_dwrr", "wred_profile": "ROCE_LOSSLESS"}, got); diff != "" {
				t.Errorf("QUEUE|Ethernet0|3 (-want +got):\n%s", diff)
			}
		})
	}
	// 202411 rejects the new WRED profile, and with it the whole patch.
	tw := startTwin(t, Options{Release: "202411"})
	_, err := dial(t, tw, nil).Set(ctxT(t), roceConfig())
	wantCode(t, err, codes.Unknown, "add /WRED_PROFILE/ROCE_LOSSLESS", "not allowed by sonic gcu")
	if _, ok := tw.Entry("DSCP_TO_TC_MAP", "ROCE"); ok {
		t.Error("DSCP_TO_TC_MAP|ROCE exists after a rejected Set")
	}
}
