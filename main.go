// Command terraform-provider-roce serves the roce Terraform provider.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime/pprof"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/clusterbid/terraform-provider-roce/internal/provider"
)

// version is set by the release build (goreleaser ldflags).
var version = "dev"

// envCPUProfile names a directory where each provider process writes a CPU profile of its
// whole run, cpu-<pid>.pprof, for go tool pprof (make bench -pprof sets it). Terraform starts
// a provider process per walk and stops it with a graceful gRPC shutdown, so Serve returns
// and the profile is complete.
const envCPUProfile = "ROCE_PROVIDER_CPUPROFILE"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	stop, err := startCPUProfile(os.Getenv(envCPUProfile))
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

// startCPUProfile starts a CPU profile into dir (nothing when dir is empty) and returns what
// ends it.
func startCPUProfile(dir string) (stop func(), err error) {
	if dir == "" {
		return func() {}, nil
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("cpu-%d.pprof", os.Getpid())))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", envCPUProfile, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", envCPUProfile, err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
