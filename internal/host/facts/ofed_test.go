package facts

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseOFEDInfo(t *testing.T) {
	tests := []struct {
		fixture string
		want    OFEDInfo
	}{
		{"ofed_info_mlnx.txt", OFEDInfo{Flavor: OFEDMLNX, Version: "24.10-3.2.5.0"}},
		{"ofed_info_doca.txt", OFEDInfo{Flavor: OFEDDOCA, Version: "25.10-1.7.1"}},
		{"ofed_info_doca_lts.txt", OFEDInfo{Flavor: OFEDDOCA, Version: "24.10-1.1.4.0.200"}},
		{"ofed_info_long.txt", OFEDInfo{Flavor: OFEDMLNX, Version: "23.10-1.1.9.0"}},
		{"ofed_info_notfound_bash.txt", OFEDInfo{Flavor: OFEDInbox}},
		{"ofed_info_notfound_dash.txt", OFEDInfo{Flavor: OFEDInbox}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			got, err := ParseOFEDInfo(fixture(t, tt.fixture))
			if err != nil {
				t.Fatalf("ParseOFEDInfo() error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseOFEDInfo() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseOFEDInfoInline(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want OFEDInfo
	}{
		{"empty", "", OFEDInfo{Flavor: OFEDInbox}},
		{"zsh", "zsh: command not found: ofed_info\n", OFEDInfo{Flavor: OFEDInbox}},
		{"no colon", "MLNX_OFED_LINUX-5.8-3.0.7.0\n", OFEDInfo{Flavor: OFEDMLNX, Version: "5.8-3.0.7.0"}},
		{"ansi and spaces", "\x1b[1m  OFED-internal-24.01-0.3.3:  \x1b[0m\n", OFEDInfo{Flavor: OFEDDOCA, Version: "24.01-0.3.3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseOFEDInfo(tt.in)
			if err != nil {
				t.Fatalf("ParseOFEDInfo(%q) error: %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseOFEDInfo(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseOFEDInfoErrors(t *testing.T) {
	for _, in := range []string{
		fixture(t, "ofed_info_garbage.txt"),
		"MLNX_OFED_LINUX-latest:\n",
		"OFED-internal-:\n",
		"ofed_info: unknown option -s\n",
	} {
		_, err := ParseOFEDInfo(in)
		wantParseError(t, err, "ofed_info")
	}
}

func TestOFEDInfoCommand(t *testing.T) {
	if got, want := OFEDInfoProbe.Command.String(), "ofed_info -s"; got != want {
		t.Errorf("command = %q, want %q", got, want)
	}
}

func FuzzOFEDInfo(f *testing.F) {
	addSeeds(f, "ofed_info_mlnx.txt", "ofed_info_doca.txt", "ofed_info_long.txt", "ofed_info_notfound_bash.txt")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseOFEDInfo(s)
		if err == nil && got.Flavor != OFEDInbox && got.Version == "" {
			t.Errorf("flavor %q without version", got.Flavor)
		}
	})
}
