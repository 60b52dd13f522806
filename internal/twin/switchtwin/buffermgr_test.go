package switchtwin

import (
	"slices"
	"strings"
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
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
	t.Run("dynamic model", func(t *testing.T) {
		tw := startTwin(t, Options{Release: "202511"})
		tw.SetEntry("DEVICE_METADATA", "localhost", func() map[string]string {
			e, _ := tw.Entry("DEVICE_METADATA", "localhost")
			e["buffer_model"] = "dynamic"
			return e
		}())
		set(t, tw, upd(cfg("PORT_QOS_MAP", "Ethernet0", "pfc_enable"), `"3"`))
		if _, ok := tw.Entry("BUFFER_PG", "Ethernet0|3"); ok {
			t.Error("the traditional buffer manager ran in the dynamic model")
		}
	})
}
