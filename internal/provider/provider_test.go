package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

// testProviderFactories runs the provider in-process for the real Terraform CLI.
var testProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"roce": providerserver.NewProtocol6WithError(New("test")()),
}

// functionsVersionCheck skips nothing on the pinned CLI; it documents that provider functions
// need Terraform 1.8 should someone point the tests at an older binary.
var functionsVersionCheck = []tfversion.TerraformVersionCheck{
	tfversion.SkipBelow(tfversion.Version1_8_0),
}

// TestMain points terraform-plugin-testing at the project's pinned Terraform CLI. Without a
// binary the harness would try to download one, which must never happen in a test run.
func TestMain(m *testing.M) {
	// Configurations name the provider by its registry source, clusterbid/roce.
	if os.Getenv("TF_ACC_PROVIDER_NAMESPACE") == "" {
		_ = os.Setenv("TF_ACC_PROVIDER_NAMESPACE", "clusterbid")
	}
	if os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
		local, err := filepath.Abs(filepath.Join("..", "..", "bin", "terraform"))
		if err == nil {
			if _, statErr := os.Stat(local); statErr == nil {
				_ = os.Setenv("TF_ACC_TERRAFORM_PATH", local)
			}
		}
	}
	if os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
		fmt.Fprintln(os.Stderr, "no Terraform CLI: run `make tools` (installs bin/terraform) or set TF_ACC_TERRAFORM_PATH")
		os.Exit(1)
	}
	code := m.Run()
	if stopHostTwins() != 0 && code == 0 {
		code = 1
	}
	os.Exit(code)
}

func TestProviderSchemaValidates(t *testing.T) {
	s := providerSchema()
	if diags := s.ValidateImplementation(t.Context()); diags.HasError() {
		t.Fatalf("provider schema: %v", diags)
	}
}
