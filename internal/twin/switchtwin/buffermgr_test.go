package switchtwin

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestPGRanges(t *testing.T) {
	for in, want := range map[string][]string{
		"3,4": {"3-4"}, "3": {"3"}, "2,3,4,6": {"2-4", "6"}, "": nil, "x,3": {"3"}, "0,7": {"0", "7"},
	} {
		if got := pgRanges(in); !slices.Equal(got, want) {
			t.Errorf("pgRanges(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestBufferManager drives the twin's buffermgrd through real gNMI Sets and checks what it
// derives into CONFIG_DB (sonic-swss cfgmgr/buffermgr.cpp).
func TestBufferManager(t *testing.T) {
	set := func(t *testing.T, tw *Twin, u *gpb.Update) {
		t.Helper()
		if _, err := dial(t, tw, nil).Set(ctxT(t), &gpb.SetRequest{Update: []*gpb.Update{u}}); err != nil {
			t.Fatalf("Set: %v", err)
		}
	}
	pg := func(tw *Twin, key string) string {
		e, _ := tw.Entry("BUFFER_PG", key)
		return e["profile"]
	}
	logged := func(t *testing.T, tw *Twin, want string) {
		t.Helper()
		if !slices.ContainsFunc(tw.BufferManagerLog(), func(l string) bool { return strings.Contains(l, want) }) {
			t.Errorf("buffer manager log lacks %q: %q", want, tw.BufferManagerLog())
		}
	}
	t.Run("narrowing pfc_enable leaves the old PG", func(t *testing.T) {
		tw := startTwin(t, Options{Release: "202511"})
		set(t, tw, upd(cfg("PORT_QOS_MAP", "Ethernet0", "pfc_enable"), `"3"`))
		if got := pg(tw, "Ethernet0|3"); got != "pg_lossless_400000_5m_profile" {
			t.Errorf("BUFFER_PG|Ethernet0|3 = %q", got)
		}
		if got := pg(tw, "Ethernet0|3-4"); got != "pg_lossless_400000_5m_profile" {
			t.Errorf("BUFFER_PG|Ethernet0|3-4 = %q, want it left in place", got)
		}
		logged(t, tw, "Reusing existing profile 'pg_lossless_400000_5m_profile'")
	})
	t.Run("two lossless priorities make one group", func(t *testing.T) {
		// A port without lossless priorities that gets pfc_enable "3,4" (two lossless
		// classes) gets one BUFFER_PG for the run 3-4 with the port's profile, as
		// doSpeedUpdateTask keys it through generateIdListFromMap, and none for 3 or 4 alone.
		tw := startTwin(t, Options{Release: "202511"})
		qos, _ := tw.Entry("PORT_QOS_MAP", "Ethernet0")
		delete(qos, "pfc_enable")
		tw.SetEntry("PORT_QOS_MAP", "Ethernet0", qos)
		tw.DeleteEntry("BUFFER_PG", "Ethernet0|3-4")
		set(t, tw, upd(cfg("PORT_QOS_MAP", "Ethernet0", "pfc_enable"), `"3,4"`))
		if got := pg(tw, "Ethernet0|3-4"); got != "pg_lossless_400000_5m_profile" {
			t.Errorf("BUFFER_PG|Ethernet0|3-4 = %q", got)
		}
		for _, key := range []string{"Ethernet0|3", "Ethernet0|4"} {
			if _, ok := tw.Entry("BUFFER_PG", key); ok {
				t.Errorf("BUFFER_PG|%s exists; buffermgrd writes one group per run of priorities", key)
			}
		}
	})
	t.Run("cable change cached before 202511", func(t *testing.T) {
		tw := startTwin(t, Options{Release: "202411"})
		set(t, tw, upd(cfg("CABLE_LENGTH", "AZURE", "Ethernet0"), `"40m"`))
		if got := pg(tw, "Ethernet0|3-4"); got != "pg_lossless_400000_5m_profile" {
			t.Errorf("after the cable change alone, BUFFER_PG|Ethernet0|3-4 = %q, want the cached 5m profile", got)
		}
		set(t, tw, upd(cfg("PORT", "Ethernet0", "mtu"), `"9000"`)) // any PORT event
		if got := pg(tw, "Ethernet0|3-4"); got != "pg_lossless_400000_40m_profile" {
			t.Errorf("after a PORT event, BUFFER_PG|Ethernet0|3-4 = %q", got)
		}
		if p, _ := tw.Entry("BUFFER_PROFILE", "pg_lossless_400000_40m_profile"); p["xoff"] != "283648" || p["size"] != "303104" || p["pool"] != "ingress_lossless_pool" {
			t.Errorf("40m profile = %v", p)
		}
	})
	t.Run("cable change applied from 202511", func(t *testing.T) {
		tw := startTwin(t, Options{Release: "202511"})
		set(t, tw, upd(cfg("CABLE_LENGTH", "AZURE", "Ethernet0"), `"300m"`))
		if got := pg(tw, "Ethernet0|3-4"); got != "pg_lossless_400000_300m_profile" {
			t.Errorf("BUFFER_PG|Ethernet0|3-4 = %q", got)
		}
	})
	t.Run("no lookup row", func(t *testing.T) {
		tw := startTwin(t, Options{Release: "202511"})
		set(t, tw, upd(cfg("CABLE_LENGTH", "AZURE", "Ethernet0"), `"10m"`))
		logged(t, tw, "Unable to create/update PG profile for port Ethernet0. No PG profile configured for speed 400000 and cable length 10m")
		if _, ok := tw.Entry("BUFFER_PROFILE", "pg_lossless_400000_10m_profile"); ok {
			t.Error("a 10m profile was created")
		}
	})
}

// TestDynamicBufferManager drives the twin's buffermgrdyn through real gNMI Sets and reads its
// APPL_DB results back over gNMI Get (sonic-swss cfgmgr/buffermgrdyn.cpp and
// buffer_headroom_mellanox.lua; the figures are the script's, worked by hand).
func TestDynamicBufferManager(t *testing.T) {
	set := func(t *testing.T, tw *Twin, u *gpb.Update) {
		t.Helper()
		if _, err := dial(t, tw, nil).Set(ctxT(t), &gpb.SetRequest{Update: []*gpb.Update{u}}); err != nil {
			t.Fatalf("Set: %v", err)
		}
	}
	applTable := func(t *testing.T, tw *Twin, table string) map[string]map[string]string {
		t.Helper()
		resp, err := dial(t, tw, nil).Get(ctxT(t), &gpb.GetRequest{Encoding: gpb.Encoding_JSON_IETF,
			Path: []*gpb.Path{{Origin: "sonic-db", Elem: []*gpb.PathElem{{Name: "APPL_DB"}, {Name: "localhost"}, {Name: table}}}}})
		if err != nil {
			t.Fatalf("Get APPL_DB %s: %v", table, err)
		}
		out := map[string]map[string]string{}
		if n := resp.GetNotification(); len(n) > 0 {
			if err := json.Unmarshal(n[0].GetUpdate()[0].GetVal().GetJsonIetfVal(), &out); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	profileOf := func(t *testing.T, tw *Twin, key string) (string, map[string]string) {
		t.Helper()
		name := applTable(t, tw, applBufferPG)[key]["profile"]
		return name, applTable(t, tw, applBufferProfile)[name]
	}
	want := func(t *testing.T, got map[string]string, xon, xoff, size string) {
		t.Helper()
		if got["xon"] != xon || got["xoff"] != xoff || got["size"] != size || got["pool"] != "ingress_lossless_pool" || got["dynamic_th"] != "0" {
			t.Errorf("profile = %v, want xon %s xoff %s size %s", got, xon, xoff, size)
		}
	}

	t.Run("seed: every port's 3-4 is lossless at 5m, in APPL_DB only", func(t *testing.T) {
		tw := startTwin(t, Options{Release: "202511", BufferModel: BufferModelDynamic})
		name, p := profileOf(t, tw, "Ethernet0:3-4")
		if name != "pg_lossless_400000_5m_profile" {
			t.Fatalf("BUFFER_PG_TABLE:Ethernet0:3-4 = %q", name)
		}
		want(t, p, "19456", "96256", "115712")
		if e, _ := tw.Entry("BUFFER_PG", "Ethernet0|3-4"); e["profile"] != "NULL" {
			t.Errorf("CONFIG_DB BUFFER_PG|Ethernet0|3-4 = %v, want profile NULL", e)
		}
		if _, ok := tw.Entry("BUFFER_PROFILE", "pg_lossless_400000_5m_profile"); ok {
			t.Error("the dynamic manager wrote a profile into CONFIG_DB")
		}
		if got := applTable(t, tw, applBufferPG)["Ethernet0:0"]["profile"]; got != "ingress_lossy_profile" {
			t.Errorf("the lossy group Ethernet0:0 = %q", got)
		}
	})
	t.Run("master adds the 2 KiB compensation", func(t *testing.T) {
		tw := startTwin(t, Options{Release: "master", BufferModel: BufferModelDynamic})
		_, p := profileOf(t, tw, "Ethernet0:3-4")
		want(t, p, "19456", "98304", "117760")
	})
	t.Run("800G on 8 lanes doubles xon and adds an MTU", func(t *testing.T) {
		tw := startTwin(t, Options{Release: "202411", HWSKU: "ACS-SN5600", BufferModel: BufferModelDynamic})
		name, p := profileOf(t, tw, "Ethernet8:3-4")
		if name != "pg_lossless_800000_5m_profile" {
			t.Fatalf("profile = %q", name)
		}
		want(t, p, "38912", "106496", "154624")
	})
	t.Run("a cable change moves the port at once and releases an unused profile", func(t *testing.T) {
		tw := startTwin(t, Options{Release: "202411", Ports: 2, BufferModel: BufferModelDynamic})
		set(t, tw, upd(cfg("CABLE_LENGTH", "AZURE", "Ethernet0"), `"40m"`))
		name, p := profileOf(t, tw, "Ethernet0:3-4")
		if name != "pg_lossless_400000_40m_profile" {
			t.Fatalf("Ethernet0 = %q", name)
		}
		want(t, p, "19456", "117760", "137216")
		if name, _ := profileOf(t, tw, "Ethernet4:3-4"); name != "pg_lossless_400000_5m_profile" {
			t.Errorf("Ethernet4 = %q, want the 5m profile kept", name)
		}
		set(t, tw, upd(cfg("CABLE_LENGTH", "AZURE", "Ethernet4"), `"40m"`))
		if _, ok := applTable(t, tw, applBufferProfile)["pg_lossless_400000_5m_profile"]; ok {
			t.Error("the 5m profile no group uses was not released")
		}
	})
	t.Run("an existing profile is reused as it is", func(t *testing.T) {
		tw := startTwin(t, Options{Release: "202511", Ports: 2, BufferModel: BufferModelDynamic})
		set(t, tw, upd(cfg("LOSSLESS_TRAFFIC_PATTERN", "AZURE", "small_packet_percentage"), `"100"`))
		_, p := profileOf(t, tw, "Ethernet0:3-4")
		want(t, p, "19456", "96256", "115712") // still the p = 50 values
		set(t, tw, upd(cfg("CABLE_LENGTH", "AZURE", "Ethernet0"), `"300m"`))
		_, p = profileOf(t, tw, "Ethernet0:3-4")
		want(t, p, "19456", "677888", "697344") // a new profile takes the new pattern: the lookup row
	})
	t.Run("an administratively down port has no groups", func(t *testing.T) {
		tw := startTwin(t, Options{Release: "202511", Ports: 2, BufferModel: BufferModelDynamic})
		set(t, tw, upd(cfg("PORT", "Ethernet0", "admin_status"), `"down"`))
		if _, ok := applTable(t, tw, applBufferPG)["Ethernet0:3-4"]; ok {
			t.Error("Ethernet0:3-4 stayed in APPL_DB")
		}
	})
	for rel, kept := range map[string]bool{"202411": true, "202505": false} {
		t.Run("0m on "+rel, func(t *testing.T) {
			tw := startTwin(t, Options{Release: rel, Ports: 1, BufferModel: BufferModelDynamic})
			set(t, tw, upd(cfg("CABLE_LENGTH", "AZURE", "Ethernet0"), `"0m"`))
			name, _ := profileOf(t, tw, "Ethernet0:3-4")
			if kept && name != "pg_lossless_400000_0m_profile" || !kept && name != "" {
				t.Errorf("Ethernet0:3-4 at 0m = %q (kept %v)", name, kept)
			}
		})
	}
	t.Run("one Get reads one database", func(t *testing.T) {
		tw := startTwin(t, Options{BufferModel: BufferModelDynamic})
		_, err := dial(t, tw, nil).Get(ctxT(t), &gpb.GetRequest{Encoding: gpb.Encoding_JSON_IETF, Path: []*gpb.Path{
			{Origin: "sonic-db", Elem: []*gpb.PathElem{{Name: "CONFIG_DB"}, {Name: "localhost"}, {Name: "PORT"}}},
			{Origin: "sonic-db", Elem: []*gpb.PathElem{{Name: "APPL_DB"}, {Name: "localhost"}, {Name: applBufferPG}}},
		}})
		if status.Code(err) != codes.Unimplemented || !strings.Contains(err.Error(), "Target conflict in path") {
			t.Fatalf("mixed Get: %v", err)
		}
	})
}
