//go:build bench

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

// Terraform stops a provider process at the end of each walk and kills it if it has not
// exited 2 seconds later (terraform v1.8.5 uses go-plugin v1.4.3, client.go, Client.Kill).
// So what a process writes about itself only when it exits can be lost; the figures the bench
// needs are kept up to date while it runs.

// envCPUProfile names a directory where each provider process writes a CPU profile of its
// whole run, cpu-<pid>.pprof, a heap profile when it ends, heap-<pid>.pprof (what it
// allocated over the run, and what was live at the last collection), and one taken when its
// live heap was largest, heap-peak-<pid>.pprof (what its peak RSS is made of), for go tool
// pprof (make bench -pprof sets it). The CPU and end-of-run profiles are written after Serve
// returns: a process killed before then leaves only its peak heap profile.
const envCPUProfile = "ROCE_PROVIDER_CPUPROFILE"

// envUsageDir names a directory where each provider process keeps usage-<pid>: its peak
// resident set in KiB (peakRSS) and its user and system CPU in microseconds, "<KiB> <µs>", rewritten
// every usageInterval and when it ends (make bench sets it). A process killed on its way out
// loses at most the CPU of its last interval.
const envUsageDir = "ROCE_PROVIDER_USAGE_DIR"

const usageInterval = 200 * time.Millisecond

// startInstrumentation starts what the bench reads of each provider process: the usage file
// and the profiles its environment asks for. The shipped binary has none of it (build tag
// bench; make bench-tools builds with it).
func startInstrumentation() (stop func(), err error) {
	stopUsage, err := startUsageLog(os.Getenv(envUsageDir))
	if err != nil {
		return nil, err
	}
	stopProfile, err := startCPUProfile(os.Getenv(envCPUProfile))
	if err != nil {
		stopUsage()
		return nil, err
	}
	return func() { stopProfile(); stopUsage() }, nil
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
	peak := filepath.Join(dir, fmt.Sprintf("heap-peak-%d.pprof", os.Getpid()))
	stopWatch := every(usageInterval, func(ticks <-chan time.Time, done <-chan struct{}) { watchHeapPeak(peak, ticks, done) })
	return func() {
		stopWatch()
		pprof.StopCPUProfile()
		f.Close()
		writeHeapProfile(filepath.Join(dir, fmt.Sprintf("heap-%d.pprof", os.Getpid())))
	}, nil
}

// startUsageLog keeps this process's usage file in dir (nothing when dir is empty) and
// returns what writes it a last time. A dir that is not a directory is an error, so a bench
// does not read a missing file as no provider at all.
func startUsageLog(dir string) (stop func(), err error) {
	if dir == "" {
		return func() {}, nil
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s=%q: want an existing directory for the usage files", envUsageDir, dir)
	}
	path := filepath.Join(dir, fmt.Sprintf("usage-%d", os.Getpid()))
	writeUsage(path)
	stopWatch := every(usageInterval, func(ticks <-chan time.Time, done <-chan struct{}) { keepUsage(path, ticks, done) })
	return func() {
		stopWatch()
		writeUsage(path)
	}, nil
}

// every runs watch with a ticker of period d on a goroutine of its own; the function it
// returns ends watch and waits for it.
func every(d time.Duration, watch func(ticks <-chan time.Time, done <-chan struct{})) (stop func()) {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(d)
		defer t.Stop()
		watch(t.C, done)
	}()
	return func() {
		close(done)
		<-stopped
	}
}

// keepUsage rewrites the usage file at path at each tick until done is closed.
func keepUsage(path string, ticks <-chan time.Time, done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case <-ticks:
			writeUsage(path)
		}
	}
}

// writeUsage writes this process's peak RSS and CPU so far to path.
func writeUsage(path string) {
	cpu, ok := processCPU()
	if !ok {
		return
	}
	kib, ok := peakRSS()
	if !ok {
		return
	}
	replaceFile(path, func(w io.Writer) error {
		_, err := fmt.Fprintln(w, kib, cpu.Microseconds())
		return err
	})
}

// peakRSS is this process's peak resident set in KiB: VmHWM of /proc/self/status. Not
// ru_maxrss: Linux keeps the larger of the process's own peak and that of the memory it
// replaced at exec, and Go starts programs with vfork, so a provider's ru_maxrss is at least
// Terraform's resident set when it started the provider (fs/exec.c, exec_mmap).
func peakRSS() (int64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kib, err == nil
		}
	}
	return 0, false
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

// writeHeapProfile writes the heap profile to path.
func writeHeapProfile(path string) {
	replaceFile(path, func(w io.Writer) error { return pprof.Lookup("heap").WriteTo(w, 0) })
}

// replaceFile writes path whole through a temporary file, so a reader never sees half of it.
func replaceFile(path string, write func(io.Writer) error) {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return
	}
	err = write(f)
	if cerr := f.Close(); err == nil && cerr == nil {
		_ = os.Rename(tmp, path)
		return
	}
	_ = os.Remove(tmp)
}
