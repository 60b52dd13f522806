package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
)

// TestNCCLTestEnvHCAValidate runs what `terraform plan` validates for env's NCCL_IB_HCA:
// the diagnostics land on env["NCCL_IB_HCA"], not on the map or on an hcas attribute.
func TestNCCLTestEnvHCAValidate(t *testing.T) {
	tests := []struct {
		hcl      string
		severity tfprotov6.DiagnosticSeverity // 0: no diagnostic
		summary  string
		detail   string
	}{
		{hcl: `env = { NCCL_IB_HCA = "mlx5_1" }`, severity: tfprotov6.DiagnosticSeverityWarning, summary: "HCA Name Matches as a Prefix",
			detail: `env["NCCL_IB_HCA"] entry "mlx5_1" is a prefix and would also match mlx5_10..mlx5_19 and longer names: start the list with = ("=mlx5_1") for exact names`},
		{hcl: `env = { NCCL_IB_HCA = "=mlx5_1" }`},
		{hcl: `env = { NCCL_IB_HCA = "^=mlx5_1:1,mlx5_bond" }`},
		{hcl: `env = { NCCL_IB_HCA = "" }`},
		{hcl: `env = { NCCL_IB_HCA = "=mlx5_0:1:0:1" }`, severity: tfprotov6.DiagnosticSeverityWarning, summary: "NCCL Value Not Checked",
			detail: `env["NCCL_IB_HCA"]: NCCL_IB_HCA "=mlx5_0:1:0:1": entry "mlx5_0:1:0:1" has more than a port after the device: rail and plane suffixes are not supported, use name:port. ` +
				`NCCL reads the device:port:rail:plane form from 2.30.7-1 on; the provider checks only [^][=]device[:port],... Make sure every host runs NCCL 2.30.7-1 or later, or use device:port.`},
		{hcl: `env = { NCCL_IB_HCA = "=^mlx5_1" }`, severity: tfprotov6.DiagnosticSeverityError, summary: "Invalid NCCL Value",
			detail: `env["NCCL_IB_HCA"]: NCCL_IB_HCA "=^mlx5_1" puts = before ^: ^ must precede =, write "^=mlx5_1". NCCL reads NCCL_IB_HCA as [^][=]device[:port],...`},
	}
	p := newBadInputPlugin(t, nil)
	for _, tt := range tests {
		t.Run(tt.hcl, func(t *testing.T) {
			cfg := p.resourceConfig(t, "roce_nccl_test", &badInput{hcl: tt.hcl}, "")
			resp, err := p.srv.ValidateDataResourceConfig(callContext(t), &tfprotov6.ValidateDataResourceConfigRequest{TypeName: "roce_nccl_test", Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			if tt.severity == 0 {
				if len(resp.Diagnostics) > 0 {
					t.Fatalf("want no diagnostics, got: %s", describeDiags(resp.Diagnostics))
				}
				return
			}
			if len(resp.Diagnostics) != 1 {
				t.Fatalf("want one diagnostic, got: %s", describeDiags(resp.Diagnostics))
			}
			d := resp.Diagnostics[0]
			got := []any{d.Severity, pathString(d.Attribute), d.Summary, d.Detail}
			want := []any{tt.severity, `env["NCCL_IB_HCA"]`, tt.summary, tt.detail}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("diagnostic mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNCCLTestEnvHCADevices(t *testing.T) {
	spec, err := fabric.ParseHCAList("=mlx5_0,mlx5_4")
	if err != nil {
		t.Fatal(err)
	}
	four := []string{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"}
	vs := hcaDeviceWarnings(spec, []hostDevices{
		{host: "10.0.0.1", devices: four},
		{host: "10.0.0.2", devices: []string{"mlx5_0", "mlx5_4"}},
		{host: "10.0.0.3", devices: four},
		{host: "10.0.0.4", devices: []string{}},
	})
	var got problems
	got.add(vs, ncclTestNames)
	want := problems{{warning: true, at: envHCAPath, summary: "HCA Not Found",
		detail: `env["NCCL_IB_HCA"] entry "mlx5_4" matches none of the devices of 10.0.0.1, 10.0.0.3 (mlx5_0, mlx5_1, mlx5_2, mlx5_3): check the device name`}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(problem{}), cmp.Comparer(func(a, b path.Path) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("hcaDeviceWarnings mismatch (-want +got):\n%s", diff)
	}
}

// TestNCCLTestEnvHCAHostDevices reads roce_nccl_test on a host twin whose nccl-tests are
// missing: before the run fails, the host's RDMA devices are read and an NCCL_IB_HCA entry
// that selects none of them is a warning on env["NCCL_IB_HCA"] naming the host.
func TestNCCLTestEnvHCAHostDevices(t *testing.T) {
	fleet, _ := hostTwins(t)
	addr := twinAddress(t, fleet, "cx7")
	p := newBadInputPlugin(t, nil)
	ctx := callContext(t)
	conf, err := p.srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{TerraformVersion: "1.8.5", Config: p.providerConfig(t,
		fmt.Sprintf("ssh = { user = \"root\", private_key_file = %q, known_hosts_file = %q }", fleet.UserKeyFile(), fleet.KnownHostsFile()))})
	if err != nil || hasError(conf.Diagnostics) {
		t.Fatalf("ConfigureProvider: %v %s", err, describeDiags(conf.Diagnostics))
	}
	cfg := p.resourceConfig(t, "roce_nccl_test", &badInput{hcl: fmt.Sprintf(`hosts  = [%q]
binary = "/opt/none/all_reduce_perf"
env    = { NCCL_IB_HCA = "=mlx5_0,mlx5_9" }`, addr)}, "")
	resp, err := p.srv.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "roce_nccl_test", Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	var warnings []*tfprotov6.Diagnostic
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityWarning {
			warnings = append(warnings, d)
		}
	}
	want := regexp.MustCompile(`^env\["NCCL_IB_HCA"\] entry "mlx5_9" matches none of the devices of ` + regexp.QuoteMeta(addr) + ` \(mlx5_0, mlx5_1, .*\): check the device name$`)
	if len(warnings) != 1 || pathString(warnings[0].Attribute) != envHCAAttr || warnings[0].Summary != "HCA Not Found" || !want.MatchString(warnings[0].Detail) {
		t.Fatalf("want one HCA Not Found warning on %s matching %s; got: %s", envHCAAttr, want, describeDiags(resp.Diagnostics))
	}
	if !hasError(resp.Diagnostics) {
		t.Errorf("the run without nccl-tests should still fail: %s", describeDiags(resp.Diagnostics))
	}
}
