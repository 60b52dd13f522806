package hostprofile

import (
	"fmt"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// Files the per-host layer writes for the stand-ins, relative to the root.
const (
	// ProfileEnv is the host's profile as shell assignments, sourced by
	// every stand-in.
	ProfileEnv = "/etc/twin/profile.env"
	gpusFile   = "etc/twin/gpus"
	// builtAgainst records the OFED version the NVIDIA driver was built
	// against ("inbox" for none); nvidia_peermem loads only when it matches
	// the installed OFED. "dkms autoinstall" rewrites it.
	builtAgainst = "var/lib/twin/nvidia-built-against"
)

// renderEtc writes /etc/twin, the host name, and empties the apt and module
// configuration the machine's root would otherwise lend the twin.
func renderEtc(t *tree, p Profile, id HostID, hw hardware) {
	t.file(strings.TrimPrefix(ProfileEnv, "/"), profileEnv(p, id, hw), 0o644)
	var g strings.Builder
	for _, x := range hw.gpus {
		fmt.Fprintf(&g, "%d %s %s %s %d %d\n", x.index, x.bdf, x.busID, x.uuid, x.numa, x.nic)
	}
	t.file(gpusFile, g.String(), 0o644)
	t.file("etc/hostname", id.Name+"\n", 0o644)
	if !p.RHEL() {
		t.file("etc/apt/sources.list", "# Host twin: the machine's sources are hidden; add the twin repository under /srv/twin-apt.\n", 0o644)
	}
	t.file("etc/modules", "# /etc/modules: kernel modules to load at boot time (host twin).\n", 0o644)
	built := p.OFEDVersion
	if !p.OFED() || p.PeermemWrongOrder {
		built = "inbox"
	}
	t.file(builtAgainst, built+"\n", 0o644)
}

// profileEnv renders /etc/twin/profile.env.
func profileEnv(p Profile, id HostID, hw hardware) string {
	arch := "Hopper"
	if strings.Contains(p.GPUModel, "B200") {
		arch = "Blackwell"
	}
	flag := func(b bool) string {
		if b {
			return "1"
		}
		return "0"
	}
	vars := []struct{ k, v string }{
		{"TWIN_PROFILE", p.Name},
		{"TWIN_HOST", id.Name},
		{"TWIN_INDEX", fmt.Sprint(id.Index)},
		{"TWIN_NIC_MODEL", p.NICModel},
		{"TWIN_NIC_TYPE", hw.model.mlxconfigType},
		{"TWIN_NIC_PART", hw.model.partNumber},
		{"TWIN_NIC_DESC", hw.model.description},
		{"TWIN_STACK", p.Stack},
		{"TWIN_OFED_VERSION", p.OFEDVersion},
		{"TWIN_GPUS", fmt.Sprint(p.GPUs)},
		{"TWIN_GPU_MODEL", p.GPUModel},
		{"TWIN_GPU_ARCH", arch},
		{"TWIN_GPU_FB_MIB", fmt.Sprint(p.GPUMemMiB)},
		{"TWIN_GPU_BAR1_MIB", fmt.Sprint(p.BAR1MiB)},
		{"TWIN_DRIVER_VERSION", p.DriverVersion},
		{"TWIN_CUDA_VERSION", p.CUDAVersion},
		{"TWIN_OPEN_MODULES", flag(p.OpenKernelModules)},
		{"TWIN_VF", flag(p.VirtualFunctions)},
		{"TWIN_LOCKDOWN", p.Lockdown},
		{"TWIN_MTU", fmt.Sprint(p.MTU)},
	}
	var b strings.Builder
	b.WriteString("# Host twin profile, sourced by the stand-ins in /usr/local/sbin.\n")
	for _, kv := range vars {
		b.WriteString(kv.k + "=" + shell.Quote(kv.v) + "\n")
	}
	return b.String()
}
