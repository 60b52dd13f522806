package host

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// TestDetach: after detach no string of the facts, in fields, slices, map keys or map values,
// points into the raw output it was cut from, and the values are unchanged.
func TestDetach(t *testing.T) {
	raw := strings.Repeat("x", 1<<10) + "ens1f0np0 mlx5_0 rp_time_reset 300 doca 25.10"
	cut := func(s string) string {
		i := strings.Index(raw, s)
		return raw[i : i+len(s)]
	}
	f := Facts{
		Absent:  map[string]string{cut("mlx5_0"): cut("doca")},
		Netdevs: []Netdev{{Name: cut("ens1f0np0"), RDMADevice: cut("mlx5_0")}},
		ECN:     map[string]facts.ECNState{cut("ens1f0np0"): {RP: map[string]int64{cut("rp_time_reset"): 300}}},
		OFED:    facts.OFEDInfo{Version: cut("25.10")},
	}
	detach(&f)
	base := uintptr(unsafe.Pointer(unsafe.StringData(raw)))
	inRaw := func(s string) bool {
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		return p >= base && p < base+uintptr(len(raw))
	}
	var kept []string
	for k, v := range f.Absent {
		kept = append(kept, k, v)
	}
	for k, st := range f.ECN {
		kept = append(kept, k)
		for rk := range st.RP {
			kept = append(kept, rk)
		}
	}
	kept = append(kept, f.Netdevs[0].Name, f.Netdevs[0].RDMADevice, f.OFED.Version)
	want := []string{"mlx5_0", "doca", "ens1f0np0", "rp_time_reset", "ens1f0np0", "mlx5_0", "25.10"}
	if strings.Join(kept, " ") != strings.Join(want, " ") {
		t.Fatalf("detach changed the values: %q, want %q", kept, want)
	}
	for _, s := range kept {
		if inRaw(s) {
			t.Errorf("%q still points into the raw output", s)
		}
	}
	if f.ECN["ens1f0np0"].RP["rp_time_reset"] != 300 {
		t.Errorf("ECN lost its value: %v", f.ECN)
	}
}
