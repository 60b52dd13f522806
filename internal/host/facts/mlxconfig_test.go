package facts

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMlxconfigQueryVerbose(t *testing.T) {
	got, err := ParseMlxconfigQuery(fixture(t, "mlxconfig_query_e.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 15 {
		t.Errorf("%d parameters, want 15: %v", len(got), got)
	}
	want := map[string]NVParam{
		"ROCE_CC_PRIO_MASK_P1":           {Default: "255", Current: "255", Next: "8"},
		"QOS_TRUST_STATE_P1":             {Default: "TRUST_PCP(1)", Current: "TRUST_PCP(1)", Next: "TRUST_DSCP(2)"},
		"CNP_802P_PRIO_P1":               {Default: "6", Current: "7", Next: "7"},
		"ESWITCH_HAIRPIN_DESCRIPTORS_P1": {Default: "Array[0..7]", Current: "Array[0..7]", Next: "Array[0..7]"},
	}
	for name, w := range want {
		if d := cmp.Diff(w, got[name]); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
	p := got["QOS_TRUST_STATE_P1"]
	if n, ok := p.NextValue(); !ok || n != 2 {
		t.Errorf("next trust = %d, %v; want 2", n, ok)
	}
	if n, ok := p.CurrentValue(); !ok || n != 1 {
		t.Errorf("current trust = %d, %v; want 1", n, ok)
	}
	if n, ok := got["ROCE_CC_PRIO_MASK_P1"].DefaultValue(); !ok || n != 255 {
		t.Errorf("default mask = %d, %v; want 255", n, ok)
	}
	if _, ok := got["ESWITCH_HAIRPIN_DESCRIPTORS_P1"].NextValue(); ok {
		t.Error("an array has a number")
	}
}

func TestParseMlxconfigQueryNextBootOnly(t *testing.T) {
	got, err := ParseMlxconfigQuery(fixture(t, "mlxconfig_query.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 8 {
		t.Errorf("%d parameters, want 8", len(got))
	}
	if d := cmp.Diff(NVParam{Next: "TRUST_DSCP(2)"}, got["QOS_TRUST_STATE_P1"]); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if _, ok := got["QOS_TRUST_STATE_P1"].CurrentValue(); ok {
		t.Error("a query without -e has a current value")
	}
}

func TestParseMlxconfigQueryErrors(t *testing.T) {
	head := "Configurations:        Default   Current   Next Boot\n"
	for _, in := range []string{
		"",
		"-E- Failed to open device\n",
		"Configurations:   Something Else\n",
		head + "  CNP_DSCP_P1   48   48\n",
		head + "  CNP_DSCP_P1   48   48   48\n  CNP_DSCP_P1   48   48   48\n",
		head + "  CNP_DSCP_P1   48   48   48\n" + head,
	} {
		_, err := ParseMlxconfigQuery(in)
		wantParseError(t, err, "mlxconfig")
	}
}

func TestNVValue(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"48", 48, true}, {"0x30", 48, true}, {"ETH(2)", 2, true}, {"True(1)", 1, true}, {"_256KB(1)", 1, true},
		{"Array[0..7]", 0, false}, {"", 0, false}, {"-1", 0, false}, {"+1", 0, false}, {"x(y)", 0, false}, {"0x", 0, false},
	}
	for _, tt := range tests {
		got, ok := NVValue(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("NVValue(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestValidPCIAddr(t *testing.T) {
	for _, ok := range []string{"0000:17:00.0", "0000:af:00.1"} {
		if !ValidPCIAddr(ok) {
			t.Errorf("ValidPCIAddr(%q) = false", ok)
		}
	}
	for _, bad := range []string{"", "eth0", "mlx5_0", "0000:17:00.0; reboot", "../x"} {
		if ValidPCIAddr(bad) {
			t.Errorf("ValidPCIAddr(%q) = true", bad)
		}
	}
}

func FuzzParseMlxconfigQuery(f *testing.F) {
	addSeeds(f, "mlxconfig_query_e.txt", "mlxconfig_query.txt")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ParseMlxconfigQuery(in)
		if err != nil {
			wantParseError(t, err, "mlxconfig")
			return
		}
		for name := range got {
			if !nvNameRE.MatchString(name) {
				t.Errorf("parameter name %q", name)
			}
		}
	})
}
