package sonic

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
)

// dynamicDB is CONFIG_DB as an SN5600 renders it in the dynamic model
// (sonic-buildimage files/build_templates/buffers_config.j2 with dynamic_mode).
func dynamicDB() DB {
	db := DB{}
	db.SetEntry("DEVICE_METADATA", "localhost", Entry{"platform": "x86_64-nvidia_sn5600-r0", "buffer_model": "dynamic"})
	db.SetEntry("LOSSLESS_TRAFFIC_PATTERN", "AZURE", Entry{"mtu": "1024", "small_packet_percentage": "50"})
	db.SetEntry("DEFAULT_LOSSLESS_BUFFER_PARAMETER", "AZURE", Entry{"default_dynamic_th": "0"})
	db.SetEntry("BUFFER_POOL", "ingress_lossless_pool", Entry{"type": "ingress", "mode": "dynamic"})
	return db
}

func TestDynamicLosslessProfile(t *testing.T) {
	master, _ := ParseRelease("master")
	r202511, _ := ParseRelease("202511")
	tests := []struct {
		name     string
		rel      Release
		edit     func(DB)
		port     DynamicPort
		profile  string
		headroom fabric.Headroom
	}{
		{"400G 4 lanes 5m on 202511", r202511, nil, DynamicPort{SpeedMbps: 400000, MTU: 9100, Lanes: 4, Cable: "5m"},
			"pg_lossless_400000_5m_profile", fabric.Headroom{XonBytes: 19456, XoffBytes: 96256, SizeBytes: 115712}},
		{"same port on master compensates", master, nil, DynamicPort{SpeedMbps: 400000, MTU: 9100, Lanes: 4, Cable: "5m"},
			"pg_lossless_400000_5m_profile", fabric.Headroom{XonBytes: 19456, XoffBytes: 98304, SizeBytes: 117760}},
		{"800G on 8 lanes has no _8lane on a 5xxx model", r202511, nil, DynamicPort{SpeedMbps: 800000, MTU: 9100, Lanes: 8, Cable: "40m"},
			"pg_lossless_800000_40m_profile", fabric.Headroom{XonBytes: 38912, XoffBytes: 150528, SizeBytes: 198656}},
		{"400G on 8 lanes of a 5xxx model is _8lane", r202511, nil, DynamicPort{SpeedMbps: 400000, MTU: 9100, Lanes: 8, Cable: "5m"},
			"pg_lossless_400000_5m_8lane_profile", fabric.Headroom{XonBytes: 38912, XoffBytes: 96256, SizeBytes: 144384}},
		{"a port MTU other than 9100 is in the name", r202511, nil, DynamicPort{SpeedMbps: 400000, MTU: 1500, Lanes: 4, Cable: "5m"},
			"pg_lossless_400000_5m_mtu1500_profile", fabric.Headroom{XonBytes: 19456, XoffBytes: 86016, SizeBytes: 105472}},
		{"an over_subscribe_ratio enables the shared headroom pool", master, func(db DB) {
			db["DEFAULT_LOSSLESS_BUFFER_PARAMETER"]["AZURE"]["over_subscribe_ratio"] = "1"
		}, DynamicPort{SpeedMbps: 400000, MTU: 9100, Lanes: 4, Cable: "5m"},
			"pg_lossless_400000_5m_profile", fabric.Headroom{XonBytes: 19456, XoffBytes: 96256, SizeBytes: 19456}},
		{"a pool xoff enables it too", r202511, func(db DB) {
			db["BUFFER_POOL"]["ingress_lossless_pool"]["xoff"] = "60293120"
		}, DynamicPort{SpeedMbps: 800000, MTU: 9100, Lanes: 8, Cable: "300m"},
			"pg_lossless_800000_300m_profile", fabric.Headroom{XonBytes: 38912, XoffBytes: 474112, SizeBytes: 38912}},
		{"the worst-case pattern gives the lookup row", r202511, func(db DB) {
			db["LOSSLESS_TRAFFIC_PATTERN"]["AZURE"]["small_packet_percentage"] = "100"
		}, DynamicPort{SpeedMbps: 400000, MTU: 9100, Lanes: 4, Cable: "300m"},
			"pg_lossless_400000_300m_profile", fabric.Headroom{XonBytes: 19456, XoffBytes: 677888, SizeBytes: 697344}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := dynamicDB()
			if tt.edit != nil {
				tt.edit(db)
			}
			d, err := ReadDynamicBuffer(db, tt.rel)
			if err != nil {
				t.Fatal(err)
			}
			name, h, err := d.LosslessProfile(tt.port)
			if err != nil {
				t.Fatal(err)
			}
			if name != tt.profile {
				t.Errorf("profile = %q, want %q", name, tt.profile)
			}
			if diff := cmp.Diff(tt.headroom, h); diff != "" {
				t.Errorf("headroom (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadDynamicBufferRefusesWhatTheSwitchLacks(t *testing.T) {
	rel, _ := ParseRelease("202505")
	tests := []struct {
		name string
		edit func(DB)
		want string
	}{
		{"no pattern", func(db DB) { delete(db, "LOSSLESS_TRAFFIC_PATTERN") }, "no LOSSLESS_TRAFFIC_PATTERN"},
		{"no default threshold", func(db DB) { delete(db, "DEFAULT_LOSSLESS_BUFFER_PARAMETER") }, "default threshold is not ready"},
		{"bad pattern", func(db DB) { db["LOSSLESS_TRAFFIC_PATTERN"]["AZURE"]["mtu"] = "big" }, `mtu "big" is not a number`},
		{"not Spectrum-4", func(db DB) { db["DEVICE_METADATA"]["localhost"]["platform"] = "x86_64-mlnx_msn2700-r0" }, "not a Spectrum-4 switch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := dynamicDB()
			tt.edit(db)
			if _, err := ReadDynamicBuffer(db, rel); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestModelNumberAndLanes(t *testing.T) {
	for platform, want := range map[string]int{"x86_64-nvidia_sn5600-r0": 5600, "x86_64-mlnx_msn2700-r0": 2700, "x86_64-nvidia_sn5610n-r0": 5610, "vs": 0, "x86_64-sn5": 0} {
		if got := modelNumber(platform); got != want {
			t.Errorf("modelNumber(%q) = %d, want %d", platform, got, want)
		}
	}
	for lanes, want := range map[string]int{"": 0, "0": 1, "0,1,2,3": 4, "0,1,2,3,4,5,6,7": 8} {
		if got := PortLanes(lanes); got != want {
			t.Errorf("PortLanes(%q) = %d, want %d", lanes, got, want)
		}
	}
}
