package fabric

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/violation"
	"github.com/google/go-cmp/cmp"
)

func TestParseHCAList(t *testing.T) {
	tests := []struct {
		in   string
		want HCASpec
	}{
		{"mlx5_0", HCASpec{Entries: []HCAEntry{{"mlx5_0", 0}}}},
		{"=mlx5_0:1,mlx5_1:1", HCASpec{Exact: true, Entries: []HCAEntry{{"mlx5_0", 1}, {"mlx5_1", 1}}}},
		{"^mlx5_4", HCASpec{Exclude: true, Entries: []HCAEntry{{"mlx5_4", 0}}}},
		{"^=mlx5_1,mlx5_4", HCASpec{Exclude: true, Exact: true, Entries: []HCAEntry{{"mlx5_1", 0}, {"mlx5_4", 0}}}},
		{"mlx5_0:1,mlx5_0:2", HCASpec{Entries: []HCAEntry{{"mlx5_0", 1}, {"mlx5_0", 2}}}},
		{"mlx5_bond_0,rocep1s0f0", HCASpec{Entries: []HCAEntry{{"mlx5_bond_0", 0}, {"rocep1s0f0", 0}}}},
		{"mlx5", HCASpec{Entries: []HCAEntry{{"mlx5", 0}}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseHCAList(tt.in)
			if err != nil {
				t.Fatalf("ParseHCAList(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseHCAList(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if s := got.String(); s != tt.in {
				t.Errorf("String() = %q, want %q", s, tt.in)
			}
		})
	}
}

func TestParseHCAListErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", "NCCL_IB_HCA is empty: list at least one name"},
		{"=^mlx5_0", `NCCL_IB_HCA "=^mlx5_0" puts = before ^: ^ must precede =, write "^=mlx5_0"`},
		{"^", `NCCL_IB_HCA "^": empty entry: remove the extra comma`},
		{"mlx5_0,", `NCCL_IB_HCA "mlx5_0,": empty entry: remove the extra comma`},
		{"mlx5_0,^mlx5_1", `NCCL_IB_HCA "mlx5_0,^mlx5_1": entry "^mlx5_1" contains ^ or =: they apply to the whole list, put them once at its start`},
		{"^^mlx5_1", `NCCL_IB_HCA "^^mlx5_1": entry "^mlx5_1" contains ^ or =: they apply to the whole list, put them once at its start`},
		{"mlx5 0", `NCCL_IB_HCA "mlx5 0": entry "mlx5 0" has device name "mlx5 0": use a name such as mlx5_0`},
		{":1", `NCCL_IB_HCA ":1": entry ":1" has device name "": use a name such as mlx5_0`},
		{"mlx5_0:0", `NCCL_IB_HCA "mlx5_0:0": entry "mlx5_0:0" has port "0": use a port number 1..255 or omit it for all ports`},
		{"mlx5_0:x", `NCCL_IB_HCA "mlx5_0:x": entry "mlx5_0:x" has port "x": use a port number 1..255 or omit it for all ports`},
		{"mlx5_0:", `NCCL_IB_HCA "mlx5_0:": entry "mlx5_0:" has port "": use a port number 1..255 or omit it for all ports`},
		{"mlx5_0:1:0", `NCCL_IB_HCA "mlx5_0:1:0": entry "mlx5_0:1:0" has more than a port after the device: rail and plane suffixes are not supported, use name:port`},
		{"mlx5_0,mlx5_0", `NCCL_IB_HCA "mlx5_0,mlx5_0" lists "mlx5_0" twice: give each entry once`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseHCAList(tt.in)
			if err == nil {
				t.Fatalf("ParseHCAList(%q) = %+v, want error", tt.in, got)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseHCAListLimit(t *testing.T) {
	names := make([]string, 33)
	for i := range names {
		names[i] = fmt.Sprintf("mlx5_%d", i)
	}
	if _, err := ParseHCAList("=" + strings.Join(names[:32], ",")); err != nil {
		t.Errorf("32 entries rejected: %v", err)
	}
	_, err := ParseHCAList("=" + strings.Join(names, ","))
	if err == nil || !strings.Contains(err.Error(), "has 33 entries: NCCL reads at most 32") {
		t.Errorf("33 entries: err = %v", err)
	}
}

func TestHCAPrefixWarnings(t *testing.T) {
	known := []string{"mlx5_0", "mlx5_1", "mlx5_10", "mlx5_11", "mlx5_2"}
	tests := []struct {
		name  string
		spec  string
		known []string
		want  []found
	}{
		{"exact list is clean", "=mlx5_0,mlx5_1", known, nil},
		{"prefix without collision is clean", "mlx5_0,mlx5_2", known, nil},
		{"mlx5_1 also matches mlx5_10", "mlx5_0,mlx5_1", known, []found{{violation.Warning, "hcas", "HCA Name Matches as a Prefix",
			`hcas entry "mlx5_1" also matches mlx5_10, mlx5_11 because NCCL_IB_HCA names are prefixes: start the list with = ("=mlx5_0,mlx5_1") for exact names`}}},
		{"exclude list collides too", "^mlx5_1", known, []found{{violation.Warning, "hcas", "HCA Name Matches as a Prefix",
			`hcas entry "mlx5_1" also matches mlx5_10, mlx5_11 because NCCL_IB_HCA names are prefixes: start the list with = ("^=mlx5_1") for exact names`}}},
		{"unknown device", "=mlx5_7", known, []found{{violation.Warning, "hcas", "HCA Not Found",
			`hcas entry "mlx5_7" matches none of the devices mlx5_0, mlx5_1, mlx5_10, mlx5_11, mlx5_2: check the device name`}}},
		{"intended prefix matches several", "mlx5:1", known, []found{{violation.Warning, "hcas", "HCA Name Matches as a Prefix",
			`hcas entry "mlx5" is no device name and selects mlx5_0, mlx5_1, mlx5_10, mlx5_11, mlx5_2 as a prefix: list the devices with = ("=mlx5_0:1,mlx5_1:1,mlx5_10:1,mlx5_11:1,mlx5_2:1") so that a device added later is not selected too`}}},
		{"no known devices: trailing digit warns", "mlx5_0:1,mlx5_bond", nil, []found{{violation.Warning, "hcas", "HCA Name Matches as a Prefix",
			`hcas entry "mlx5_0" is a prefix and would also match mlx5_00..mlx5_09 and longer names: start the list with = ("=mlx5_0:1,mlx5_bond") for exact names`}}},
		{"no known devices: exact is clean", "=mlx5_0", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := ParseHCAList(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, render(HCAPrefixWarnings(spec, tt.known, violation.At("hcas")))); diff != "" {
				t.Errorf("HCAPrefixWarnings mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHCAPrefixWarningsPath(t *testing.T) {
	spec, err := ParseHCAList("mlx5_1")
	if err != nil {
		t.Fatal(err)
	}
	const path = `env["NCCL_IB_HCA"]`
	want := []found{{violation.Warning, path, "HCA Name Matches as a Prefix",
		`env["NCCL_IB_HCA"] entry "mlx5_1" is a prefix and would also match mlx5_10..mlx5_19 and longer names: start the list with = ("=mlx5_1") for exact names`}}
	if diff := cmp.Diff(want, render(HCAPrefixWarnings(spec, nil, violation.At("env").Entry("NCCL_IB_HCA")))); diff != "" {
		t.Errorf("HCAPrefixWarnings mismatch (-want +got):\n%s", diff)
	}
}

func TestHCADeviceWarnings(t *testing.T) {
	const path = `env["NCCL_IB_HCA"]`
	hosts := []string{"node1", "node2"}
	devices := []string{"mlx5_0", "mlx5_1", "mlx5_10", "mlx5_bond_0"}
	tests := []struct {
		name    string
		spec    string
		devices []string
		want    []found
	}{
		{"exact and present is clean", "=mlx5_0,mlx5_1", devices, nil},
		{"plan already warned about mlx5_1", "mlx5_1", devices, nil},
		{"plan already warned, still not found", "mlx5_7", devices, []found{{violation.Warning, path, "HCA Not Found",
			`env["NCCL_IB_HCA"] entry "mlx5_7" matches none of the devices of node1, node2 (mlx5_0, mlx5_1, mlx5_10, mlx5_bond_0): check the device name`}}},
		{"not found in an exact list", "=mlx5_0,mlx5_2", devices, []found{{violation.Warning, path, "HCA Not Found",
			`env["NCCL_IB_HCA"] entry "mlx5_2" matches none of the devices of node1, node2 (mlx5_0, mlx5_1, mlx5_10, mlx5_bond_0): check the device name`}}},
		{"a name without a digit collides", "mlx5_bond", []string{"mlx5_bond", "mlx5_bond_0"}, []found{{violation.Warning, path, "HCA Name Matches as a Prefix",
			`env["NCCL_IB_HCA"] entry "mlx5_bond" also matches mlx5_bond_0 on node1, node2 because NCCL_IB_HCA names are prefixes: start the list with = ("=mlx5_bond") for exact names`}}},
		{"a prefix that names no device", "^mlx5_b", devices, []found{{violation.Warning, path, "HCA Name Matches as a Prefix",
			`env["NCCL_IB_HCA"] entry "mlx5_b" is no device name and selects mlx5_bond_0 on node1, node2 as a prefix: list the devices with = ("^=mlx5_bond_0") so that a device added later is not selected too`}}},
		{"no devices read: nothing to say", "mlx5_7", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, err := ParseHCAList(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, render(HCADeviceWarnings(spec, hosts, tt.devices, violation.At("env").Entry("NCCL_IB_HCA")))); diff != "" {
				t.Errorf("HCADeviceWarnings mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHCASpecSelects(t *testing.T) {
	for _, c := range []struct {
		spec, device string
		port         int
		want         bool
	}{
		{"mlx5_1", "mlx5_1", 1, true},
		{"mlx5_1", "mlx5_10", 1, true}, // a prefix
		{"=mlx5_1", "mlx5_10", 1, false},
		{"=mlx5_1:1", "mlx5_1", 2, false},
		{"mlx5_0:1,mlx5_1:1", "mlx5_1", 1, true},
		{"^mlx5_0", "mlx5_1", 1, true},
		{"^mlx5_0", "mlx5_0", 1, false},
		{"^=mlx5_1", "mlx5_10", 1, true},
	} {
		spec, err := ParseHCAList(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := spec.Selects(c.device, c.port); got != c.want {
			t.Errorf("%q selects %s:%d = %v, want %v", c.spec, c.device, c.port, got, c.want)
		}
	}
}
