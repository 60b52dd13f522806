package fabric

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var roceSettings = []NCCLSetting{
	{"NCCL_IB_HCA", "=mlx5_0,mlx5_1"},
	{"NCCL_IB_TC", "106"},
	{"NCCL_SOCKET_IFNAME", "=eth0"},
}

func TestRenderNCCLConf(t *testing.T) {
	body := "NCCL_IB_HCA==mlx5_0,mlx5_1\nNCCL_IB_TC=106\nNCCL_SOCKET_IFNAME==eth0\n"
	tests := []struct {
		name     string
		settings []NCCLSetting
		version  string
		header   string
		want     string
	}{
		{"unknown version omits header", roceSettings, "", "managed", body},
		{"2.25 omits header", roceSettings, "2.25.1", "managed", body},
		{"2.26 writes header", roceSettings, "2.26.0", "managed", "# managed\n" + body},
		{"2.26 package suffix counts as 2.26", roceSettings, "2.26.2-1+cuda12.8", "managed", "# managed\n" + body},
		{"pre-release of 2.26 counts as 2.26", roceSettings, "2.26.0-1", "managed", "# managed\n" + body},
		{"v prefix", roceSettings, "v2.30.7", "managed", "# managed\n" + body},
		{"multi-line header", roceSettings, "2.30", "managed by terraform\n\ndo not edit\n", "# managed by terraform\n#\n# do not edit\n" + body},
		{"empty header", roceSettings, "2.30", "", body},
		{"order kept", []NCCLSetting{{"NCCL_IB_TC", "106"}, {"NCCL_DEBUG", "WARN"}}, "", "", "NCCL_IB_TC=106\nNCCL_DEBUG=WARN\n"},
		{"value with = and spaces kept literally", []NCCLSetting{{"NCCL_DEBUG_FILE", "/var/log/a=b %h.log"}}, "", "", "NCCL_DEBUG_FILE=/var/log/a=b %h.log\n"},
		{"no settings", nil, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RenderNCCLConf(tt.settings, tt.version, tt.header)
			if err != nil {
				t.Fatalf("RenderNCCLConf: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("RenderNCCLConf mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRenderNCCLConfErrors(t *testing.T) {
	long := strings.Repeat("A", 1020)
	tests := []struct {
		name     string
		settings []NCCLSetting
		version  string
		header   string
		want     string
	}{
		{"lower-case name", []NCCLSetting{{"nccl_ib_tc", "106"}}, "", "",
			`variable name "nccl_ib_tc" is invalid: use NCCL_ followed by upper-case letters, digits and underscores`},
		{"export keyword", []NCCLSetting{{"export NCCL_IB_TC", "106"}}, "", "",
			`variable name "export NCCL_IB_TC" is invalid: use NCCL_ followed by upper-case letters, digits and underscores`},
		{"not NCCL", []NCCLSetting{{"CUDA_VISIBLE_DEVICES", "0"}}, "", "",
			`variable name "CUDA_VISIBLE_DEVICES" is invalid: use NCCL_ followed by upper-case letters, digits and underscores`},
		{"bare prefix", []NCCLSetting{{"NCCL_", "1"}}, "", "",
			`variable name "NCCL_" is invalid: use NCCL_ followed by upper-case letters, digits and underscores`},
		{"name too long", []NCCLSetting{{"NCCL_" + long, "1"}}, "", "",
			`variable name "NCCL_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"... is 1025 bytes long: NCCL keeps at most 1023`},
		{"duplicate", []NCCLSetting{{"NCCL_IB_TC", "106"}, {"NCCL_IB_TC", "104"}}, "", "",
			"variable NCCL_IB_TC is set twice: keep one setting"},
		{"newline in value", []NCCLSetting{{"NCCL_IB_TC", "106\nNCCL_X=1"}}, "", "",
			`NCCL_IB_TC: value "106\nNCCL_X=1" contains a newline, carriage return or NUL: remove it`},
		{"CR in value", []NCCLSetting{{"NCCL_IB_TC", "106\r"}}, "", "",
			`NCCL_IB_TC: value "106\r" contains a newline, carriage return or NUL: remove it`},
		{"NUL in value", []NCCLSetting{{"NCCL_IB_TC", "1\x000"}}, "", "",
			`NCCL_IB_TC: value "1\x000" contains a newline, carriage return or NUL: remove it`},
		{"empty value", []NCCLSetting{{"NCCL_IB_TC", ""}}, "", "",
			"NCCL_IB_TC: value is empty: omit the variable instead"},
		{"value too long", []NCCLSetting{{"NCCL_NET", strings.Repeat("x", 1024)}}, "", "",
			"NCCL_NET: value is 1024 bytes long: NCCL keeps at most 1023"},
		{"bad version", roceSettings, "latest", "x",
			`nccl version "latest" is not a version: use a form such as 2.26.2`},
		{"CR in header", roceSettings, "2.26", "a\r\nb",
			`header "a\r\nb" contains a carriage return or NUL: remove it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RenderNCCLConf(tt.settings, tt.version, tt.header)
			if err == nil {
				t.Fatalf("RenderNCCLConf = %q, want error", got)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRenderNCCLConfMaxLengthsAccepted(t *testing.T) {
	name := "NCCL_" + strings.Repeat("A", 1018)
	value := strings.Repeat("v", 1023)
	got, err := RenderNCCLConf([]NCCLSetting{{name, value}}, "", "")
	if err != nil {
		t.Fatalf("1023-byte name and value rejected: %v", err)
	}
	if got != name+"="+value+"\n" {
		t.Errorf("unexpected rendering of %d bytes", len(got))
	}
}

func TestRenderNCCLProfileScript(t *testing.T) {
	tests := []struct {
		name     string
		settings []NCCLSetting
		want     string
	}{
		{"plain", roceSettings, "export NCCL_IB_HCA='=mlx5_0,mlx5_1'\nexport NCCL_IB_TC=106\nexport NCCL_SOCKET_IFNAME='=eth0'\n"},
		{"single quote", []NCCLSetting{{"NCCL_DEBUG_FILE", "/tmp/it's"}}, `export NCCL_DEBUG_FILE='/tmp/it'\''s'` + "\n"},
		{"shell metacharacters stay literal", []NCCLSetting{{"NCCL_NET", "$(reboot);`id` \"x\" \\ *"}},
			"export NCCL_NET='$(reboot);`id` \"x\" \\ *'\n"},
		{"only quotes", []NCCLSetting{{"NCCL_NET", "''"}}, `export NCCL_NET=''\'''\'''` + "\n"},
		{"none", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RenderNCCLProfileScript(tt.settings)
			if err != nil {
				t.Fatalf("RenderNCCLProfileScript: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("RenderNCCLProfileScript mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRenderNCCLProfileScriptErrors(t *testing.T) {
	tests := []struct {
		name     string
		settings []NCCLSetting
		want     string
	}{
		{"bad name", []NCCLSetting{{"NCCL_X;rm", "1"}}, `variable name "NCCL_X;rm" is invalid: use NCCL_ followed by upper-case letters, digits and underscores`},
		{"duplicate", []NCCLSetting{{"NCCL_IB_TC", "1"}, {"NCCL_IB_TC", "2"}}, "variable NCCL_IB_TC is set twice: keep one setting"},
		{"newline", []NCCLSetting{{"NCCL_NET", "a\nb"}}, `NCCL_NET: value "a\nb" contains a newline, carriage return or NUL: remove it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := RenderNCCLProfileScript(tt.settings)
			if err == nil {
				t.Fatal("want error")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateNCCLNameAndVersion(t *testing.T) {
	for name, ok := range map[string]bool{"NCCL_IB_TIMEOUT": true, "nccl_ib_timeout": false, "IB_TIMEOUT": false, "NCCL_": false} {
		if err := ValidateNCCLName(name); (err == nil) != ok {
			t.Errorf("ValidateNCCLName(%q) = %v", name, err)
		}
	}
	for v, ok := range map[string]bool{"": true, "2.26.2": true, "2.26.2-1+cuda12.8": true, "two": false} {
		if err := ValidateNCCLVersion(v); (err == nil) != ok {
			t.Errorf("ValidateNCCLVersion(%q) = %v", v, err)
		}
	}
}
