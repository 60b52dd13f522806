package fabric

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNCCLVarsSortedAndComplete(t *testing.T) {
	names := make([]string, len(ncclVarTable))
	for i, v := range ncclVarTable {
		names[i] = v.Name
		if !ncclKeyRE.MatchString(v.Name) || v.Doc == "" || v.Default == "" {
			t.Errorf("%s: name must match %s and Doc and Default must be set: %+v", v.Name, ncclKeyRE, v)
		}
		if (v.Kind == NCCLKindEnum || v.Kind == NCCLKindEnumOrInt || v.Kind == NCCLKindEnumList) && len(v.Values) == 0 {
			t.Errorf("%s: %s kind without Values", v.Name, v.Kind)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("ncclVarTable not sorted: %v", names)
	}
	if len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("ncclVarTable has duplicates: %v", names)
	}
	for _, want := range []string{"NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_IB_TC", "NCCL_IB_QPS_PER_CONNECTION",
		"NCCL_SOCKET_IFNAME", "NCCL_CROSS_NIC", "NCCL_NET_GDR_LEVEL", "NCCL_DEBUG", "NCCL_DEBUG_SUBSYS"} {
		if !slices.Contains(names, want) {
			t.Errorf("ncclVarTable lacks %s", want)
		}
	}
}

func TestLookupNCCLVar(t *testing.T) {
	tests := []struct {
		name string
		want NCCLVar
		ok   bool
	}{
		{"NCCL_IB_QPS_PER_CONNECTION", NCCLVar{Name: "NCCL_IB_QPS_PER_CONNECTION", Kind: NCCLKindInt, Min: 1, Max: 128, Default: "1"}, true},
		{"NCCL_IB_GID_INDEX", NCCLVar{Name: "NCCL_IB_GID_INDEX", Kind: NCCLKindInt, Min: -1, Max: 255, Default: "-1",
			DefaultChanged: "-1 (auto) since 2.21, 0 before"}, true},
		{"NCCL_IB_TC", NCCLVar{Name: "NCCL_IB_TC", Kind: NCCLKindInt, Min: 0, Max: 255, Default: "-1",
			DefaultChanged: "-1 (communicator trafficClass config, else 0) since 2.26, 0 before"}, true},
		{"NCCL_CONF_FILE", NCCLVar{Name: "NCCL_CONF_FILE", Kind: NCCLKindPath, Default: "unset", Since: "2.23"}, true},
		{"nccl_ib_tc", NCCLVar{}, false},
		{"NCCL_ALGORITHM", NCCLVar{}, false},
	}
	ignoreDoc := func(v NCCLVar) NCCLVar { v.Doc = ""; return v }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := LookupNCCLVar(tt.name)
			if ok != tt.ok {
				t.Errorf("ok = %v, want %v", ok, tt.ok)
			}
			if diff := cmp.Diff(tt.want, ignoreDoc(got)); diff != "" {
				t.Errorf("LookupNCCLVar mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLookupNCCLVarReturnsCopy(t *testing.T) {
	v, _ := LookupNCCLVar("NCCL_DEBUG")
	v.Values[0] = "CHANGED"
	again, _ := LookupNCCLVar("NCCL_DEBUG")
	if again.Values[0] != "VERSION" {
		t.Errorf("caller changed the table: %v", again.Values)
	}
}

func TestNCCLVarKindString(t *testing.T) {
	if got := NCCLKindHCAList.String(); got != "hca_list" {
		t.Errorf("NCCLKindHCAList.String() = %q", got)
	}
	if got := NCCLVarKind(99).String(); got != "unknown" {
		t.Errorf("NCCLVarKind(99).String() = %q", got)
	}
}

func TestValidateNCCLValue(t *testing.T) {
	tests := []struct {
		name, value string
		wantErr     string // "" = valid
	}{
		{"NCCL_IB_TC", "106", ""},
		{"NCCL_IB_TC", "0", ""},
		{"NCCL_IB_TC", "255", ""},
		{"NCCL_IB_TC", "256", "NCCL_IB_TC: value 256 is out of range: use 0..255"},
		{"NCCL_IB_TC", "-1", "NCCL_IB_TC: value -1 is out of range: use 0..255"},
		{"NCCL_IB_TC", "0x6a", `NCCL_IB_TC: value "0x6a" is not a decimal integer: use 0..255`},
		{"NCCL_IB_TC", " 106", `NCCL_IB_TC: value " 106" is not a decimal integer: use 0..255`},
		{"NCCL_IB_QPS_PER_CONNECTION", "1", ""},
		{"NCCL_IB_QPS_PER_CONNECTION", "128", ""},
		{"NCCL_IB_QPS_PER_CONNECTION", "0", "NCCL_IB_QPS_PER_CONNECTION: value 0 is out of range: use 1..128"},
		{"NCCL_IB_QPS_PER_CONNECTION", "129", "NCCL_IB_QPS_PER_CONNECTION: value 129 is out of range: use 1..128"},
		{"NCCL_IB_GID_INDEX", "-1", ""},
		{"NCCL_IB_GID_INDEX", "255", ""},
		{"NCCL_IB_GID_INDEX", "-2", "NCCL_IB_GID_INDEX: value -2 is out of range: use -1..255"},
		{"NCCL_IB_TIMEOUT", "32", "NCCL_IB_TIMEOUT: value 32 is out of range: use 0..31"},
		{"NCCL_IB_RETRY_CNT", "8", "NCCL_IB_RETRY_CNT: value 8 is out of range: use 0..7"},
		{"NCCL_IB_SL", "16", "NCCL_IB_SL: value 16 is out of range: use 0..15"},
		{"NCCL_IB_ROCE_VERSION_NUM", "3", "NCCL_IB_ROCE_VERSION_NUM: value 3 is out of range: use 1..2"},
		{"NCCL_CROSS_NIC", "0", ""},
		{"NCCL_CROSS_NIC", "3", "NCCL_CROSS_NIC: value 3 is out of range: use 0..2"},
		{"NCCL_DMABUF_ENABLE", "1", ""},
		{"NCCL_DMABUF_ENABLE", "true", `NCCL_DMABUF_ENABLE: value "true" is not a boolean: use 0 or 1`},
		{"NCCL_NET_GDR_LEVEL", "PXB", ""},
		{"NCCL_NET_GDR_LEVEL", "SYS", ""},
		{"NCCL_NET_GDR_LEVEL", "P2C", ""},
		{"NCCL_NET_GDR_LEVEL", "PXN", ""},
		{"NCCL_NET_GDR_LEVEL", "5", ""},
		{"NCCL_NET_GDR_LEVEL", "0", ""},
		{"NCCL_NET_GDR_LEVEL", "6", "NCCL_NET_GDR_LEVEL: value 6 is out of range: use 0..5"},
		{"NCCL_NET_GDR_LEVEL", "pxb", `NCCL_NET_GDR_LEVEL: value "pxb" is not one of LOC, PIX, PXB, PHB, SYS, NVL, NVB, C2C, P2C, PXN: write it as "PXB"`},
		{"NCCL_NET_GDR_LEVEL", "NODE", `NCCL_NET_GDR_LEVEL: value "NODE" is not one of LOC, PIX, PXB, PHB, SYS, NVL, NVB, C2C, P2C, PXN`},
		{"NCCL_DEBUG", "INFO", ""},
		{"NCCL_DEBUG", "DEBUG", `NCCL_DEBUG: value "DEBUG" is not one of VERSION, WARN, INFO, ABORT, TRACE`},
		{"NCCL_DEBUG_SUBSYS", "INIT,NET", ""},
		{"NCCL_DEBUG_SUBSYS", "^GRAPH,TUNING", ""},
		{"NCCL_DEBUG_SUBSYS", "ALL", ""},
		{"NCCL_DEBUG_SUBSYS", "INIT,,NET", `NCCL_DEBUG_SUBSYS: list "INIT,,NET": value "" is not one of INIT, COLL, P2P, SHM, NET, GRAPH, TUNING, ENV, ALLOC, ALLOC_HOST, CALL, PROXY, NVLS, BOOTSTRAP, REG, PROFILE, RAS, DESTROY, ALL`},
		{"NCCL_DEBUG_SUBSYS", "INIT,net", `NCCL_DEBUG_SUBSYS: list "INIT,net": value "net" is not one of INIT, COLL, P2P, SHM, NET, GRAPH, TUNING, ENV, ALLOC, ALLOC_HOST, CALL, PROXY, NVLS, BOOTSTRAP, REG, PROFILE, RAS, DESTROY, ALL: write it as "NET"`},
		{"NCCL_IB_ADDR_FAMILY", "AF_INET6", ""},
		{"NCCL_IB_ADDR_FAMILY", "inet", `NCCL_IB_ADDR_FAMILY: value "inet" is not one of AF_INET, AF_INET6`},
		{"NCCL_IB_ADDR_RANGE", "10.0.0.0/16", ""},
		{"NCCL_IB_ADDR_RANGE", "fd00::/8", ""},
		{"NCCL_IB_ADDR_RANGE", "10.0.0.0", `NCCL_IB_ADDR_RANGE: value "10.0.0.0" is not an IP prefix: use CIDR notation such as 10.0.0.0/16`},
		{"NCCL_CONF_FILE", "/etc/nccl-train.conf", ""},
		{"NCCL_CONF_FILE", "~/nccl.conf", `NCCL_CONF_FILE: path "~/nccl.conf" starts with ~, which NCCL does not expand: use an absolute path`},
		{"NCCL_DEBUG_FILE", "/tmp/nccl.%h.%p", ""},
		{"NCCL_NET", "IB", ""},
		{"NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1", ""},
		{"NCCL_IB_HCA", "^=mlx5_1", ""},
		{"NCCL_IB_HCA", "=^mlx5_0", `NCCL_IB_HCA "=^mlx5_0" puts = before ^: ^ must precede =, write "^=mlx5_0"`},
		{"NCCL_SOCKET_IFNAME", "eth0", ""},
		{"NCCL_SOCKET_IFNAME", "^docker,lo", ""},
		{"NCCL_SOCKET_IFNAME", "=bond0", ""},
		{"NCCL_SOCKET_IFNAME", "e", `NCCL_SOCKET_IFNAME: value "e" is ignored by NCCL (it needs more than 1 character): name the interface or its prefix`},
		{"NCCL_SOCKET_IFNAME", "eth0,,eth1", `NCCL_SOCKET_IFNAME: interface list "eth0,,eth1" has entry "": use interface names of 1 to 15 characters without spaces or /`},
		{"NCCL_SOCKET_IFNAME", "averyveryverylongname", `NCCL_SOCKET_IFNAME: interface list "averyveryverylongname" has entry "averyveryverylongname": use interface names of 1 to 15 characters without spaces or /`},
		{"NCCL_SOCKET_IFNAME", "=^eth", `NCCL_SOCKET_IFNAME: interface list "=^eth" puts = before ^: ^ must precede =, write "^=eth"`},
		{"NCCL_IB_TC", "", "NCCL_IB_TC: value is empty: omit the variable instead"},
		{"NCCL_NET", "IB\n", `NCCL_NET: value "IB\n" contains a newline, carriage return or NUL: remove it`},
		{"NCCL_NET", strings.Repeat("x", 1024), "NCCL_NET: value is 1024 bytes long: NCCL keeps at most 1023"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			got := ""
			if err := ValidateNCCLValue(tt.name, tt.value); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.wantErr, got); diff != "" {
				t.Errorf("ValidateNCCLValue(%q, %q) mismatch (-want +got):\n%s", tt.name, tt.value, diff)
			}
		})
	}
}

func TestValidateNCCLValueUnknownNames(t *testing.T) {
	tests := []struct {
		name           string
		wantSuggestion string
		wantErr        string
	}{
		{"NCCL_IB_HAC", "NCCL_IB_HCA", `unknown NCCL variable "NCCL_IB_HAC": did you mean NCCL_IB_HCA`},
		{"NCCL_IB_GID_IDX", "NCCL_IB_GID_INDEX", `unknown NCCL variable "NCCL_IB_GID_IDX": did you mean NCCL_IB_GID_INDEX`},
		{"nccl_ib_tc", "NCCL_IB_TC", `unknown NCCL variable "nccl_ib_tc": did you mean NCCL_IB_TC`},
		{"NCCL_SOCKET_IFNAMES", "NCCL_SOCKET_IFNAME", `unknown NCCL variable "NCCL_SOCKET_IFNAMES": did you mean NCCL_SOCKET_IFNAME`},
		{"NCCL_ZZZ_UNKNOWN", "", `unknown NCCL variable "NCCL_ZZZ_UNKNOWN": check the name against the NCCL environment documentation`},
		{"CUDA_VISIBLE_DEVICES", "", `"CUDA_VISIBLE_DEVICES" is not an NCCL variable: NCCL variable names start with NCCL_`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateNCCLValue(tt.name, "1")
			var unknown *UnknownNCCLVarError
			if !errors.As(err, &unknown) {
				t.Fatalf("ValidateNCCLValue(%q) = %v, want *UnknownNCCLVarError", tt.name, err)
			}
			if unknown.Suggestion != tt.wantSuggestion {
				t.Errorf("Suggestion = %q, want %q", unknown.Suggestion, tt.wantSuggestion)
			}
			if diff := cmp.Diff(tt.wantErr, err.Error()); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"kitten", "sitting", 3}, {"HCA", "HAC", 2}, {"same", "same", 0},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestValidateNCCLValueFor checks the rules that depend on the NCCL version
// (history from NVIDIA/nccl v2.18.6-1 .. v2.30.7-1): what an older release
// silently ignores is refused naming the version; what it knows passes.
func TestValidateNCCLValueFor(t *testing.T) {
	for _, tc := range []struct {
		name, value, version, wantErr string
	}{
		{"NCCL_CONF_FILE", "/etc/x.conf", "2.21.5", "NCCL 2.21.5 does not read NCCL_CONF_FILE, which exists from NCCL 2.23 on"},
		{"NCCL_CONF_FILE", "/etc/x.conf", "2.23.4", ""},
		{"NCCL_IB_OOO_RQ", "1", "2.29.7", "NCCL 2.29.7 does not read NCCL_IB_OOO_RQ, which exists from NCCL 2.30 on"},
		{"NCCL_IB_OOO_RQ", "1", "2.30.7-1+cuda13.0", ""},
		{"NCCL_NET_GDR_LEVEL", "C2C", "2.25.1", "NCCL 2.25.1 does not know C2C, which exists from NCCL 2.26 on"},
		{"NCCL_NET_GDR_LEVEL", "P2C", "2.26.6", "NCCL 2.26.6 does not know P2C, which exists from NCCL 2.27 on"},
		{"NCCL_NET_GDR_LEVEL", "P2C", "2.27.7", ""},
		{"NCCL_NET_GDR_LEVEL", "P2C", "", ""},
		{"NCCL_DEBUG_SUBSYS", "INIT,RAS", "2.23.4", "does not know RAS, which exists from NCCL 2.24 on"},
		{"NCCL_DEBUG_SUBSYS", "^ALLOC_HOST", "2.29.7", "does not know ALLOC_HOST, which exists from NCCL 2.30 on"},
		{"NCCL_ALGO", "ring,pat", "2.22.3", "does not know PAT, which exists from NCCL 2.23 on"},
		{"NCCL_ALGO", "allreduce:tree;allgather:ring", "2.23.4", "per-collective lists (func:list), which exist from NCCL 2.24 on"},
		{"NCCL_ALGO", "allreduce:tree;allgather:ring", "2.24.3", ""},
		{"NCCL_ALGO", "allreduce:tree;everything:ring", "2.24.3", `"everything" is not a collective`},
		{"NCCL_PROTO", "^LL128", "2.19.4", ""},
		{"NCCL_PROTO", "LL256", "", `"LL256" is not one of LL, LL128, Simple`},
		{"NCCL_MAX_NCHANNELS", "64", "2.24.3", "at most 32 channels (64 from 2.25)"},
		{"NCCL_MAX_NCHANNELS", "64", "2.25.1", ""},
		{"NCCL_IB_FIFO_TC", "0", "2.23.4", "0 turns the setting off"},
		{"NCCL_IB_FIFO_TC", "0", "2.24.3", ""},
		{"NCCL_IB_FIFO_TC", "106", "2.21.5", "NCCL 2.21.5 does not read NCCL_IB_FIFO_TC, which exists from NCCL 2.22 on"},
		{"NCCL_IB_ECE_ENABLE", "0", "2.22.3", "exists from NCCL 2.23 on"},
		{"NCCL_IB_DATA_DIRECT", "2", "2.27.7", ""},
		{"NCCL_IB_DATA_DIRECT", "3", "", "out of range"},
		{"NCCL_NET_GDR_C2C", "1", "2.25.1", "exists from NCCL 2.26 on"},
		{"NCCL_IB_TC", "106", "nonsense", `nccl version "nonsense" is not a version`},
		{"NCCL_IB_TIMEOUT", "010", "", "leading zero, which NCCL reads as octal"},
		{"NCCL_IB_TIMEOUT", "0", "", ""},
		{"NCCL_NET_GDR_LEVEL", "03", "", "leading zero"},
	} {
		t.Run(tc.name+"="+tc.value+"@"+tc.version, func(t *testing.T) {
			err := ValidateNCCLValueFor(tc.name, tc.value, tc.version)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}
