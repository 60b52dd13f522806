package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

// TestSwitchQoSCheckConnection merges the resource's gnmi settings with the provider's: what
// the provider completes is fine, what stays half-set is refused on the resource's attribute.
func TestSwitchQoSCheckConnection(t *testing.T) {
	tests := []struct {
		name     string
		override gnmiLoginModel
		provider gnmiSettings
		wantPath path.Path // empty: no error
		want     string
	}{
		{name: "username completed by the provider", override: gnmiLoginModel{Username: types.StringValue("admin")},
			provider: gnmiSettings{Config: gnmi.Config{Password: "pw"}}},
		{name: "username alone", override: gnmiLoginModel{Username: types.StringValue("admin")},
			wantPath: path.Root("gnmi").AtName("username"), want: "gnmi.username is set for this switch but there is no password"},
		{name: "password alone", override: gnmiLoginModel{Password: types.StringValue("pw")},
			wantPath: path.Root("gnmi").AtName("password"), want: "(or ROCE_GNMI_USERNAME)"},
		{name: "cert file alone", override: gnmiLoginModel{CertFile: types.StringValue("/c.pem")},
			wantPath: path.Root("gnmi").AtName("cert_file"), want: "there is no key_file"},
		{name: "CA under an insecure provider", override: gnmiLoginModel{CAFile: types.StringValue("/ca.pem")},
			provider: gnmiSettings{Config: gnmi.Config{Insecure: true}},
			wantPath: path.Root("gnmi").AtName("ca_file"), want: "set gnmi.insecure = false for this switch"},
		{name: "insecure here under the provider's CA", override: gnmiLoginModel{Insecure: types.BoolValue(true)},
			provider: gnmiSettings{Config: gnmi.Config{CAFile: "/ca.pem", ServerName: "leaf1"}},
			wantPath: path.Root("gnmi").AtName("insecure"), want: "yet the provider's gnmi.ca_file, the provider's gnmi.server_name is set"},
		{name: "server name under an insecure provider", override: gnmiLoginModel{ServerName: types.StringValue("leaf1"), Username: types.StringValue("admin")},
			provider: gnmiSettings{Config: gnmi.Config{Insecure: true, Password: "pw"}},
			wantPath: path.Root("gnmi").AtName("server_name"), want: "This switch sets gnmi.server_name, but the provider's gnmi.insecure = true"},
		{name: "the provider's own half pair", override: gnmiLoginModel{CAFile: types.StringValue("/ca.pem")},
			provider: gnmiSettings{Config: gnmi.Config{Username: "admin"}}},
		{name: "CA with insecure turned off here", override: gnmiLoginModel{CAFile: types.StringValue("/ca.pem"), Insecure: types.BoolValue(false)},
			provider: gnmiSettings{Config: gnmi.Config{Insecure: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := switchQoSModel{GNMI: &tt.override}
			var diags diag.Diagnostics
			ok := m.checkConnection(settings{GNMI: tt.provider}, &diags)
			if tt.want == "" {
				if !ok || diags.HasError() {
					t.Fatalf("unexpected errors: %v", diags)
				}
				return
			}
			if ok || diags.ErrorsCount() != 1 {
				t.Fatalf("got %v, want one error", diags)
			}
			d, _ := diags[0].(diag.DiagnosticWithPath)
			if d == nil || !d.Path().Equal(tt.wantPath) || !strings.Contains(d.Detail(), tt.want) {
				t.Errorf("got %v, want an error on %s containing %q", diags[0], tt.wantPath, tt.want)
			}
		})
	}
}

// TestSwitchQoSValidateLeavesUnsetAlone: an unset port speed, release or gnmi block is not
// an error; name = "" and mark_probability_percent = 0 are.
func TestSwitchQoSValidateLeavesUnsetAlone(t *testing.T) {
	base := func() switchQoSModel {
		return switchQoSModel{
			Name: types.StringNull(), Ports: stringList([]string{"Ethernet0"}), CableLengthM: types.Int64Value(5),
			PortSpeedGbps: types.Int64Null(), SONiCRelease: types.StringNull(),
			ECN: &ecnModel{MinThresholdBytes: types.Int64Value(102400), MaxThresholdBytes: types.Int64Value(153600), MarkProbabilityPercent: types.Int64Null()},
			PFC: &pfcModel{PauseThresholdBytes: types.Int64Value(256000), RatioMin: types.Float64Null(), RatioMax: types.Float64Null(), RatioTarget: types.Float64Null()},
		}
	}
	m := base()
	if fs := m.validate(); fs.hasErrors() {
		t.Fatalf("unset attributes: %v", fs)
	}
	m.Name = types.StringValue("")
	m.ECN.MarkProbabilityPercent = types.Int64Value(0)
	var got []string
	for _, p := range m.validate() {
		if !p.warning {
			got = append(got, p.at.String())
		}
	}
	if strings.Join(got, " ") != "ecn.mark_probability_percent name" {
		t.Errorf("errors on %v, want ecn.mark_probability_percent and name", got)
	}
}

// TestSwitchQoSValidateGNMIConflicts: insecure = true with TLS settings in the resource's own
// block is refused without the provider; a half pair waits for the provider's settings.
func TestSwitchQoSValidateGNMIConflicts(t *testing.T) {
	o := &gnmiLoginModel{Insecure: types.BoolValue(true), CAFile: types.StringValue("/ca.pem"), Username: types.StringValue("admin")}
	fs := o.conflicts()
	if len(fs) != 1 || !fs[0].at.Equal(attrPath("gnmi", "insecure")) || !strings.Contains(fs[0].detail, "yet gnmi.ca_file is set") {
		t.Errorf("conflicts() = %v, want one on gnmi.insecure naming gnmi.ca_file", fs)
	}
	if fs := (&gnmiLoginModel{Insecure: types.BoolUnknown(), CAFile: types.StringValue("/ca.pem")}).conflicts(); len(fs) != 0 {
		t.Errorf("unknown insecure: conflicts() = %v, want none", fs)
	}
}

// TestSwitchQoSCheckNVUE lays the resource's nvue block over the provider's: a half login
// or a CA under insecure is refused on the resource's attribute; what the provider leaves
// out entirely is the resource's to give.
func TestSwitchQoSCheckNVUE(t *testing.T) {
	tests := []struct {
		name     string
		override nvueLoginModel
		provider nvue.Config
		wantPath path.Path // empty: no error
		want     string
	}{
		{name: "login here", override: nvueLoginModel{Username: types.StringValue("nv"), Password: types.StringValue("pw")}},
		{name: "username completed by the provider", override: nvueLoginModel{Username: types.StringValue("nv")}, provider: nvue.Config{Password: "pw"}},
		{name: "username alone", override: nvueLoginModel{Username: types.StringValue("nv")},
			wantPath: path.Root("nvue").AtName("username"), want: "nvue.username is set for this switch but there is no nvue.password"},
		{name: "insecure here under the provider's CA", override: nvueLoginModel{Insecure: types.BoolValue(true)},
			provider: nvue.Config{Username: "nv", Password: "pw", CAFile: "/ca.pem"},
			wantPath: path.Root("nvue").AtName("insecure"), want: "yet the provider's nvue.ca_file is set"},
		{name: "CA under an insecure provider", override: nvueLoginModel{CAFile: types.StringValue("/ca.pem")},
			provider: nvue.Config{Username: "nv", Password: "pw", Insecure: true},
			wantPath: path.Root("nvue").AtName("ca_file"), want: "set nvue.insecure = false for this switch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := switchQoSModel{NVUE: &tt.override}
			var diags diag.Diagnostics
			ok := m.checkConnection(settings{NVUE: nvueSettings{Config: tt.provider}}, &diags)
			if tt.want == "" {
				if !ok || diags.HasError() {
					t.Fatalf("unexpected errors: %v", diags)
				}
				return
			}
			if ok || diags.ErrorsCount() != 1 {
				t.Fatalf("got %v, want one error", diags)
			}
			d, _ := diags[0].(diag.DiagnosticWithPath)
			if d == nil || !d.Path().Equal(tt.wantPath) || !strings.Contains(d.Detail(), tt.want) {
				t.Errorf("got %v, want an error on %s containing %q", diags[0], tt.wantPath, tt.want)
			}
		})
	}
	fs := (&nvueLoginModel{Insecure: types.BoolValue(true), CAFile: types.StringValue("/ca.pem")}).conflicts()
	if len(fs) != 1 || !fs[0].at.Equal(attrPath("nvue", "insecure")) || !strings.Contains(fs[0].detail, "yet nvue.ca_file is set") {
		t.Errorf("conflicts() = %v, want one on nvue.insecure", fs)
	}
}
