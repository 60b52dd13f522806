package switchtwin

import (
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
)

func TestSeedIsValid(t *testing.T) {
	for _, sku := range []string{"Mellanox-SN5600-O128", "ACS-SN5600"} {
		t.Run(sku, func(t *testing.T) {
			s, err := Options{HWSKU: sku, Ports: 64}.withDefaults()
			if err != nil {
				t.Fatal(err)
			}
			db := seed(s)
			if err := validateDB(db); err != nil {
				t.Fatalf("seed does not validate:\n%v", err)
			}
			if n := len(db["PORT"]); n != 64 {
				t.Errorf("ports = %d, want 64", n)
			}
			last := "Ethernet252"
			if sku == "ACS-SN5600" {
				last = "Ethernet504"
			}
			if _, ok := db["PORT"][last]; !ok {
				t.Errorf("port %s missing", last)
			}
		})
	}
}

func TestSetValidation(t *testing.T) {
	tw := startTwin(t, Options{Release: "202511"})
	c := dial(t, tw, nil)
	tests := []struct {
		name      string
		update    *gpb.Update
		delete    *gpb.Path
		fragments []string
	}{
		{name: "dscp out of range", update: upd(cfg("DSCP_TO_TC_MAP", "ROCE"), `{"64":"3"}`),
			fragments: []string{"DSCP_TO_TC_MAP|ROCE", "field 64", "dscp in 0..63"}},
		{name: "tc out of range", update: upd(cfg("DSCP_TO_TC_MAP", "ROCE"), `{"26":"8"}`),
			fragments: []string{"DSCP_TO_TC_MAP|ROCE", "field 26", "tc in 0..7"}},
		{name: "pg map value", update: upd(cfg("TC_TO_PRIORITY_GROUP_MAP", "ROCE"), `{"3":"x"}`),
			fragments: []string{"TC_TO_PRIORITY_GROUP_MAP|ROCE", "priority group in 0..7"}},
		{name: "pfc_enable list", update: upd(cfg("PORT_QOS_MAP", "Ethernet0", "pfc_enable"), `"3,8"`),
			fragments: []string{"PORT_QOS_MAP|Ethernet0", "pfc_enable", "comma list of priorities"}},
		{name: "missing map", update: upd(cfg("PORT_QOS_MAP", "Ethernet0", "dscp_to_tc_map"), `"ROCE"`),
			fragments: []string{"PORT_QOS_MAP|Ethernet0: field dscp_to_tc_map refers to DSCP_TO_TC_MAP|ROCE, which does not exist"}},
		{name: "legacy reference", update: upd(cfg("PORT_QOS_MAP", "Ethernet0", "dscp_to_tc_map"), `"[DSCP_TO_TC_MAP|AZURE]"`),
			fragments: []string{"legacy reference format", `bare name "AZURE"`}},
		{name: "qos map for a missing port", update: upd(cfg("PORT_QOS_MAP", "Ethernet1000"), `{"pfc_enable":"3"}`),
			fragments: []string{"PORT_QOS_MAP|Ethernet1000: key refers to PORT|Ethernet1000"}},
		{name: "wred min above max", update: upd(cfg("WRED_PROFILE", "R"), `{"green_min_threshold":"2","green_max_threshold":"1"}`),
			fragments: []string{"WRED_PROFILE|R", "green_min_threshold", "must not exceed"}},
		{name: "wred ecn", update: upd(cfg("WRED_PROFILE", "R"), `{"ecn":"on"}`),
			fragments: []string{"WRED_PROFILE|R", "field ecn", "ecn_all"}},
		{name: "wred probability", update: upd(cfg("WRED_PROFILE", "R"), `{"green_drop_probability":"101"}`),
			fragments: []string{"green_drop_probability", "0..100"}},
		{name: "wred threshold units", update: upd(cfg("WRED_PROFILE", "R"), `{"green_min_threshold":"100KB"}`),
			fragments: []string{"unsigned integer (bytes)"}},
		{name: "wred unknown field", update: upd(cfg("WRED_PROFILE", "R"), `{"green_min":"1"}`),
			fragments: []string{"WRED_PROFILE|R: field green_min", "unknown field"}},
		{name: "scheduler type", update: upd(cfg("SCHEDULER", "s"), `{"type":"PRIORITY"}`),
			fragments: []string{"SCHEDULER|s", "DWRR, WRR, STRICT"}},
		{name: "scheduler weight", update: upd(cfg("SCHEDULER", "s"), `{"type":"DWRR","weight":"0"}`),
			fragments: []string{"weight", "1..100"}},
		{name: "queue scheduler missing", update: upd(cfg("QUEUE", "Ethernet0|3", "scheduler"), `"nope"`),
			fragments: []string{"QUEUE|Ethernet0|3: field scheduler refers to SCHEDULER|nope"}},
		{name: "queue key", update: upd(cfg("QUEUE", "Ethernet0|16"), `{"scheduler":"scheduler.0"}`),
			fragments: []string{"QUEUE|Ethernet0|16", "key"}},
		{name: "cable length unit", update: upd(cfg("CABLE_LENGTH", "AZURE", "Ethernet0"), `"5"`),
			fragments: []string{"CABLE_LENGTH|AZURE", "Ethernet0", "meters"}},
		{name: "cable length unknown port", update: upd(cfg("CABLE_LENGTH", "AZURE", "Ethernet1000"), `"5m"`),
			fragments: []string{"refers to PORT|Ethernet1000"}},
		{name: "pfcwd detection time", update: upd(cfg("PFC_WD", "Ethernet0"), `{"action":"drop","detection_time":"50"}`),
			fragments: []string{"PFC_WD|Ethernet0", "detection_time", "100..5000"}},
		{name: "pfcwd poll interval", update: upd(cfg("PFC_WD", "GLOBAL", "POLL_INTERVAL"), `"5"`),
			fragments: []string{"PFC_WD|GLOBAL", "POLL_INTERVAL"}},
		{name: "new port", update: upd(cfg("PORT", "Ethernet1000"), `{"lanes":"1000","mtu":"9100"}`),
			fragments: []string{"PORT|Ethernet1000: no such port"}},
		{name: "port entry without lanes", update: upd(cfg("PORT", "Ethernet0"), `{"mtu":"9100"}`),
			fragments: []string{"PORT|Ethernet0: field lanes is mandatory"}},
		{name: "port mtu", update: upd(cfg("PORT", "Ethernet0", "mtu"), `"9300"`),
			fragments: []string{"PORT|Ethernet0", "mtu", "68..9216"}},
		{name: "port speed", update: upd(cfg("PORT", "Ethernet0", "speed"), `"800000"`),
			fragments: []string{"PORT|Ethernet0", "speed", "not a supported speed"}},
		{name: "port removal", delete: cfg("PORT", "Ethernet4"),
			fragments: []string{"PORT|Ethernet4: ports cannot be removed"}},
		{name: "wred profile in use", delete: cfg("WRED_PROFILE", "AZURE_LOSSLESS"),
			fragments: []string{"QUEUE|Ethernet0|3: field wred_profile refers to WRED_PROFILE|AZURE_LOSSLESS, which does not exist"}},
		{name: "buffer profile both thresholds", update: upd(cfg("BUFFER_PROFILE", "p"), `{"pool":"ingress_lossless_pool","size":"0","dynamic_th":"0","static_th":"10"}`),
			fragments: []string{"BUFFER_PROFILE|p", "exactly one of dynamic_th and static_th"}},
		{name: "buffer profile pool", update: upd(cfg("BUFFER_PROFILE", "p"), `{"pool":"nope","size":"0","dynamic_th":"0"}`),
			fragments: []string{"BUFFER_PROFILE|p: field pool refers to BUFFER_POOL|nope"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &gpb.SetRequest{}
			if tt.update != nil {
				req.Update = []*gpb.Update{tt.update}
			}
			if tt.delete != nil {
				req.Delete = []*gpb.Path{tt.delete}
			}
			_, err := c.Set(ctxT(t), req)
			wantCode(t, err, codes.Unknown, tt.fragments...)
		})
	}
}

func TestDriftDoesNotBlockUnrelatedSets(t *testing.T) {
	tw := startTwin(t, Options{Release: "202511"})
	c := dial(t, tw, nil)
	// An operator leaves a dangling reference behind.
	tw.SetEntry("QUEUE", "Ethernet4|3", map[string]string{"scheduler": "gone"})
	if _, err := c.Set(ctxT(t), &gpb.SetRequest{Update: []*gpb.Update{upd(cfg("SCHEDULER", "roce"), `{"type":"DWRR","weight":"50"}`)}}); err != nil {
		t.Fatalf("unrelated Set failed: %v", err)
	}
	tw.DeleteEntry("QUEUE", "Ethernet4|3")
	if _, ok := tw.Entry("QUEUE", "Ethernet4|3"); ok {
		t.Error("DeleteEntry left the entry")
	}
}
