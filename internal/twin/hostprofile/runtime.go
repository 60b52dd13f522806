package hostprofile

import (
	"bufio"
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Runtime state paths, relative to the twin root.
const (
	runTwin = "run/twin"
	// ProcDriverNVIDIA is the directory whose "version" file stands for
	// /proc/driver/nvidia/version; hosttwin bind-mounts it over
	// /proc/driver/nvidia. ResetRuntime rewrites the file in place, so the
	// bind mount stays valid.
	ProcDriverNVIDIA = "/run/twin/proc-driver-nvidia"
	etcNVConfig      = "etc/twin/nvconfig"
)

// bootModules are the modules loaded when a twin host has booted, in load
// order. mlx_compat is OFED's; the nvidia modules exist when there are GPUs.
func bootModules(ofed, gpus bool) []string {
	var m []string
	if ofed {
		m = append(m, "mlx_compat")
	}
	m = append(m, "mlxfw", "psample", "ib_core", "mlx5_core", "ib_uverbs", "mlx5_ib",
		"ib_umad", "iw_cm", "ib_cm", "rdma_cm", "rdma_ucm", "ib_ipoib")
	if gpus {
		m = append(m, "nvidia", "nvidia_modeset", "nvidia_uvm", "nvidia_drm")
	}
	return m
}

// writeRuntime puts the runtime state of a freshly booted host into t:
// netdev link state, DCQCN values, counters, loaded modules and /run/twin.
func writeRuntime(t *tree, p Profile, hw hardware, now time.Time) {
	ofed := t.exists("usr/bin/ofed_info")
	clearRun(t)
	for _, pt := range hw.ports {
		nv, raw := readNVConfig(t, pt.pfBDF)
		st := bootState(nv)
		netdevRuntime(t, p, hw, pt)
		ecnRuntime(t, pt, st, ofed)
		ibRuntime(t, pt, ofed)
		debugfsRuntime(t, p, pt, st)
		if raw != "" {
			t.file(runTwin+"/nvconfig/"+pt.pfBDF, raw, 0o644)
		}
	}
	mods := bootModules(ofed, len(hw.gpus) > 0)
	t.remove(sysModule)
	t.remove(sysPeers)
	for _, m := range mods {
		t.file(sysModule+"/"+m+"/initstate", "live\n", 0o444)
	}
	t.file(runTwin+"/modules", strings.Join(mods, "\n")+"\n", 0o644)
	t.file(runTwin+"/boot-time", strconv.FormatInt(now.Unix(), 10)+"\n", 0o644)
	t.file(runTwin+"/kmsg", bootLog(p, hw, ofed), 0o644)
	if len(hw.gpus) > 0 {
		// Rewritten in place (never removed): hosttwin bind-mounts the
		// directory over /proc/driver/nvidia.
		t.file(strings.TrimPrefix(ProcDriverNVIDIA, "/")+"/version", nvidiaVersionFile(p), 0o444)
	} else {
		t.remove(strings.TrimPrefix(ProcDriverNVIDIA, "/") + "/version")
	}
}

// clearRun empties /run/twin except the bind-mounted NVIDIA directory.
func clearRun(t *tree) {
	entries, err := os.ReadDir(t.abs(runTwin))
	if err != nil && !os.IsNotExist(err) {
		t.fail(err)
		return
	}
	for _, e := range entries {
		if "/"+runTwin+"/"+e.Name() == ProcDriverNVIDIA {
			continue
		}
		t.remove(runTwin + "/" + e.Name())
	}
	t.dir(runTwin)
}

// readNVConfig reads the next-boot NV configuration mlxconfig stored for a
// PF: values by parameter name and the file's text ("" when none).
func readNVConfig(t *tree, pfBDF string) (map[string]int, string) {
	b, err := os.ReadFile(t.abs(etcNVConfig + "/" + pfBDF))
	if err != nil {
		if !os.IsNotExist(err) {
			t.fail(err)
		}
		return nil, ""
	}
	nv := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if n, err := strconv.Atoi(v); ok && err == nil {
			nv[k] = n
		}
	}
	return nv, string(b)
}

func netdevRuntime(t *tree, p Profile, hw hardware, pt port) {
	d := sysNet + "/" + pt.netdev
	oper, carrier, speed := "up", "1", strconv.Itoa(hw.model.speedMbps)
	if pt.down {
		oper, carrier, speed = "down", "0", "-1"
	}
	t.file(d+"/mtu", strconv.Itoa(p.MTU)+"\n", 0o644)
	t.file(d+"/operstate", oper+"\n", 0o444)
	t.file(d+"/carrier", carrier+"\n", 0o644)
	t.file(d+"/speed", speed+"\n", 0o444)
}

// ecnRuntime writes the OFED ecn/ tree with the boot values, or removes it
// when no OFED stack is installed. Files are 0644 on a PF and 0444 on a VF,
// as OFED's set_kobj_mode makes them.
func ecnRuntime(t *tree, pt port, st firmwareState, ofed bool) {
	d := sysNet + "/" + pt.netdev + "/ecn"
	if !ofed {
		t.remove(d)
		return
	}
	mode := fs.FileMode(0o644)
	if pt.vf {
		mode = 0o444
	}
	for _, side := range []string{"rp", "np"} {
		sd := d + "/roce_" + side
		for prio := range 8 {
			on := "0"
			if st.prioMask&(1<<prio) != 0 {
				on = "1"
			}
			t.file(sd+"/enable/"+strconv.Itoa(prio), on+"\n", mode)
		}
		for _, prm := range dcqcnParams {
			if prm.side == side && prm.sysfs != "" {
				t.file(sd+"/"+prm.sysfs, strconv.Itoa(st.values[prm.debugfs])+"\n", mode)
			}
		}
	}
}

// ibRuntime resets the OFED traffic_class file (empty: no global tclass)
// and the port counters.
func ibRuntime(t *tree, pt port, ofed bool) {
	d := sysIB + "/" + pt.rdma
	if ofed {
		t.file(d+"/tc/1/traffic_class", "", 0o644)
	} else {
		t.remove(d + "/tc")
	}
	for _, c := range []string{"np_cnp_sent", "np_ecn_marked_roce_packets", "rp_cnp_handled", "rp_cnp_ignored",
		"out_of_sequence", "packet_seq_err", "local_ack_timeout_err", "roce_adp_retrans", "rnr_nak_retry_err",
		"implied_nak_seq_err", "duplicate_request"} {
		t.file(d+"/ports/1/hw_counters/"+c, "0\n", 0o444)
	}
}

// debugfsRuntime writes the upstream cc_params files (0600) of a PF. Under
// kernel lockdown they exist but cannot be opened; a VF has none.
func debugfsRuntime(t *tree, p Profile, pt port, st firmwareState) {
	if pt.vf {
		return
	}
	d := sysDebugMLX5 + "/" + pt.bdf + "/cc_params"
	for _, prm := range dcqcnParams {
		if p.Lockdown != LockdownNone {
			t.unreadable(d + "/" + prm.debugfs)
			continue
		}
		t.file(d+"/"+prm.debugfs, strconv.Itoa(st.values[prm.debugfs])+"\n", 0o600)
	}
}

// nvidiaVersionFile renders /proc/driver/nvidia/version for the profile's
// driver, proprietary or open.
func nvidiaVersionFile(p Profile) string {
	arch := "x86_64"
	if runtime.GOARCH == "arm64" {
		arch = "aarch64"
	}
	const gcc = "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04) \n"
	if p.OpenKernelModules {
		return fmt.Sprintf("NVRM version: NVIDIA UNIX Open Kernel Module for %s  %s  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Mar  5 22:15:33 UTC 2024\n%s",
			arch, p.DriverVersion, gcc)
	}
	return fmt.Sprintf("NVRM version: NVIDIA UNIX %s Kernel Module  %s  Tue Mar  5 22:23:56 UTC 2024\n%s", arch, p.DriverVersion, gcc)
}

// bootLog is the kernel log right after boot, in time order.
func bootLog(p Profile, hw hardware, ofed bool) string {
	type entry struct {
		sec float64
		msg string
	}
	var log []entry
	line := func(sec float64, format string, args ...any) {
		log = append(log, entry{sec, fmt.Sprintf(format, args...)})
	}
	line(0, "Linux version (host twin %s)", p.Name)
	if p.Lockdown != LockdownNone {
		line(0, "Kernel is locked down from EFI Secure Boot mode; see man kernel_lockdown.7")
	}
	if ofed {
		line(2.103412, "mlx_compat: loading out-of-tree module taints kernel.")
	}
	for i, pt := range hw.ports {
		line(3.5+float64(i)*0.01, "mlx5_core %s: firmware version: %s", pt.bdf, hw.model.fwVersion)
		state := "up"
		if pt.down {
			state = "down"
		}
		line(9.2+float64(i)*0.01, "mlx5_core %s %s: Link %s", pt.bdf, pt.netdev, state)
	}
	if len(hw.gpus) > 0 {
		line(6.118204, "nvidia: loading out-of-tree module taints kernel.")
		kind := "x86_64 Kernel Module"
		if p.OpenKernelModules {
			kind = "Open Kernel Module for x86_64"
		}
		line(6.250011, "NVRM: loading NVIDIA UNIX %s  %s", kind, p.DriverVersion)
	}
	slices.SortStableFunc(log, func(a, b entry) int { return cmp.Compare(a.sec, b.sec) })
	var b strings.Builder
	for _, e := range log {
		fmt.Fprintf(&b, "[%12.6f] %s\n", e.sec, e.msg)
	}
	return b.String()
}
