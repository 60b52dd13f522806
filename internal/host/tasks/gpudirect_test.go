package tasks

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

const peermemConfPath = ModulesLoadDir + "/nvidia_peermem.conf"

// gpuHost describes the host of a GPUDirect plan test.
type gpuHost struct {
	kernel     string // uname -r
	driver     string // NVIDIA driver version; "" when none is loaded
	open       bool   // open GPU kernel modules
	stack      facts.OFEDFlavor
	loaded     bool // nvidia_peermem in lsmod
	registered bool // memory_peers/nv_mem exists
	conf       bool // nvidia_peermem.conf as ModuleLoaded writes it
	altConf    bool // nvidia-peermem.conf, NVIDIA's name
}

func (g gpuHost) facts(t *testing.T) host.Facts {
	t.Helper()
	k, err := host.ParseKernelRelease(g.kernel)
	if err != nil {
		t.Fatal(err)
	}
	f := host.Facts{
		Host:     "gpu",
		Gathered: GPUDirect{}.Needs(),
		Absent:   map[string]string{},
		Kernel:   k,
		OFED:     facts.OFEDInfo{Flavor: g.stack},
		Modules:  map[string]facts.Module{"mlx5_core": {}, "nvidia": {}},
		Files: map[string]host.FileInfo{
			peermemConfPath: {Path: peermemConfPath},
			peermemConfAlt:  {Path: peermemConfAlt},
		},
	}
	if g.stack != facts.OFEDInbox {
		f.OFED.Version = doca2510
	}
	if g.driver == "" {
		f.Absent["nvidia driver"] = "exit status 1: cat: /proc/driver/nvidia/version: No such file or directory"
		delete(f.Modules, "nvidia")
	} else {
		f.NVIDIA = facts.NVIDIADriver{Version: g.driver, Open: g.open}
	}
	if g.loaded {
		f.Modules["nvidia_peermem"] = facts.Module{}
	}
	if g.registered {
		f.PeerMem = facts.PeerMem{Registered: true, Version: "1.3"}
	}
	if g.conf {
		f.Files[peermemConfPath] = existing("nvidia_peermem\n", 0o644)
	}
	if g.altConf {
		f.Files[peermemConfAlt] = existing("nvidia-peermem\n", 0o644)
	}
	return f
}

var (
	openHost  = gpuHost{kernel: "6.8.0-45-generic", driver: "550.54.15", open: true, stack: facts.OFEDDOCA}
	propHost  = gpuHost{kernel: "6.8.0-45-generic", driver: "550.54.15", stack: facts.OFEDDOCA}
	oldKernel = gpuHost{kernel: "5.10.0-28-amd64", driver: "550.54.15", open: true, stack: facts.OFEDDOCA}
)

func gpuWith(g gpuHost, change func(*gpuHost)) gpuHost { change(&g); return g }

func TestGPUDirectPlan(t *testing.T) {
	dmabufNote := "GPUDirect RDMA through DMA-BUF, nothing to load (auto: DMA-BUF is available: kernel 6.8.0-45-generic and open NVIDIA " +
		"kernel modules 550.54.15); NCCL logs \"DMA-BUF is available on GPU device\" when it uses it"
	peermemAuto := "GPUDirect RDMA through nvidia-peermem (auto: DMA-BUF is not available (NVIDIA driver 550.54.15 uses the proprietary " +
		"kernel modules, DMA-BUF needs the open ones): nvidia-peermem instead)"
	sum := shortHash(sha256Hex([]byte("nvidia_peermem\n")))
	load := change{"load kernel module nvidia_peermem", "not loaded", "loaded", []string{"run: modprobe nvidia_peermem (as root)"}}
	persist := change{"load at boot: create " + peermemConfPath + " (15 bytes)", "absent", "sha256 " + sum + " (15 bytes), mode 0644",
		[]string{"write: " + peermemConfPath + " (15 bytes, mode 0644) (as root)"}}
	tests := []struct {
		name string
		task GPUDirect
		host gpuHost
		want []change
	}{
		{"auto picks DMA-BUF", GPUDirect{}, openHost, []change{{Summary: dmabufNote}}},
		{"DMA-BUF leaves peermem alone", GPUDirect{Mode: "auto"}, gpuWith(openHost, func(g *gpuHost) { g.loaded, g.conf, g.altConf = true, true, true }),
			[]change{{Summary: dmabufNote}, {Summary: "nvidia_peermem is loaded, loaded at boot by " + peermemConfPath + ", loaded at boot by " +
				peermemConfAlt + "; left as is, NCCL prefers DMA-BUF when both work (delete the modules-load.d file to stop loading it at boot)"}}},
		{"DMA-BUF asked for", GPUDirect{Mode: "dmabuf"}, openHost, []change{{Summary: "GPUDirect RDMA through DMA-BUF, nothing to load " +
			"(DMA-BUF asked for: kernel 6.8.0-45-generic and open NVIDIA kernel modules 550.54.15); NCCL logs \"DMA-BUF is available on GPU device\" when it uses it"}}},
		{"auto falls back to peermem", GPUDirect{}, propHost, []change{{Summary: peermemAuto}, load, persist}},
		{"peermem asked for on a DMA-BUF host", GPUDirect{Mode: "peermem"}, openHost,
			[]change{{Summary: "GPUDirect RDMA through nvidia-peermem (nvidia-peermem asked for)"}, load, persist}},
		{"peermem loaded, registered, persisted", GPUDirect{}, gpuWith(propHost, func(g *gpuHost) { g.loaded, g.registered, g.conf = true, true, true }),
			[]change{{Summary: peermemAuto}, {Summary: "nvidia_peermem is loaded"},
				{Summary: "loaded at boot: " + peermemConfPath + " has the wanted content (sha256 " + sum + ") and mode"},
				{Summary: "nvidia_peermem registered with OFED's peer-memory API (/sys/kernel/mm/memory_peers/nv_mem/version: 1.3)"}}},
		{"no NVIDIA driver loaded", GPUDirect{}, gpuWith(propHost, func(g *gpuHost) { g.driver = "" }),
			[]change{{Summary: "GPUDirect RDMA through nvidia-peermem (auto: DMA-BUF is not available (NVIDIA driver not loaded or not gathered): nvidia-peermem instead)"},
				load, persist}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.task.Plan(tt.host.facts(t))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, readable(got)); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGPUDirectPlanErrors(t *testing.T) {
	tests := []struct {
		name  string
		task  GPUDirect
		host  gpuHost
		is    error
		parts []string
	}{
		{"DMA-BUF on proprietary modules", GPUDirect{Mode: "dmabuf"}, propHost, ErrDMABUFUnavailable,
			[]string{"DMA-BUF is not available on this host: NVIDIA driver 550.54.15 uses the proprietary kernel modules", "use mode peermem"}},
		{"DMA-BUF on kernel 5.10", GPUDirect{Mode: "dmabuf"}, oldKernel, ErrDMABUFUnavailable, []string{"kernel 5.10.0-28-amd64 is older than 5.12"}},
		{"auto on inbox", GPUDirect{}, gpuWith(propHost, func(g *gpuHost) { g.stack = facts.OFEDInbox }), ErrPeermemNeedsOFED,
			[]string{"auto: DMA-BUF is not available (NVIDIA driver 550.54.15 uses the proprietary kernel modules", "install MLNX_OFED or DOCA-OFED"}},
		{"peermem on inbox", GPUDirect{Mode: "peermem"}, gpuWith(openHost, func(g *gpuHost) { g.stack = facts.OFEDInbox }), ErrPeermemNeedsOFED,
			[]string{"or use DMA-BUF instead"}},
		{"loaded, not registered", GPUDirect{Mode: "peermem"}, gpuWith(propHost, func(g *gpuHost) { g.loaded, g.conf = true, true }), ErrPeermemNotRegistered,
			[]string{"/sys/kernel/mm/memory_peers/nv_mem/version is missing", "rebuild the NVIDIA driver after OFED (dkms autoinstall"}},
		{"mode", GPUDirect{Mode: "gdrcopy"}, openHost, nil, []string{`GPUDirect mode "gdrcopy": want auto, peermem or dmabuf`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.task.Plan(tt.host.facts(t))
			if err == nil || tt.is != nil && !errors.Is(err, tt.is) {
				t.Fatalf("error = %v, want %v", err, tt.is)
			}
			for _, p := range tt.parts {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("%q lacks %q", err, p)
				}
			}
		})
	}
}

func TestGPUDirectChoose(t *testing.T) {
	tests := []struct {
		mode string
		host gpuHost
		want string
	}{
		{"", openHost, GPUDirectDMABUF},
		{"auto", propHost, GPUDirectPeermem},
		{"auto", oldKernel, GPUDirectPeermem},
		{"peermem", openHost, GPUDirectPeermem},
		{"dmabuf", openHost, GPUDirectDMABUF},
	}
	for _, tt := range tests {
		got, why, err := GPUDirect{Mode: tt.mode}.Choose(tt.host.facts(t))
		if err != nil || got != tt.want || why == "" {
			t.Errorf("Choose(%q) on %+v = %q, %q, %v; want %q", tt.mode, tt.host, got, why, err, tt.want)
		}
	}
}

func TestGPUDirectNeeds(t *testing.T) {
	want := "ofed_info,kernel,lsmod,memory_peers,nvidia driver,file /etc/modules-load.d/nvidia-peermem.conf,file /etc/modules-load.d/nvidia_peermem.conf"
	if got := (GPUDirect{Mode: "dmabuf"}).Needs().String(); got != want {
		t.Errorf("Needs = %q, want %q", got, want)
	}
	if got := (GPUDirect{}).Name(); got != "gpudirect auto" {
		t.Errorf("Name = %q", got)
	}
}
