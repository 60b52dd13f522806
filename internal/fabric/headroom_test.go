package fabric

import (
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/violation"
	"github.com/google/go-cmp/cmp"
)

// sn5600Table is sonic-buildimage's
// device/mellanox/x86_64-nvidia_sn5600-r0/ACS-SN5600/pg_profile_lookup.ini, MTU 9100.
var sn5600Table = []struct {
	speed int
	cable float64
	want  Headroom
}{
	{100, 5, Headroom{XonBytes: 19456, XoffBytes: 113664, SizeBytes: 133120}},
	{100, 40, Headroom{XonBytes: 19456, XoffBytes: 126976, SizeBytes: 146432}},
	{100, 300, Headroom{XonBytes: 19456, XoffBytes: 225280, SizeBytes: 244736}},
	{200, 5, Headroom{XonBytes: 19456, XoffBytes: 131072, SizeBytes: 150528}},
	{200, 40, Headroom{XonBytes: 19456, XoffBytes: 157696, SizeBytes: 177152}},
	{200, 300, Headroom{XonBytes: 19456, XoffBytes: 355328, SizeBytes: 374784}},
	{400, 5, Headroom{XonBytes: 19456, XoffBytes: 231424, SizeBytes: 250880}},
	{400, 40, Headroom{XonBytes: 19456, XoffBytes: 283648, SizeBytes: 303104}},
	{400, 300, Headroom{XonBytes: 19456, XoffBytes: 677888, SizeBytes: 697344}},
	{800, 5, Headroom{XonBytes: 38912, XoffBytes: 257024, SizeBytes: 304128}},
	{800, 40, Headroom{XonBytes: 38912, XoffBytes: 362496, SizeBytes: 410624}},
	{800, 300, Headroom{XonBytes: 38912, XoffBytes: 1150976, SizeBytes: 1198080}},
}

func TestComputeHeadroomReproducesSN5600Table(t *testing.T) {
	for _, row := range sn5600Table {
		p := Port{SpeedGbps: row.speed, CableLengthM: row.cable, MTU: 9100}
		got, err := ComputeHeadroom(p, WorstCasePattern(), HeadroomModel{})
		if err != nil {
			t.Fatalf("ComputeHeadroom(%+v): %v", p, err)
		}
		for _, f := range []struct {
			name      string
			got, want int64
		}{{"xon", got.XonBytes, row.want.XonBytes}, {"xoff", got.XoffBytes, row.want.XoffBytes}, {"size", got.SizeBytes, row.want.SizeBytes}} {
			if d := f.got - f.want; d < -1024 || d > 1024 {
				t.Errorf("%dG %gm %s = %d, table %d (off by %d, more than 1 KiB)", row.speed, row.cable, f.name, f.got, f.want, d)
			}
		}
	}
}

func TestComputeHeadroomExactRows(t *testing.T) {
	// The worst-case pattern rows of pg_profile_lookup.ini, and the template-default pattern
	// (p = 50, MTU 1024) computed by hand from sonic-swss cfgmgr/buffer_headroom_mellanox.lua
	// at 202511 (lua blob d1c1a09) and master (561cfdd, with #4757's 2 KiB compensation).
	master := HeadroomModel{CompensateReducedPattern: true}
	rel202511 := HeadroomModel{}
	shp := HeadroomModel{SharedHeadroomPool: true, CompensateReducedPattern: true}
	tests := []struct {
		name  string
		p     Port
		pat   TrafficPattern
		model HeadroomModel
		want  Headroom
	}{
		{"800G 40m", Port{SpeedGbps: 800, CableLengthM: 40, MTU: 9100}, WorstCasePattern(), master, Headroom{38912, 362496, 410624}},
		{"400G 300m", Port{SpeedGbps: 400, CableLengthM: 300, MTU: 9100}, WorstCasePattern(), rel202511, Headroom{19456, 677888, 697344}},
		{"400G 40m", Port{SpeedGbps: 400, CableLengthM: 40, MTU: 9100}, WorstCasePattern(), master, Headroom{19456, 283648, 303104}},
		{"400G 5m p50 master", Port{SpeedGbps: 400, CableLengthM: 5, MTU: 9100}, defaultTrafficPattern(), master, Headroom{19456, 98304, 117760}},
		{"400G 40m p50 master", Port{SpeedGbps: 400, CableLengthM: 40, MTU: 9100}, defaultTrafficPattern(), master, Headroom{19456, 119808, 139264}},
		{"400G 100m p50 master", Port{SpeedGbps: 400, CableLengthM: 100, MTU: 9100}, defaultTrafficPattern(), master, Headroom{19456, 157696, 177152}},
		{"800G 5m p50 master", Port{SpeedGbps: 800, CableLengthM: 5, MTU: 9100}, defaultTrafficPattern(), master, Headroom{38912, 108544, 156672}},
		{"800G 40m p50 master", Port{SpeedGbps: 800, CableLengthM: 40, MTU: 9100}, defaultTrafficPattern(), master, Headroom{38912, 152576, 200704}},
		{"800G 100m p50 master", Port{SpeedGbps: 800, CableLengthM: 100, MTU: 9100}, defaultTrafficPattern(), master, Headroom{38912, 227328, 275456}},
		{"400G 5m p50 202511", Port{SpeedGbps: 400, CableLengthM: 5, MTU: 9100}, defaultTrafficPattern(), rel202511, Headroom{19456, 96256, 115712}},
		{"400G 40m p50 202511", Port{SpeedGbps: 400, CableLengthM: 40, MTU: 9100}, defaultTrafficPattern(), rel202511, Headroom{19456, 117760, 137216}},
		{"800G 40m p50 202511", Port{SpeedGbps: 800, CableLengthM: 40, MTU: 9100}, defaultTrafficPattern(), rel202511, Headroom{38912, 150528, 198656}},
		{"400G 5m p50 MTU 1500 202511", Port{SpeedGbps: 400, CableLengthM: 5, MTU: 1500}, defaultTrafficPattern(), rel202511, Headroom{19456, 86016, 105472}},
		{"shared headroom pool reserves xon only, no compensation", Port{SpeedGbps: 400, CableLengthM: 5, MTU: 9100}, defaultTrafficPattern(), shp, Headroom{19456, 96256, 19456}},
		{"shared headroom pool on 8 lanes", Port{SpeedGbps: 800, CableLengthM: 5, MTU: 9100}, defaultTrafficPattern(), shp, Headroom{38912, 106496, 38912}},
		{"400G on 8 lanes doubles xon and adds an MTU", Port{SpeedGbps: 400, CableLengthM: 40, MTU: 9100, Lanes: 8}, WorstCasePattern(), master, Headroom{38912, 283648, 331776}},
		{"800G on 4 lanes keeps single xon", Port{SpeedGbps: 800, CableLengthM: 40, MTU: 9100, Lanes: 4}, WorstCasePattern(), master, Headroom{19456, 362496, 381952}},
		{"no small packets adds the 2 KiB compensation on master", Port{SpeedGbps: 100, CableLengthM: 0, MTU: 1500}, TrafficPattern{SmallPacketPercent: 0, MTU: 1500}, master, Headroom{19456, 35840, 55296}},
		{"no small packets, no compensation before it", Port{SpeedGbps: 100, CableLengthM: 0, MTU: 1500}, TrafficPattern{SmallPacketPercent: 0, MTU: 1500}, rel202511, Headroom{19456, 33792, 53248}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ComputeHeadroom(tt.p, tt.pat, tt.model)
			if err != nil {
				t.Fatalf("ComputeHeadroom: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ComputeHeadroom mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestComputeHeadroomGrowsWithCable(t *testing.T) {
	for _, speed := range SupportedSpeedsGbps() {
		short, err1 := ComputeHeadroom(Port{SpeedGbps: speed, CableLengthM: 1, MTU: 9100}, WorstCasePattern(), HeadroomModel{})
		long, err2 := ComputeHeadroom(Port{SpeedGbps: speed, CableLengthM: 1000, MTU: 9100}, WorstCasePattern(), HeadroomModel{})
		if err1 != nil || err2 != nil {
			t.Fatalf("%dG: %v %v", speed, err1, err2)
		}
		if long.XoffBytes <= short.XoffBytes || long.SizeBytes <= short.SizeBytes {
			t.Errorf("%dG: 1000m %+v not above 1m %+v", speed, long, short)
		}
	}
}

func TestComputeHeadroomErrors(t *testing.T) {
	ok := Port{SpeedGbps: 400, CableLengthM: 5, MTU: 9100}
	tests := []struct {
		name string
		p    Port
		pat  TrafficPattern
		want string
	}{
		{"unknown speed", Port{SpeedGbps: 300, CableLengthM: 5, MTU: 9100}, WorstCasePattern(),
			"port speed 300 Gb/s is not supported: use one of 10, 25, 40, 50, 100, 200, 400, 800"},
		{"zero speed", Port{CableLengthM: 5, MTU: 9100}, WorstCasePattern(),
			"port speed 0 Gb/s is not supported: use one of 10, 25, 40, 50, 100, 200, 400, 800"},
		{"negative cable", Port{SpeedGbps: 400, CableLengthM: -1, MTU: 9100}, WorstCasePattern(),
			"cable length -1 m is invalid: use a length of 0 m or more"},
		{"MTU too small", Port{SpeedGbps: 400, CableLengthM: 5, MTU: 67}, WorstCasePattern(),
			"port mtu 67 is out of range: use 68..9216"},
		{"MTU too large", Port{SpeedGbps: 400, CableLengthM: 5, MTU: 9217}, WorstCasePattern(),
			"port mtu 9217 is out of range: use 68..9216"},
		{"bad lanes", Port{SpeedGbps: 400, CableLengthM: 5, MTU: 9100, Lanes: 3}, WorstCasePattern(),
			"lane count 3 is invalid: use 1, 2, 4 or 8 (0 = default for the speed)"},
		{"pattern percent", ok, TrafficPattern{SmallPacketPercent: 101, MTU: 1024},
			"small packet percentage 101 is out of range: use 0..100"},
		{"pattern MTU", ok, TrafficPattern{SmallPacketPercent: 50},
			"lossless traffic mtu 0 is out of range: use 1..9216"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ComputeHeadroom(tt.p, tt.pat, HeadroomModel{})
			if err == nil {
				t.Fatalf("ComputeHeadroom = %+v, want error %q", got, tt.want)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestComputeHeadroomBoundaryMTUs(t *testing.T) {
	for _, mtu := range []int{68, 9216} {
		if _, err := ComputeHeadroom(Port{SpeedGbps: 100, MTU: mtu}, WorstCasePattern(), HeadroomModel{}); err != nil {
			t.Errorf("MTU %d: %v", mtu, err)
		}
	}
}

func TestComputeHeadroomSlackOnlyWhenBelowWorstCase(t *testing.T) {
	// With 64 B lossless MTU every packet is small, so p = 50 already is the
	// worst case and no 2 KiB slack is added.
	p := Port{SpeedGbps: 400, CableLengthM: 40, MTU: 9100}
	m := HeadroomModel{CompensateReducedPattern: true}
	half, err1 := ComputeHeadroom(p, TrafficPattern{SmallPacketPercent: 50, MTU: 64}, m)
	worst, err2 := ComputeHeadroom(p, TrafficPattern{SmallPacketPercent: 100, MTU: 64}, m)
	if err1 != nil || err2 != nil {
		t.Fatalf("ComputeHeadroom: %v %v", err1, err2)
	}
	if diff := cmp.Diff(worst, half); diff != "" {
		t.Errorf("p=50 at MTU 64 differs from worst case (-worst +p50):\n%s", diff)
	}
}

func TestCheckSpeed(t *testing.T) {
	for _, s := range SupportedSpeedsGbps() {
		if fs := CheckSpeed(violation.At("port_speed_gbps"), int64(s)); fs != nil {
			t.Errorf("CheckSpeed(%d) = %v", s, fs)
		}
	}
	for _, s := range []int64{0, -400, 300, 1 << 40} {
		fs := render(CheckSpeed(violation.At("port_speed_gbps"), s))
		want := "the headroom model knows 10, 25, 40, 50, 100, 200, 400, 800 Gb/s"
		if len(fs) != 1 || fs[0].Path != "port_speed_gbps" || !strings.Contains(fs[0].Detail, want) {
			t.Errorf("CheckSpeed(%d) = %v, want one error containing %q", s, fs, want)
		}
	}
}

// defaultTrafficPattern is SONiC's template default, 50 % small packets at MTU 1024 (a switch
// says its own in LOSSLESS_TRAFFIC_PATTERN).
func defaultTrafficPattern() TrafficPattern {
	return TrafficPattern{SmallPacketPercent: 50, MTU: 1024}
}
