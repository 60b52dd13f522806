// Package provider is the terraform-plugin-framework glue of the roce provider: schemas,
// diagnostics and conversion between Terraform values and the domain packages. Nothing
// outside this package sees framework types.
package provider

import (
	"context"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

var (
	_ provider.Provider              = (*roceProvider)(nil)
	_ provider.ProviderWithFunctions = (*roceProvider)(nil)
)

// New returns a constructor for the roce provider at the given version.
func New(version string) func() provider.Provider {
	return func() provider.Provider {
		return &roceProvider{version: version, getenv: osGetenv}
	}
}

type roceProvider struct {
	version string
	// getenv is swapped in tests so the environment fallbacks can be exercised without
	// touching the process environment.
	getenv func(string) string
	// dialHost is set in tests that replay recorded hosts instead of reaching them over SSH.
	dialHost func(address string) (host.Runner, error)
}

func (p *roceProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "roce"
	resp.Version = p.version
}

func (p *roceProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = providerSchema()
}

func (p *roceProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var model providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}
	settings, diags := resolveSettings(model, p.getenv)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	data := newProviderData(settings)
	data.dialHost = p.dialHost
	resp.ResourceData = data
	resp.DataSourceData = data
}

func (p *roceProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		newSwitchQoSResource,
		newNCCLEnvProfileResource,
		newNICDCQCNResource,
		newHostBootstrapResource,
	}
}

func (p *roceProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		newHostFactsDataSource,
		newGDRPreflightDataSource,
		newFabricHealthDataSource,
		newNCCLTestDataSource,
	}
}

func (p *roceProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{
		newPFCHeadroomFunction,
		newToSFunction,
		newECNPFCFindingsFunction,
	}
}
