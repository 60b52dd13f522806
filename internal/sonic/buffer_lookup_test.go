package sonic

import (
	"slices"
	"testing"
)

// TestLookupLossless pins rows of the SN5600 pg_profile_lookup.ini tables (sonic-buildimage
// device/mellanox/x86_64-nvidia_sn5600-r0, the same blobs at 202411 .. master).
func TestLookupLossless(t *testing.T) {
	for _, tc := range []struct {
		sku, cable string
		speed      int
		want       LosslessRow
	}{
		{"ACS-SN5600", "5m", 400000, LosslessRow{400000, "5m", 250880, 19456, 231424}},
		{"Mellanox-SN5600-O128", "40m", 400000, LosslessRow{400000, "40m", 303104, 19456, 283648}},
		{"ACS-SN5600", "40m", 800000, LosslessRow{800000, "40m", 410624, 38912, 362496}},
		{"Mellanox-SN5600-V256", "300m", 400000, LosslessRow{400000, "300m", 19456, 19456, 455680}},
	} {
		l, ok := LookupLossless(tc.sku)
		if !ok {
			t.Fatalf("no table for %s", tc.sku)
		}
		got, ok := l.Row(tc.speed, tc.cable)
		if !ok || got != tc.want {
			t.Errorf("%s %d %s = %+v, %v; want %+v", tc.sku, tc.speed, tc.cable, got, ok, tc.want)
		}
	}
	l, _ := LookupLossless("Mellanox-SN5600-O128")
	if _, ok := l.Row(400000, "10m"); ok {
		t.Error("10m has a row; buffermgrd's lookup is exact")
	}
	if got := l.Cables(400000); !slices.Equal(got, []string{"5m", "40m", "300m"}) {
		t.Errorf("Cables(400G) = %v", got)
	}
	if l, ok := LookupLossless("Mellanox-SN5600-C256S1"); !ok || !l.Lossy {
		t.Errorf("C256S1 = %+v, %v; want a lossy SKU", l, ok)
	}
	if _, ok := LookupLossless("Some-SKU"); ok {
		t.Error("unknown SKU found")
	}
}
