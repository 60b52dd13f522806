package switchtwin

import (
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
)

// TestSetYANGRulesByRelease plays the sonic-yang-models rules that depend on other entries or
// on the release, through a real gNMI Set (the seed's PFC_WD|GLOBAL POLL_INTERVAL is 200).
func TestSetYANGRulesByRelease(t *testing.T) {
	type step struct {
		name      string
		update    *gpb.Update
		fragments []string // nil: the Set must succeed
	}
	common := []step{
		{"detection below the poll interval", upd(cfg("PFC_WD", "Ethernet0"), `{"action":"drop","detection_time":"150","restoration_time":"200"}`),
			[]string{"PFC_WD|Ethernet0", "detection_time must be greater than or equal to POLL_INTERVAL"}},
		{"restoration below the poll interval", upd(cfg("PFC_WD", "Ethernet0"), `{"action":"drop","detection_time":"200","restoration_time":"100"}`),
			[]string{"restoration_time must be greater than or equal to POLL_INTERVAL"}},
		{"times at the poll interval", upd(cfg("PFC_WD", "Ethernet0"), `{"action":"drop","detection_time":"200","restoration_time":"200"}`), nil},
		{"poll interval raised above a port's times", upd(cfg("PFC_WD", "GLOBAL", "POLL_INTERVAL"), `"300"`),
			[]string{"PFC_WD|Ethernet0", "detection_time must be greater than or equal to POLL_INTERVAL"}},
		{"big red switch has no YANG leaf", upd(cfg("PFC_WD", "GLOBAL", "BIG_RED_SWITCH"), `"enable"`),
			[]string{"PFC_WD|GLOBAL", "BIG_RED_SWITCH", "unknown field"}},
		{"map name with a dot", upd(cfg("DSCP_TO_TC_MAP", "ROCE.v2"), `{"26":"3"}`),
			[]string{"DSCP_TO_TC_MAP|ROCE.v2", "map name"}},
		{"wred name of 33 characters", upd(cfg("WRED_PROFILE", "ABCDEFGHIJKLMNOPQRSTUVWX_LOSSLESS"), `{"ecn":"ecn_all"}`),
			[]string{"WRED_PROFILE|ABCDEFGHIJKLMNOPQRSTUVWX_LOSSLESS", "key"}},
		{"scheduler name with a dot", upd(cfg("SCHEDULER", "roce.rdma"), `{"type":"DWRR","weight":"50"}`), nil},
	}
	for _, tc := range []struct {
		release string
		steps   []step
	}{
		{"202411", append(common,
			step{"poll interval 1500", upd(cfg("PFC_WD", "GLOBAL", "POLL_INTERVAL"), `"1500"`),
				[]string{"PFC_WD|Ethernet0", "detection_time must be greater than or equal to POLL_INTERVAL"}},
			step{"empty pfc_enable", upd(cfg("PORT_QOS_MAP", "Ethernet0", "pfc_enable"), `""`), []string{"must not be empty before 202505"}},
			step{"pfc_stat_history", upd(cfg("PFC_WD", "Ethernet0", "pfc_stat_history"), `"enable"`), []string{"exists from 202511"}},
		)},
		{"202505", append(common,
			step{"empty pfc_enable", upd(cfg("PORT_QOS_MAP", "Ethernet4", "pfc_enable"), `""`), nil},
		)},
		{"202511", append(common,
			step{"poll interval 1500", upd(cfg("PFC_WD", "GLOBAL", "POLL_INTERVAL"), `"1500"`), []string{"POLL_INTERVAL", "100..1000 on 202511"}},
			step{"pfc_stat_history", upd(cfg("PFC_WD", "Ethernet0", "pfc_stat_history"), `"enable"`), nil},
		)},
	} {
		t.Run(tc.release, func(t *testing.T) {
			tw := startTwin(t, Options{Release: tc.release})
			c := dial(t, tw, nil)
			for _, s := range tc.steps {
				_, err := c.Set(ctxT(t), &gpb.SetRequest{Update: []*gpb.Update{s.update}})
				if s.fragments == nil {
					if err != nil {
						t.Errorf("%s: Set failed: %v", s.name, err)
					}
					continue
				}
				t.Run(s.name, func(t *testing.T) { wantCode(t, err, codes.Unknown, s.fragments...) })
			}
		})
	}
}

// TestSeedIsStock pins seed values against SONiC's stock rendering for the SN5600
// (qos_config.j2: DSCP 5 -> TC 2, lossy PG 0; buffers_defaults_objects.j2: per-port profile
// lists).
func TestSeedIsStock(t *testing.T) {
	s, err := Options{HWSKU: "Mellanox-SN5600-O128", Ports: 4}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	db := seed(s)
	if got := db["DSCP_TO_TC_MAP"]["AZURE"]["5"]; got != "2" {
		t.Errorf("DSCP_TO_TC_MAP|AZURE 5 -> %q, want 2", got)
	}
	if got := db["TC_TO_PRIORITY_GROUP_MAP"]["AZURE"]["2"]; got != "0" {
		t.Errorf("TC_TO_PRIORITY_GROUP_MAP|AZURE 2 -> %q, want 0 (lossy)", got)
	}
	if got := db["BUFFER_PORT_INGRESS_PROFILE_LIST"]["Ethernet0"]["profile_list"]; got != "ingress_lossless_profile,ingress_lossy_profile" {
		t.Errorf("ingress profile list %q", got)
	}
	if got := db["BUFFER_PORT_EGRESS_PROFILE_LIST"]["Ethernet0"]["profile_list"]; got != "egress_lossless_profile,egress_lossy_profile" {
		t.Errorf("egress profile list %q", got)
	}
}
