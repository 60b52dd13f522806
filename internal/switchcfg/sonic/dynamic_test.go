package sonic

import (
	"strconv"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	sonicmodel "github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// TestDynamicModelHeadroomIsWhatTheSwitchReserves applies a policy to a dynamic-model twin
// and checks that the planned headroom is the profile buffermgrdyn wrote into APPL_DB for
// every port, on a release without and one with the reduced-pattern compensation.
func TestDynamicModelHeadroomIsWhatTheSwitchReserves(t *testing.T) {
	for _, rel := range []string{"202411", "master"} {
		t.Run(rel, func(t *testing.T) {
			tw, b := startTwin(t, switchtwin.Options{Release: rel, Ports: 4, BufferModel: switchtwin.BufferModelDynamic})
			p := testPolicy()
			p.CableLengthM = 40
			o := observe(t, b)
			if fs := o.Facts.CheckCableLength(p, 0); fs != nil {
				t.Fatalf("CheckCableLength: %v", fs)
			}
			h, fs := o.Facts.Headroom(p, 0)
			if fs.HasErrors() {
				t.Fatalf("Headroom: %v", fs)
			}
			c, err := o.plan(p)
			if err != nil {
				t.Fatal(err)
			}
			apply(t, b, c)
			appl := tw.ApplDB()
			for _, port := range p.Ports {
				name := appl["BUFFER_PG_TABLE"][port+":3-4"]["profile"]
				got := appl["BUFFER_PROFILE_TABLE"][name]
				if name != "pg_lossless_400000_40m_profile" || got["size"] != strconv.FormatInt(h.SizeBytes, 10) || got["xoff"] != strconv.FormatInt(h.XoffBytes, 10) || got["xon"] != strconv.FormatInt(h.XonBytes, 10) {
					t.Errorf("%s: APPL_DB %s %v, planned headroom %+v", port, name, got, h)
				}
			}
			if want := map[string]int64{"202411": 117760, "master": 119808}[rel]; h.XoffBytes != want {
				t.Errorf("xoff %d, want %d", h.XoffBytes, want)
			}
			if got := observe(t, b).CheckLossless(p); got != nil {
				t.Errorf("CheckLossless after apply: %+v", got)
			}
		})
	}
}

func TestDynamicModelReadBack(t *testing.T) {
	t.Run("a port whose group the buffer manager left out is fatal", func(t *testing.T) {
		tw, b := startTwin(t, switchtwin.Options{Release: "202505", Ports: 2, BufferModel: switchtwin.BufferModelDynamic})
		p := testPolicy()
		p.Ports = []string{"Ethernet0", "Ethernet4"}
		c, err := observe(t, b).plan(p)
		if err != nil {
			t.Fatal(err)
		}
		apply(t, b, c)
		// An operator shuts Ethernet4 down: buffermgrd removes its groups from APPL_DB.
		e, _ := tw.Entry("PORT", "Ethernet4")
		e["admin_status"] = "down"
		tw.SetEntry("PORT", "Ethernet4", e)
		got := observe(t, b).CheckLossless(p)
		if len(got) != 1 || got[0].Port != "Ethernet4" || !got[0].Fatal {
			t.Fatalf("problems %+v", got)
		}
	})
	t.Run("a profile reused from before a pattern change is reported", func(t *testing.T) {
		db := sonicmodel.DB{}
		db.SetEntry(tableDeviceMetadata, "localhost", sonicmodel.Entry{"platform": "x86_64-nvidia_sn5600-r0", "buffer_model": "dynamic"})
		db.SetEntry(tableVersions, "DATABASE", sonicmodel.Entry{"VERSION": "version_202505_01"})
		db.SetEntry(tablePort, "Ethernet0", sonicmodel.Entry{"speed": "400000", "mtu": "9100", "lanes": "0,1,2,3"})
		db.SetEntry(tableTrafficPattern, "AZURE", sonicmodel.Entry{"mtu": "1024", "small_packet_percentage": "100"})
		db.SetEntry(tableLosslessParams, "AZURE", sonicmodel.Entry{"default_dynamic_th": "0"})
		f, err := factsFrom(db, sonicmodel.Release{})
		if err != nil {
			t.Fatal(err)
		}
		appl := sonicmodel.DB{}
		appl.SetEntry(applBufferPG, "Ethernet0:3-4", sonicmodel.Entry{"profile": "pg_lossless_400000_5m_profile"})
		appl.SetEntry(applBufferProfile, "pg_lossless_400000_5m_profile", sonicmodel.Entry{"xon": "19456", "xoff": "96256", "size": "115712"})
		o := sonicObservation{Facts: f, db: db, appl: appl}
		p := switchcfg.Policy{Ports: []string{"Ethernet0"}, CableLengthM: 5, Class: fabric.TrafficClass{Priority: 3}}
		got := o.CheckLossless(p)
		if len(got) != 1 || got[0].Fatal || !strings.Contains(got[0].Detail, "not the 19456, 230400, 249856 the buffer manager computes now") {
			t.Fatalf("problems %+v", got)
		}
		delete(appl[applBufferPG], "Ethernet0:3-4")
		got = o.CheckLossless(p)
		if len(got) != 1 || !got[0].Fatal || !strings.Contains(got[0].Detail, "no lossless priority group for priority 3 in APPL_DB") {
			t.Fatalf("problems %+v", got)
		}
	})
}
