// Command terraform-provider-roce serves the roce Terraform provider.
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/clusterbid/terraform-provider-roce/internal/provider"
)

// version is set by the release build (goreleaser ldflags).
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	followTerraformLogLevel(os.LookupEnv, os.Setenv)
	stop, err := startInstrumentation()
	if err != nil {
		log.Fatal(err)
	}
	err = providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/clusterbid/roce",
		Debug:   debug,
	})
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

// sdkLogLevels are the variables that set the level of each logger a provider process writes
// through: terraform-plugin-go's SDK and protocol loggers (terraform-plugin-go v0.31.0,
// internal/logging/context.go), the framework's (terraform-plugin-framework v1.19.0,
// internal/logging/environment_variables.go) and the provider's own root logger,
// TF_LOG_PROVIDER_<type> (tf6server.New), above the ssh and gnmi subsystems.
var sdkLogLevels = []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER_ROCE"}

// followTerraformLogLevel gives every unset SDK level the level at which Terraform keeps a
// provider's log lines: TF_LOG_PROVIDER, else TF_LOG, off when neither is set, TRACE for JSON
// or a name it does not know (terraform v1.8.5, internal/logging/logging.go,
// providerLogLevel and parseLogLevel; OpenTofu reads the same variables). The SDK's loggers
// default to TRACE whatever Terraform keeps, so without this the provider encodes every
// framework trace line as JSON for Terraform to parse and drop: a sixth of a plan's provider
// CPU in a profile of 32 hosts. A level set explicitly is left alone.
func followTerraformLogLevel(lookup func(string) (string, bool), set func(string, string) error) {
	level, _ := lookup("TF_LOG_PROVIDER")
	if level == "" {
		level, _ = lookup("TF_LOG")
	}
	switch level = strings.ToUpper(level); level {
	case "":
		level = "OFF"
	case "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF":
	default: // JSON, or a name Terraform answers with a warning and TRACE
		level = "TRACE"
	}
	for _, v := range sdkLogLevels {
		if _, ok := lookup(v); !ok {
			_ = set(v, level)
		}
	}
}
