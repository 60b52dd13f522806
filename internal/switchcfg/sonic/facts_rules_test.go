package sonic

import (
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	sonicmodel "github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg/switchcfgtest"
)

// TestCheckWatchdog: sonic-pfcwd.yang's must (detection and restoration time >= GLOBAL
// POLL_INTERVAL, and nothing passes when GLOBAL lacks POLL_INTERVAL).
func TestCheckWatchdog(t *testing.T) {
	p := switchcfg.Policy{Watchdog: &switchcfg.Watchdog{Action: "drop", DetectionTimeMs: 100, RestoreTimeMs: 400}}
	for _, tc := range []struct {
		name  string
		facts Facts
		want  []string // substrings, "" for none
	}{
		{"no GLOBAL row: no constraint", Facts{}, nil},
		{"below the poll interval", Facts{WatchdogGlobal: true, PollIntervalMs: 200},
			[]string{"error: Policy.Watchdog.DetectionTimeMs: Watchdog Time Below Poll Interval", "100 ms, below", "POLL_INTERVAL 200 ms", "use 200 or more"}},
		{"at the poll interval", Facts{WatchdogGlobal: true, PollIntervalMs: 100}, nil},
		{"GLOBAL without POLL_INTERVAL", Facts{WatchdogGlobal: true, HWSKU: "ACS-SN5600"},
			[]string{"error: Policy.Watchdog: Switch Has No Watchdog Poll Interval", "config pfcwd interval"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := switchcfgtest.ViolationText(tc.facts.CheckWatchdog(p))
			if len(tc.want) == 0 && got != "" {
				t.Fatalf("findings:\n%s", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("findings lack %q:\n%s", w, got)
				}
			}
		})
	}
	if fs := (Facts{WatchdogGlobal: true, PollIntervalMs: 500}).CheckWatchdog(switchcfg.Policy{}); fs != nil {
		t.Errorf("no watchdog, findings %v", fs)
	}
}

// TestCheckCableLength: the traditional buffer manager's exact lookup in the SKU's
// pg_profile_lookup.ini (sonic-buildimage device/mellanox/x86_64-nvidia_sn5600-r0).
func TestCheckCableLength(t *testing.T) {
	o128 := Facts{HWSKU: "Mellanox-SN5600-O128", BufferModel: BufferModelTraditional,
		Ports: map[string]PortFacts{"Ethernet0": {SpeedGbps: 400, MTU: 9100}, "Ethernet4": {SpeedGbps: 400, MTU: 9100}}}
	dynamic := o128
	dynamic.BufferModel = BufferModelDynamic
	lossy := o128
	lossy.HWSKU = "Mellanox-SN5600-C256S1"
	unknown := o128
	unknown.HWSKU = "Some-Other-SKU"
	ports := []string{"Ethernet0", "Ethernet4"}
	for _, tc := range []struct {
		name  string
		facts Facts
		cable int
		speed int
		want  []string
	}{
		{"row 5m", o128, 5, 0, nil},
		{"row 40m", o128, 40, 0, nil},
		{"row 300m", o128, 300, 0, nil},
		{"no row 10m", o128, 10, 0, []string{"error: Policy.CableLengthM: No Lossless Profile for Cable Length", "has none for 10m at 400G (port Ethernet0)", "Use 5, 40 or 300"}},
		{"speed override without the row", o128, 100, 800, []string{"none for 100m at 800G", "Use 5, 40 or 300"}},
		{"zero", o128, 0, 0, []string{"error: Policy.CableLengthM: No Lossless Buffer at 0 m"}},
		{"dynamic any length", dynamic, 17, 0, nil},
		{"dynamic zero", dynamic, 0, 0, []string{"No Lossless Buffer at 0 m"}},
		{"lossy SKU", lossy, 5, 0, []string{"error: Policy.Ports: Lossy SKU"}},
		{"unknown SKU", unknown, 10, 0, []string{"warning: Policy.CableLengthM: Cable Length Not Checked"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := switchcfgtest.ViolationText(tc.facts.CheckCableLength(switchcfg.Policy{Ports: ports, CableLengthM: tc.cable}, tc.speed))
			if len(tc.want) == 0 && got != "" {
				t.Fatalf("findings:\n%s", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("findings lack %q:\n%s", w, got)
				}
			}
			if strings.Count(got, "No Lossless Profile") > 1 {
				t.Errorf("one finding per speed, got:\n%s", got)
			}
		})
	}
}

// TestHeadroomIsTheLookupRow: in the traditional model the headroom is what buffermgrd
// copies from pg_profile_lookup.ini (400G 40m: size 303104, xon 19456, xoff 283648).
func TestHeadroomIsTheLookupRow(t *testing.T) {
	f := Facts{HWSKU: "Mellanox-SN5600-O128", Platform: "x86_64-nvidia_sn5600-r0", BufferModel: BufferModelTraditional,
		Ports: map[string]PortFacts{"Ethernet0": {SpeedGbps: 400, MTU: 9100}}}
	h, _ := f.Headroom(switchcfg.Policy{Ports: []string{"Ethernet0"}, CableLengthM: 40}, 0)
	if want := (fabric.Headroom{XonBytes: 19456, XoffBytes: 283648, SizeBytes: 303104}); h != want {
		t.Errorf("headroom %+v, want %+v", h, want)
	}
	f.HWSKU = "Mellanox-SN5600-V256" // shared headroom pool: size = xon
	h, _ = f.Headroom(switchcfg.Policy{Ports: []string{"Ethernet0"}, CableLengthM: 300}, 0)
	if want := (fabric.Headroom{XonBytes: 19456, XoffBytes: 455680, SizeBytes: 19456}); h != want {
		t.Errorf("V256 headroom %+v, want %+v", h, want)
	}
}

// TestPFCEnableNeverNarrowed: the port's lossless list is kept when it has the RDMA priority
// (buffermgrd keys BUFFER_PG by it and never deletes an old key), set on a port without one,
// and a port whose list lacks the priority is refused.
func TestPFCEnableNeverNarrowed(t *testing.T) {
	f := Facts{PFCEnable: map[string]string{"Ethernet0": "3,4", "Ethernet4": "", "Ethernet8": "4"}}
	for _, tc := range []struct {
		port string
		want string
	}{{"Ethernet0", "3,4"}, {"Ethernet4", "3"}, {"Ethernet12", "3"}} {
		if got := f.losslessValue(tc.port, []int{3}); got != tc.want {
			t.Errorf("losslessValue(%s, 3) = %q, want %q", tc.port, got, tc.want)
		}
	}
	if fs := f.CheckPFCEnable(switchcfg.Policy{Ports: []string{"Ethernet0", "Ethernet4", "Ethernet12"}, Class: fabric.TrafficClass{Priority: 3}}); fs != nil {
		t.Errorf("priority 3: %s", switchcfgtest.ViolationText(fs))
	}
	got := switchcfgtest.ViolationText(f.CheckPFCEnable(switchcfg.Policy{Ports: []string{"Ethernet0", "Ethernet8"}, Class: fabric.TrafficClass{Priority: 3}}))
	for _, w := range []string{"error: TrafficClass.Priority: RDMA Priority Not Lossless on the Ports", `Ethernet8 (pfc_enable "4")`, "never removes the old ones"} {
		if !strings.Contains(got, w) {
			t.Errorf("findings lack %q:\n%s", w, got)
		}
	}
	if strings.Contains(got, "Ethernet0") {
		t.Errorf("Ethernet0 has 3: %s", got)
	}
}

func TestCheckSharedWRED(t *testing.T) {
	rel := func(s string) sonicmodel.Release {
		r, err := sonicmodel.ParseRelease(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	queues := []string{"Ethernet0|3", "Ethernet0|4", "Ethernet4|3", "Ethernet4|4", "Ethernet8|3"}
	p := switchcfg.Policy{Ports: []string{"Ethernet0", "Ethernet4"}, Class: fabric.TrafficClass{Priority: 3}}
	got := switchcfgtest.ViolationText(Facts{Release: rel("202411"), StockWREDQueues: queues}.CheckSharedWRED(p))
	for _, w := range []string{"warning: Policy.ECN: Shared WRED Profile", "AZURE_LOSSLESS", "3 other queues use it: QUEUE Ethernet0|4, Ethernet4|4, Ethernet8|3."} {
		if !strings.Contains(got, w) {
			t.Errorf("findings lack %q:\n%s", w, got)
		}
	}
	if fs := (Facts{Release: rel("202511"), StockWREDQueues: queues}).CheckSharedWRED(p); fs != nil {
		t.Errorf("202511 owns its profile: %s", switchcfgtest.ViolationText(fs))
	}
}

// TestCheckLossless reads BUFFER_PG as buffermgrd leaves it: a missing group is fatal, one
// with the profile of another cable length (a change cached before 202511) is a warning.
func TestCheckLossless(t *testing.T) {
	rel, _ := sonicmodel.ParseRelease("202411")
	db := sonicmodel.DB{}
	db.SetEntry(tablePort, "Ethernet0", sonicmodel.Entry{"speed": "400000"})
	db.SetEntry(tablePort, "Ethernet4", sonicmodel.Entry{"speed": "400000"})
	db.SetEntry(tablePort, "Ethernet8", sonicmodel.Entry{"speed": "400000"})
	db.SetEntry(tableBufferProfile, "pg_lossless_400000_5m_profile", sonicmodel.Entry{"size": "250880"})
	db.SetEntry(tableBufferProfile, "pg_lossless_400000_40m_profile", sonicmodel.Entry{"size": "303104"})
	db.SetEntry(tableBufferPG, "Ethernet0|3-4", sonicmodel.Entry{"profile": "pg_lossless_400000_40m_profile"})
	db.SetEntry(tableBufferPG, "Ethernet4|3-4", sonicmodel.Entry{"profile": "pg_lossless_400000_5m_profile"})
	db.SetEntry(tableBufferPG, "Ethernet8|0", sonicmodel.Entry{"profile": "ingress_lossy_profile"})
	o := sonicObservation{Facts: Facts{Release: rel, BufferModel: BufferModelTraditional}, db: db}
	got := o.CheckLossless(switchcfg.Policy{Ports: []string{"Ethernet0", "Ethernet4", "Ethernet8"}, CableLengthM: 40, Class: fabric.TrafficClass{Priority: 3}})
	if len(got) != 2 {
		t.Fatalf("problems %+v", got)
	}
	if p := got[0]; p.Port != "Ethernet4" || p.Fatal || !strings.Contains(p.Detail, "uses pg_lossless_400000_5m_profile, not pg_lossless_400000_40m_profile") || !strings.Contains(p.Detail, "next PORT update") {
		t.Errorf("Ethernet4: %+v", p)
	}
	if p := got[1]; p.Port != "Ethernet8" || !p.Fatal || !strings.Contains(p.Detail, "no BUFFER_PG for priority 3") {
		t.Errorf("Ethernet8: %+v", p)
	}
}
