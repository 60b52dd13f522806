package preflight

import (
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

func TestCheckGPUDirect(t *testing.T) {
	proprietary := func(f host.Facts) host.Facts { f.NVIDIA.Open = false; return f }
	oldKernel := func(f host.Facts) host.Facts {
		f.Kernel = host.Kernel{Release: "5.10.0-28-amd64", Major: 5, Minor: 10}
		return f
	}
	unloaded := func(f host.Facts) host.Facts {
		f.Modules = map[string]facts.Module{"nvidia": {}}
		f.PeerMem = facts.PeerMem{}
		return f
	}
	unregistered := func(f host.Facts) host.Facts { f.PeerMem = facts.PeerMem{}; return f }
	legacy := func(f host.Facts) host.Facts { f.Modules = map[string]facts.Module{"nv_peer_mem": {}}; return f }
	inbox := func(f host.Facts) host.Facts { f.OFED = facts.OFEDInfo{Flavor: facts.OFEDInbox}; return f }
	logDMABuf := DefaultOptions()
	logDMABuf.NCCLLog = &facts.NCCLLog{DMABufGPUs: []string{"0", "1"}}
	notRequired := DefaultOptions()
	notRequired.RequireGDR = false

	tests := []struct {
		name       string
		f          host.Facts
		o          Options
		pass       bool
		wantDetail []string
		wantRemedy []string
	}{
		{"peermem and DMA-BUF", goodHost(), DefaultOptions(), true,
			[]string{"nvidia_peermem loaded and registered (nv_mem version 550.54.15)", "DMA-BUF ready: kernel 6.8.0-45-generic", "NCCL prefers DMA-BUF"}, nil},
		{"peermem only", proprietary(goodHost()), DefaultOptions(), true,
			[]string{"nvidia_peermem loaded and registered", "DMA-BUF unavailable: NVIDIA driver 550.54.15 uses the proprietary kernel modules"}, nil},
		{"DMA-BUF only", unloaded(goodHost()), DefaultOptions(), true,
			[]string{"nvidia_peermem not loaded", "DMA-BUF ready"}, nil},
		{"legacy nv_peer_mem registered", proprietary(legacy(goodHost())), DefaultOptions(), true,
			[]string{"registered, but nvidia_peermem is not loaded"}, nil},
		{"loaded, not registered", proprietary(unregistered(goodHost())), DefaultOptions(), false,
			[]string{"nvidia_peermem loaded but not registered: /sys/kernel/mm/memory_peers/nv_mem/version is missing"},
			[]string{"reinstall the NVIDIA driver (DKMS rebuild", "or use DMA-BUF"}},
		{"nothing", oldKernel(unloaded(goodHost())), DefaultOptions(), false,
			[]string{"nvidia_peermem not loaded", "DMA-BUF unavailable: kernel 5.10.0-28-amd64 is older than 5.12"},
			[]string{"modprobe nvidia-peermem", "/etc/modules-load.d/nvidia-peermem.conf", "Invalid argument", "now: kernel 5.10.0-28-amd64 is older than 5.12"}},
		{"nothing on inbox rdma-core", inbox(proprietary(unloaded(goodHost()))), DefaultOptions(), false,
			[]string{"nvidia_peermem not loaded"}, []string{"inbox rdma-core"}},
		{"NCCL log says DMA-BUF", proprietary(unloaded(goodHost())), logDMABuf, true,
			[]string{"NCCL log: DMA-BUF is available on GPU device 0, 1"}, nil},
		{"not required", proprietary(unloaded(goodHost())), notRequired, true,
			[]string{"nvidia_peermem not loaded", "(GPU Direct RDMA not required)"}, nil},
		{"peermem facts missing, DMA-BUF ready", without(goodHost(), host.FactModules, host.FactPeerMem), DefaultOptions(), true,
			[]string{"nvidia-peermem not checked: lsmod not gathered; memory_peers not gathered", "DMA-BUF ready"}, nil},
		{"peermem facts missing, no DMA-BUF", proprietary(without(goodHost(), host.FactModules)), DefaultOptions(), false,
			[]string{"nvidia-peermem not checked: lsmod not gathered"}, []string{"gather lsmod and memory_peers"}},
		{"driver facts missing", unloaded(without(goodHost(), host.FactNVIDIA)), DefaultOptions(), false,
			[]string{"DMA-BUF unavailable: NVIDIA driver not loaded or not gathered"}, []string{"modprobe nvidia-peermem"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := checkGPUDirect(tt.f, tt.o)
			wellFormed(t, []verdict.Verdict{v})
			if v.Check != CheckGPUDirect || v.Subject != "" || v.Pass != tt.pass {
				t.Fatalf("verdict = %+v, want check %s, no subject, pass %v", v, CheckGPUDirect, tt.pass)
			}
			wantText(t, "detail", v.Detail, tt.wantDetail...)
			wantText(t, "remedy", v.Remedy, tt.wantRemedy...)
		})
	}
}

// The real lsmod sample has nvidia_peermem loaded; without memory_peers it
// is loaded but not registered.
func TestCheckGPUDirectSample(t *testing.T) {
	mods, err := facts.ParseLsmod(fixture(t, "lsmod.txt"))
	if err != nil {
		t.Fatal(err)
	}
	f := goodHost()
	f.Modules, f.PeerMem, f.NVIDIA.Open = mods, facts.PeerMem{}, false
	v := checkGPUDirect(f, DefaultOptions())
	if v.Pass {
		t.Fatalf("verdict = %+v, want a failure", v)
	}
	wantText(t, "detail", v.Detail, "nvidia_peermem loaded but not registered")
	f.PeerMem = facts.PeerMem{Registered: true}
	if v := checkGPUDirect(f, DefaultOptions()); !v.Pass {
		t.Errorf("registered: verdict = %+v, want a pass", v)
	}
}

func TestCheckACS(t *testing.T) {
	v := checkACS()
	wellFormed(t, []verdict.Verdict{v})
	if v.Check != CheckACS || !v.Pass {
		t.Fatalf("verdict = %+v, want a passing note", v)
	}
	wantText(t, "detail", v.Detail, "not readable", "SrcValid+")
}
