//go:build bench

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runWatch runs watch on a goroutine of its own with the ticks the test sends; a tick is
// handed over only when watch is back waiting, so the one after a tick marks its work done.
// stop ends watch and waits for it.
func runWatch(watch func(ticks <-chan time.Time, done <-chan struct{})) (ticks chan<- time.Time, stop func()) {
	t, done, stopped := make(chan time.Time), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		watch(t, done)
	}()
	return t, func() {
		close(done)
		<-stopped
	}
}

func TestWatchHeapPeakRewritesOnGrowth(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heap-peak.pprof")
	ticks, stop := runWatch(func(ticks <-chan time.Time, done <-chan struct{}) { watchHeapPeak(path, ticks, done) })
	runtime.GC()        // what earlier tests left is not counted as the first sample
	ticks <- time.Now() // the first sample always exceeds nothing profiled yet
	ticks <- time.Now() // handed over only once the first sample's profile is written
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no profile after the first sample: %v", err)
	}
	grown := make([][]byte, 64)
	for i := range grown {
		grown[i] = make([]byte, 1<<20) // 64 MiB more live: far past a tenth
	}
	ticks <- time.Now()
	ticks <- time.Now()
	stop()
	second, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(first, second) {
		t.Error("the profile was not rewritten after the heap grew by 64 MiB")
	}
	runtime.KeepAlive(grown)
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("a temporary profile was left behind: %v", err)
	}
}

func TestKeepUsageRewritesWhileRunning(t *testing.T) {
	path := filepath.Join(t.TempDir(), "usage-1")
	ticks, stop := runWatch(func(ticks <-chan time.Time, done <-chan struct{}) { keepUsage(path, ticks, done) })
	ticks <- time.Now()
	ticks <- time.Now() // handed over only once the first tick's file is written
	kib, cpu := readUsage(t, path)
	if kib <= 0 {
		t.Errorf("peak RSS %d KiB, want more than 0", kib)
	}
	// Burn CPU, then the next tick must report more of it.
	want := cpu + 20*time.Millisecond
	for round := 0; ; round++ {
		ticks <- time.Now()
		ticks <- time.Now()
		if _, now := readUsage(t, path); now >= want {
			break
		} else if round == 1000 {
			t.Fatalf("the usage file still says %s of CPU after 1000 rounds of work, want %s", now, want)
		}
		for i := 0; i < 1e6; i++ {
			_ = strconv.Itoa(i)
		}
	}
	stop()
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("a temporary usage file was left behind: %v", err)
	}
}

// readUsage parses a usage file: "<KiB> <µs>".
func readUsage(t *testing.T, path string) (int64, time.Duration) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		t.Fatalf("usage file %q: want two fields", b)
	}
	kib, err1 := strconv.ParseInt(f[0], 10, 64)
	us, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("usage file %q: %v %v", b, err1, err2)
	}
	return kib, time.Duration(us) * time.Microsecond
}

func TestStartUsageLogRefusesAMissingDirectory(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "absent")
	if _, err := startUsageLog(missing); err == nil || !strings.Contains(err.Error(), envUsageDir) || !strings.Contains(err.Error(), missing) {
		t.Errorf("startUsageLog(%q) = %v, want an error naming %s and the path", missing, err, envUsageDir)
	}
	dir := t.TempDir()
	stop, err := startUsageLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || !strings.HasPrefix(entries[0].Name(), "usage-") {
		t.Errorf("the usage directory holds %v (%v), want one usage file", entries, err)
	}
}
