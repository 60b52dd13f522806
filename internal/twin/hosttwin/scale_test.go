package hosttwin

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestSixteenHostsStartFast(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 16 sshd")
	}
	requireTwins(t)
	var specs []HostSpec
	for i := range 16 {
		specs = append(specs, HostSpec{Name: fmt.Sprintf("node-%02d", i)})
	}
	began := time.Now()
	f, err := Start(context.Background(), Options{Hosts: specs})
	took := time.Since(began)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Start of 16 hosts took %v", took)
	snap := takeSnapshot(t, f)
	var wg sync.WaitGroup
	for _, h := range f.Hosts() {
		wg.Go(func() {
			if got := sshRun(t, dial(t, h), "cat /etc/hostname"); got != h.Name+"\n" {
				t.Errorf("%s: hostname %q", h.Name, got)
			}
		})
	}
	wg.Wait()
	began = time.Now()
	if err := f.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("Stop of 16 hosts took %v", time.Since(began))
	snap.requireClean(t, false)
	// Generous bound for a loaded 2-core machine; the aim is < 20 s.
	if took > 60*time.Second {
		t.Errorf("16 hosts took %v to start, want well under 60s", took)
	}
}
