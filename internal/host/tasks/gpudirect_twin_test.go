package tasks

import (
	"errors"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
)

func TestGPUDirectTwin(t *testing.T) {
	f := ofedFleet(t,
		hosttwin.HostSpec{Name: "wrongorder", Profile: "peermem-wrong-order"},
		hosttwin.HostSpec{Name: "dmabuf", Profile: "dmabuf"},
		hosttwin.HostSpec{Name: "cx7", Profile: "cx7"},
		hosttwin.HostSpec{Name: "order", Profile: "inbox"},
	)
	t.Run("wrong order, then dkms autoinstall", func(t *testing.T) { testTwinWrongOrder(t, f) })
	t.Run("auto picks DMA-BUF", func(t *testing.T) { testTwinDMABUF(t, f) })
	t.Run("auto on proprietary modules", func(t *testing.T) { testTwinAutoPeermem(t, f) })
	t.Run("OFED install, then peermem", func(t *testing.T) { testTwinInstallOrder(t, f) })
}

// peermemState reads whether nvidia_peermem is loaded and registered.
func peermemState(t *testing.T, e host.Engine) (loaded, registered bool) {
	t.Helper()
	fs, err := host.Gather(t.Context(), e.Runner, host.WantFacts(host.FactModules, host.FactPeerMem))
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	return fs.ModuleLoaded(peermem), fs.PeerMem.Registered
}

// testTwinWrongOrder loads nvidia_peermem on a host whose NVIDIA driver was
// built before OFED: a clear error, then, after the rebuild, a load that
// survives a reboot.
func testTwinWrongOrder(t *testing.T, f *hosttwin.Fleet) {
	e := ofedEngine(t, f, "wrongorder")
	task := GPUDirect{Mode: GPUDirectPeermem}
	_, err := e.Apply(t.Context(), []host.Task{task})
	if !errors.Is(err, ErrDriverBuiltBeforeOFED) {
		t.Fatalf("Apply: %v; want ErrDriverBuiltBeforeOFED", err)
	}
	for _, part := range []string{"apply gpudirect peermem on", "load kernel module nvidia_peermem",
		"reinstall or rebuild the NVIDIA driver after OFED (dkms autoinstall, or reinstall the driver package)",
		"Invalid argument"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error lacks %q:\n%v", part, err)
		}
	}
	if log := onTwin(t, f, "wrongorder", "dmesg"); !strings.Contains(log, "disagrees about version of symbol ib_register_peer_memory_client") {
		t.Errorf("dmesg does not show the symbol mismatch:\n%s", log)
	}
	onTwin(t, f, "wrongorder", "dkms autoinstall")
	rep := applied(t, e, task)
	if got := summariesOf(rep); len(got) != 2 {
		t.Errorf("apply after the rebuild: %q, want the load and the modules-load.d file", got)
	}
	if loaded, reg := peermemState(t, e); !loaded || !reg {
		t.Errorf("after apply: loaded %v, registered %v", loaded, reg)
	}
	requireNoChanges(t, e, task)
	if err := f.Reboot(t.Context(), "wrongorder"); err != nil {
		t.Fatalf("Reboot: %v", err)
	}
	if loaded, reg := peermemState(t, e); !loaded || !reg {
		t.Errorf("after reboot: loaded %v, registered %v (modules-load.d)", loaded, reg)
	}
	requireNoChanges(t, e, task)
}

// testTwinDMABUF chooses DMA-BUF on open modules and loads nothing.
func testTwinDMABUF(t *testing.T, f *hosttwin.Fleet) {
	e := ofedEngine(t, f, "dmabuf")
	task := GPUDirect{}
	fs, err := host.Gather(t.Context(), e.Runner, task.Needs())
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	if mode, why, err := task.Choose(fs); mode != GPUDirectDMABUF || err != nil {
		t.Fatalf("Choose = %q (%s), %v; want dmabuf", mode, why, err)
	}
	rep := applied(t, e, task)
	if rep.Changed() || rep.RoundTrips != 1 {
		t.Errorf("apply: changed %v, %d round trips; want nothing but the gather", rep.Changed(), rep.RoundTrips)
	}
	if !strings.Contains(rep.String(), "GPUDirect RDMA through DMA-BUF, nothing to load (auto: DMA-BUF is available") {
		t.Errorf("report does not say DMA-BUF is used:\n%s", rep)
	}
	if loaded, _ := peermemState(t, e); loaded {
		t.Error("nvidia_peermem was loaded on a DMA-BUF host")
	}
}

// testTwinAutoPeermem falls back to nvidia-peermem on the proprietary
// modules and refuses dmabuf there.
func testTwinAutoPeermem(t *testing.T, f *hosttwin.Fleet) {
	e := ofedEngine(t, f, "cx7")
	_, err := e.Plan(t.Context(), []host.Task{GPUDirect{Mode: GPUDirectDMABUF}})
	if !errors.Is(err, ErrDMABUFUnavailable) || !strings.Contains(err.Error(), "uses the proprietary kernel modules, DMA-BUF needs the open ones") {
		t.Errorf("Plan dmabuf: %v; want ErrDMABUFUnavailable with the reason", err)
	}
	rep := applied(t, e, GPUDirect{})
	if !strings.Contains(strings.Join(summariesOf(rep), "\n"), "load kernel module nvidia_peermem") {
		t.Errorf("auto did not load nvidia_peermem:\n%s", rep)
	}
	// gather, modprobe, the modules-load.d write, the verifying gather
	if rep.RoundTrips != 4 {
		t.Errorf("apply took %d round trips, want 4", rep.RoundTrips)
	}
	if loaded, reg := peermemState(t, e); !loaded || !reg {
		t.Errorf("after apply: loaded %v, registered %v", loaded, reg)
	}
}

// testTwinInstallOrder follows the ordering rule on an inbox host:
// nvidia_peermem needs OFED; after installing it the driver must be rebuilt.
func testTwinInstallOrder(t *testing.T, f *hosttwin.Fleet) {
	e := ofedEngine(t, f, "order")
	task := GPUDirect{}
	if _, err := e.Plan(t.Context(), []host.Task{task}); !errors.Is(err, ErrPeermemNeedsOFED) {
		t.Fatalf("Plan on inbox: %v; want ErrPeermemNeedsOFED", err)
	}
	applied(t, e, twinPin("doca", doca2510))
	if _, err := e.Apply(t.Context(), []host.Task{task}); !errors.Is(err, ErrDriverBuiltBeforeOFED) {
		t.Fatalf("Apply right after the OFED install: %v; want ErrDriverBuiltBeforeOFED", err)
	}
	onTwin(t, f, "order", "dkms autoinstall")
	applied(t, e, task)
	requireNoChanges(t, e, task, twinPin("doca", doca2510))
}
