package tasks

import (
	"errors"
	"fmt"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// The ways a GPUDirect task can give the NICs access to GPU memory.
const (
	// GPUDirectAuto uses DMA-BUF where the host supports it, else
	// nvidia-peermem.
	GPUDirectAuto = "auto"
	// GPUDirectPeermem loads nvidia-peermem (OFED's peer-memory API).
	GPUDirectPeermem = "peermem"
	// GPUDirectDMABUF relies on DMA-BUF (kernel 5.12 or later and the open
	// GPU kernel modules); nothing needs loading.
	GPUDirectDMABUF = "dmabuf"
)

// ErrDMABUFUnavailable is returned by the plan of a GPUDirect in dmabuf mode
// on a host that cannot use DMA-BUF.
var ErrDMABUFUnavailable = errors.New("DMA-BUF is not available on this host")

// ErrPeermemNotRegistered is returned when nvidia_peermem is loaded but has
// not registered with OFED's peer-memory API, so NCCL reports GPUDirect RDMA
// disabled.
var ErrPeermemNotRegistered = errors.New("nvidia_peermem is loaded but not registered with OFED's peer-memory API")

// peermemConfAlt is the conventional name of the modules-load.d file that
// NVIDIA's documentation uses; ModuleLoaded writes nvidia_peermem.conf.
const peermemConfAlt = ModulesLoadDir + "/nvidia-peermem.conf"

// GPUDirect makes GPU memory reachable by the RDMA NICs (GPUDirect RDMA).
//
// In peermem mode it loads nvidia_peermem now and at every boot (a
// ModuleLoaded with Persist) and checks that the module registered with
// OFED's peer-memory API (/sys/kernel/mm/memory_peers/nv_mem), as NCCL does.
// A driver built before OFED fails to load with an error that says so and
// how to fix it (ErrDriverBuiltBeforeOFED).
//
// In dmabuf mode there is nothing to load: the task notes that DMA-BUF is
// used. An nvidia_peermem that is loaded or persisted stays as it is: NCCL
// prefers DMA-BUF when both work, and unloading a module that a running job
// may use is not this task's call; delete its modules-load.d file to stop
// loading it at boot.
type GPUDirect struct {
	// Mode is GPUDirectAuto (also when empty), GPUDirectPeermem or
	// GPUDirectDMABUF.
	Mode string
}

var _ host.Task = GPUDirect{}

// Name implements host.Task: "gpudirect <mode>".
func (t GPUDirect) Name() string { return "gpudirect " + t.mode() }

// Needs implements host.Task: the kernel and the NVIDIA driver (to decide on
// DMA-BUF), and the facts of nvidia_peermem: lsmod, the stack, its
// registration and modules-load.d files.
func (t GPUDirect) Needs() host.Want {
	return host.WantFacts(host.FactKernel, host.FactNVIDIA, host.FactModules, host.FactOFED, host.FactPeerMem).
		WithFiles(t.peermem().confPath(), peermemConfAlt)
}

// Choose returns the mode the task uses on the host of f, GPUDirectPeermem
// or GPUDirectDMABUF, and why.
func (t GPUDirect) Choose(f host.Facts) (mode, why string, err error) {
	ok, reason := f.DMABUF()
	switch t.mode() {
	case GPUDirectDMABUF:
		if !ok {
			return "", "", fmt.Errorf("%w: %s; use mode peermem (with OFED) or auto, or move to kernel 5.12+ "+
				"and the open GPU kernel modules", ErrDMABUFUnavailable, reason)
		}
		return GPUDirectDMABUF, "DMA-BUF asked for: " + reason, nil
	case GPUDirectPeermem:
		return GPUDirectPeermem, "nvidia-peermem asked for", nil
	case GPUDirectAuto:
		if ok {
			return GPUDirectDMABUF, "auto: DMA-BUF is available: " + reason, nil
		}
		return GPUDirectPeermem, "auto: DMA-BUF is not available (" + reason + "): nvidia-peermem instead", nil
	}
	return "", "", fmt.Errorf("GPUDirect mode %q: want auto, peermem or dmabuf", t.Mode)
}

// Plan implements host.Task.
func (t GPUDirect) Plan(f host.Facts) ([]host.Change, error) {
	mode, why, err := t.Choose(f)
	if err != nil {
		return nil, err
	}
	if mode == GPUDirectDMABUF {
		return t.planDMABUF(f, why), nil
	}
	cs, err := t.peermem().Plan(f)
	if err != nil {
		if t.mode() == GPUDirectAuto {
			return nil, fmt.Errorf("%s, and %w", why, err)
		}
		return nil, err
	}
	out := append([]host.Change{host.Unchanged("GPUDirect RDMA through nvidia-peermem (" + why + ")")}, cs...)
	if !f.ModuleLoaded(peermem) {
		return out, nil // the registration is checked once modprobe has run
	}
	if !f.Has(host.FactPeerMem) || !f.PeerMem.Registered {
		return nil, fmt.Errorf("%w: %s is missing, so NCCL reports GPUDirect RDMA disabled; unload it "+
			"(modprobe -r nvidia_peermem), rebuild the NVIDIA driver after OFED (dkms autoinstall, or reinstall "+
			"the driver package) and apply again", ErrPeermemNotRegistered, facts.PeerMemVersionPath)
	}
	reg := "nvidia_peermem registered with OFED's peer-memory API (" + facts.PeerMemVersionPath
	if f.PeerMem.Version != "" {
		reg += ": " + f.PeerMem.Version
	}
	return append(out, host.Unchanged(reg+")")), nil
}

// planDMABUF is the plan of the dmabuf mode: notes only.
func (t GPUDirect) planDMABUF(f host.Facts, why string) []host.Change {
	out := []host.Change{host.Unchanged("GPUDirect RDMA through DMA-BUF, nothing to load (" + why +
		"); NCCL logs \"DMA-BUF is available on GPU device\" when it uses it")}
	var left []string
	if f.ModuleLoaded(peermem) {
		left = append(left, "loaded")
	}
	for _, p := range []string{t.peermem().confPath(), peermemConfAlt} {
		if fi, ok := f.File(p); ok && fi.Exists {
			left = append(left, "loaded at boot by "+p)
		}
	}
	if len(left) > 0 {
		out = append(out, host.Unchanged(fmt.Sprintf("nvidia_peermem is %s; left as is, NCCL prefers DMA-BUF "+
			"when both work (delete the modules-load.d file to stop loading it at boot)", strings.Join(left, ", "))))
	}
	return out
}

func (t GPUDirect) mode() string {
	if t.Mode == "" {
		return GPUDirectAuto
	}
	return t.Mode
}

func (t GPUDirect) peermem() ModuleLoaded { return ModuleLoaded{Module: peermem, Persist: true} }
