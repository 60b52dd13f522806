// Command terraform-provider-roce serves the roce Terraform provider.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/clusterbid/terraform-provider-roce/internal/provider"
)

// version is set by the release build (goreleaser ldflags).
var version = "dev"

// envCPUProfile names a directory where each provider process writes a CPU profile of its
// whole run, cpu-<pid>.pprof, a heap profile when it ends, heap-<pid>.pprof (what it
// allocated over the run, and what was live at the last collection), and one taken when its
// live heap was largest, heap-peak-<pid>.pprof (what its peak RSS is made of), for go tool
// pprof (make bench -pprof sets it). Terraform starts a provider process per walk and stops it with a
// graceful gRPC shutdown, so Serve returns and the profiles are complete.
const envCPUProfile = "ROCE_PROVIDER_CPUPROFILE"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	followTerraformLogLevel(os.LookupEnv, os.Setenv)
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
	peakDone := make(chan struct{})
	peakStopped := make(chan struct{})
	go func() {
		defer close(peakStopped)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		watchHeapPeak(filepath.Join(dir, fmt.Sprintf("heap-peak-%d.pprof", os.Getpid())), tick.C, peakDone)
	}()
	return func() {
		close(peakDone)
		<-peakStopped
		pprof.StopCPUProfile()
		f.Close()
		writeHeapProfile(filepath.Join(dir, fmt.Sprintf("heap-%d.pprof", os.Getpid())))
	}, nil
}

// watchHeapPeak samples the heap's objects at each tick until done is closed and rewrites a
// heap profile at path each time they have grown a tenth past the most it has profiled, so
// the last one written shows what was live near the peak. The peak RSS the bench reports is
// that heap plus what the collector lets grow before its next cycle.
func watchHeapPeak(path string, ticks <-chan time.Time, done <-chan struct{}) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var profiled uint64
	for {
		select {
		case <-done:
			return
		case <-ticks:
		}
		metrics.Read(sample)
		if live := sample[0].Value.Uint64(); live > profiled+profiled/10 {
			writeHeapProfile(path)
			profiled = live
		}
	}
}

// writeHeapProfile writes the heap profile to path, replacing any earlier one whole.
func writeHeapProfile(path string) {
	tmp := path + ".tmp"
	h, err := os.Create(tmp)
	if err != nil {
		return
	}
	err = pprof.Lookup("heap").WriteTo(h, 0)
	if cerr := h.Close(); err == nil && cerr == nil {
		_ = os.Rename(tmp, path)
		return
	}
	_ = os.Remove(tmp)
}
