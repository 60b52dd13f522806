package fabric

import (
	"math"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/violation"
	"github.com/google/go-cmp/cmp"
)

func TestLookupPlatform(t *testing.T) {
	tests := []struct {
		name   string
		want   Platform
		wantOK bool
	}{
		{"sn5600", Platform{"sn5600", 158229504, 67737959}, true},
		{"SN5600", Platform{"sn5600", 158229504, 67737959}, true},
		{"Sn5400", Platform{"sn5400", 158229504, 67737959}, true},
		{"sn5610n", Platform{"sn5610n", 158229504, 142000000}, true},
		{"sn4600", Platform{}, false},
		{"", Platform{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := LookupPlatform(tt.name)
			if ok != tt.wantOK {
				t.Errorf("LookupPlatform(%q) ok = %v, want %v", tt.name, ok, tt.wantOK)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LookupPlatform(%q) mismatch (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

func TestPlatformNames(t *testing.T) {
	want := []string{"sn5400", "sn5600", "sn5610n"}
	if diff := cmp.Diff(want, PlatformNames()); diff != "" {
		t.Errorf("PlatformNames() mismatch (-want +got):\n%s", diff)
	}
}

func TestCheckCapacity(t *testing.T) {
	sn5600, _ := LookupPlatform("sn5600")
	tests := []struct {
		name    string
		p       Platform
		perPort int64
		ports   int
		want    []found
	}{
		{"64 ports of 400G 40m fit", sn5600, 303104, 64, nil},
		{"exactly the pool fits", sn5600, 67737959, 1, nil},
		{"zero reservation fits", sn5600, 0, 128, nil},
		{"one byte over", sn5600, 67737960, 1, []found{{violation.Error, "ports", "Lossless Buffer Exhausted",
			"1 port x 67737960 B = 67737960 B exceeds the SN5600 ingress lossless pool of 67737959 B: reserve at most 67737959 B per port or use fewer lossless ports"}}},
		{"seed's 16 MB per port", sn5600, 16_000_000, 128, []found{{violation.Error, "ports", "Lossless Buffer Exhausted",
			"128 ports x 16000000 B = 2048000000 B exceeds the SN5600 ingress lossless pool of 67737959 B: reserve at most 529202 B per port or use fewer lossless ports"}}},
		{"overflow", sn5600, math.MaxInt64 / 2, 3, []found{{violation.Error, "ports", "Lossless Buffer Exhausted",
			"3 ports x 4611686018427387903 B = more than 9223372036854775807 B exceeds the SN5600 ingress lossless pool of 67737959 B: reserve at most 22579319 B per port or use fewer lossless ports"}}},
		{"unnamed platform", Platform{IngressLosslessPoolBytes: 1000}, 600, 2, []found{{violation.Error, "ports", "Lossless Buffer Exhausted",
			"2 ports x 600 B = 1200 B exceeds the ingress lossless pool of 1000 B: reserve at most 500 B per port or use fewer lossless ports"}}},
		{"zero ports", sn5600, 1000, 0, []found{{violation.Error, "ports", "Invalid Port Count", "ports is 0; it must be at least 1"}}},
		{"negative reservation", sn5600, -1, 4, []found{{violation.Error, "per_port_reservation_bytes", "Invalid Reservation",
			"per_port_reservation_bytes is -1; it must be 0 or more"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, render(CheckCapacity(tt.p, tt.perPort, tt.ports))); diff != "" {
				t.Errorf("CheckCapacity mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
