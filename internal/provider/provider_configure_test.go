package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// configure runs the provider's Configure with a configuration built from model, the way
// Terraform's ConfigureProvider call reaches it, and an environment of env.
func configure(t *testing.T, model providerModel, env map[string]string) *provider.ConfigureResponse {
	t.Helper()
	ctx := t.Context()
	p := &roceProvider{version: "test", getenv: envOf(env)}
	var schemaResp provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &schemaResp)
	plan := tfsdk.Plan{Schema: schemaResp.Schema, Raw: tftypes.NewValue(schemaResp.Schema.Type().TerraformType(ctx), nil)}
	if diags := plan.Set(ctx, &model); diags.HasError() {
		t.Fatalf("building configuration: %v", diags)
	}
	var resp provider.ConfigureResponse
	p.Configure(ctx, provider.ConfigureRequest{Config: tfsdk.Config(plan)}, &resp)
	return &resp
}

func TestConfigureHandsSettingsToResources(t *testing.T) {
	model := providerModel{
		SSH:  &sshModel{User: types.StringValue("ubuntu"), KnownHostsFile: types.StringValue("/etc/ssh/ssh_known_hosts"), PrivateKeyFile: types.StringValue("/keys/id_ed25519")},
		GNMI: &gnmiModel{gnmiLoginModel: gnmiLoginModel{Username: types.StringValue("admin"), CAFile: types.StringValue("/pki/ca.pem")}},
	}
	resp := configure(t, model, map[string]string{envGNMIPassword: "from-env", envGNMIPort: "8080"})
	if resp.Diagnostics.HasError() {
		t.Fatalf("Configure: %v", resp.Diagnostics)
	}
	data, ok := resp.ResourceData.(*providerData)
	if !ok || resp.DataSourceData != resp.ResourceData {
		t.Fatalf("resource data %T, data source data %T: want the same *providerData", resp.ResourceData, resp.DataSourceData)
	}
	got := data.settings
	if got.SSH.User != "ubuntu" || !got.SSH.Become.Enabled || got.GNMI.Password != "from-env" || got.GNMI.Port != 8080 {
		t.Errorf("settings not resolved from configuration and environment: %+v", got)
	}
}

func TestConfigureRefusesBadEnvironment(t *testing.T) {
	resp := configure(t, providerModel{}, map[string]string{envSSHConnectTimeout: "soon"})
	if !resp.Diagnostics.HasError() {
		t.Fatal("Configure accepted ROCE_SSH_CONNECT_TIMEOUT=soon")
	}
	if resp.ResourceData != nil {
		t.Error("Configure handed out provider data despite an error")
	}
}
