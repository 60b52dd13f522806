package hostprofile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestScriptsParse(t *testing.T) {
	files, err := baseFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.link != "" || !strings.HasSuffix(f.rel, ".sh") && !strings.HasPrefix(f.rel, "usr/local/sbin/") {
			continue // the Go stand-ins are links to the binary
		}
		p := filepath.Join(t.TempDir(), filepath.Base(f.rel))
		if err := os.WriteFile(p, []byte(f.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := runCmd(t, "/bin/sh", "-n", p); err != nil {
			t.Errorf("%s: sh -n: %v\n%s", f.rel, err, out)
		}
		if strings.HasPrefix(f.rel, "usr/local/sbin/") {
			if !strings.HasPrefix(f.content, "#!/bin/sh\n") {
				t.Errorf("%s: not a /bin/sh script", f.rel)
			}
			// Every path must go through TWIN_ROOT: the scripts source
			// the library that sets R, or touch no files at all.
			if !strings.Contains(f.content, `. "${TWIN_ROOT:-}/usr/local/lib/twin/common.sh"`) && !strings.HasSuffix(f.rel, "/udevadm") {
				t.Errorf("%s does not source common.sh", f.rel)
			}
		}
	}
}

func TestIBVDevinfoArguments(t *testing.T) {
	root := renderRoot(t, mustProfile(t, "cx7"), HostID{Name: "n", Index: 0})
	if r := runTool(t, root, "", "ibv_devinfo", "-d", "mlx5_9"); r.code != 255 || r.stderr != "IB device 'mlx5_9' wasn't found\n" {
		t.Errorf("unknown device: exit %d, stderr %q", r.code, r.stderr)
	}
	out := mustRun(t, root, "ibv_devinfo", "-d", "mlx5_2")
	if strings.Count(out, "hca_id:") != 1 || !strings.HasPrefix(out, "hca_id:\tmlx5_2\n") {
		t.Errorf("-d mlx5_2:\n%s", out)
	}
	if out := mustRun(t, root, "ibv_devinfo", "--list"); !strings.HasPrefix(out, "8 HCAs found:\n\tmlx5_0\n") {
		t.Errorf("--list:\n%s", out)
	}
	if r := runTool(t, root, "", "ibv_devinfo", "-x"); r.code != 255 || !strings.HasPrefix(r.stdout, "Usage: ibv_devinfo") {
		t.Errorf("bad option: exit %d\n%s", r.code, r.stdout)
	}
	v := mustRun(t, root, "ibv_devinfo", "-v", "-d", "mlx5_0")
	for _, want := range []string{
		"\t\t\tGID[  1]:\t\tfe80::ba3f:d2ff:fea0:0, RoCE v2\n",
		"\t\t\tGID[  2]:\t\t0000:0000:0000:0000:0000:ffff:0a00:0001, RoCE v1\n",
		"\t\t\tGID[  3]:\t\t::ffff:10.0.0.1, RoCE v2\n",
		"\t\t\tphys_state:\t\tLINK_UP (5)\n",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("-v lacks %q", want)
		}
	}
	// A smaller netdev MTU lowers active_mtu as mlx5 does.
	writeFile(t, root, "sys/class/net/ens1f0np0/mtu", "1500\n")
	if out := mustRun(t, root, "ibv_devinfo", "-d", "mlx5_0"); !strings.Contains(out, "active_mtu:\t\t1024 (3)\n") {
		t.Errorf("MTU 1500:\n%s", out)
	}
}

func TestOFEDToolsNeedOFED(t *testing.T) {
	root := renderRoot(t, mustProfile(t, "inbox"), HostID{Name: "n", Index: 0})
	for _, tool := range []string{"mlnx_qos", "show_gids", "ibdev2netdev", "cma_roce_tos"} {
		r := runTool(t, root, "", tool, "-i", "ens1f0np0")
		if r.code != 127 || !strings.Contains(r.stderr, "command not found") {
			t.Errorf("%s on inbox: exit %d stderr %q, want 127 command not found", tool, r.code, r.stderr)
		}
	}
	// Installing an OFED metapackage (here: its ofed_info) brings them.
	writeFile(t, root, "usr/bin/ofed_info", ofedInfoScript(StackDOCA, "25.10-1.7.1"))
	if err := os.Chmod(filepath.Join(root, "usr/bin/ofed_info"), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := runTool(t, root, "", "ibdev2netdev"); r.code != 0 {
		t.Errorf("ibdev2netdev after install: exit %d %s", r.code, r.stderr)
	}
}

func TestMlnxQoSSetAndErrors(t *testing.T) {
	root := renderRoot(t, mustProfile(t, "cx7"), HostID{Name: "n", Index: 0})
	if r := runTool(t, root, "", "mlnx_qos"); r.code != 1 || !strings.HasPrefix(r.stdout, "Interface name is required\nUsage:") {
		t.Errorf("no interface: exit %d\n%s", r.code, r.stdout)
	}
	if r := runTool(t, root, "", "mlnx_qos", "-i", "ens1f0np0", "--pfc", "0,0,0,1"); r.code != 1 || r.stdout != "pfc list must have 8 items\n" {
		t.Errorf("short pfc list: exit %d %q", r.code, r.stdout)
	}
	if r := runTool(t, root, "", "mlnx_qos", "-i", "ens1f0np0", "--pfc", "0,0,0,2,0,0,0,0"); r.code != 1 || !strings.Contains(r.stdout, "Bad value for PFC: 2 is not in the range 0..1") {
		t.Errorf("bad pfc value: exit %d %q", r.code, r.stdout)
	}
	if r := runTool(t, root, "", "mlnx_qos", "-i", "ens1f0np0", "--trust", "foo"); r.code != 1 || r.stdout != "Invalid trust state command. Refer to the help.\n" {
		t.Errorf("bad trust: exit %d %q", r.code, r.stdout)
	}
	if r := runTool(t, root, "", "mlnx_qos", "-i", "nope0"); r.code != 1 {
		t.Errorf("unknown interface: exit %d", r.code)
	}
	// The --opt=value form, -F, -P, --dscp2prio and ETS.
	mustRun(t, root, "mlnx_qos", "-i", "ens1f0np0", "--pfc=0,0,0,1,0,0,0,0")
	mustRun(t, root, "mlnx_qos", "-i", "ens1f0np0", "-F", "x,x,x,x,x,1,x,x")
	if got := mustRun(t, root, "mlnx_qos", "-i", "ens1f0np0", "-P", "5"); got != "1\n" {
		t.Errorf("-P 5 = %q", got)
	}
	out := mustRun(t, root, "mlnx_qos", "-i", "ens1f0np0", "--dscp2prio", "set,26,5")
	if !strings.Contains(out, "Priority trust state: dscp\ndscp2prio mapping:\n\tprio:5 dscp:26,\n") {
		t.Errorf("dscp2prio set on pcp trust:\n%s", out)
	}
	out = mustRun(t, root, "mlnx_qos", "-i", "ens1f0np0", "--dscp2prio", "flush")
	if !strings.Contains(out, "Priority trust state: pcp\n") {
		t.Errorf("flush keeps dscp trust:\n%s", out)
	}
	out = mustRun(t, root, "mlnx_qos", "-i", "ens1f0np0", "-s", "ets,ets,ets,ets,ets,ets,strict,ets", "-t", "10,10,10,50,10,10,0,0", "-r", "0,0,0,25,0,0,0,0")
	for _, want := range []string{"\tenabled     0   0   0   1   0   1   0   0   \n", "tc: 3 ratelimit: 25.0 Gbps, tsa: ets, bw: 50%\n", "tc: 6 ratelimit: unlimited, tsa: strict\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("ETS output lacks %q:\n%s", want, out)
		}
	}
	// Another interface is untouched.
	if out := mustRun(t, root, "mlnx_qos", "-i", "ens2f0np0"); !strings.Contains(out, "\tenabled     0   0   0   0   0   0   0   0   \n") {
		t.Errorf("ens2f0np0 changed:\n%s", out)
	}
}

func TestMlnxQoSOnVF(t *testing.T) {
	root := renderRoot(t, mustProfile(t, "vf"), HostID{Name: "n", Index: 0})
	r := runTool(t, root, "", "mlnx_qos", "-i", "ens1f0v0", "--trust", "dscp")
	if r.code != 1 || r.stdout != "Priority trust state is not supported on your system\n" {
		t.Errorf("VF --trust: exit %d %q", r.code, r.stdout)
	}
}

func TestNvidiaSMI(t *testing.T) {
	root := renderRoot(t, mustProfile(t, "cx7"), HostID{Name: "n", Index: 0})
	if out := mustRun(t, root, "nvidia-smi", "-L"); strings.Count(out, "\n") != 8 || !strings.HasPrefix(out, "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-") {
		t.Errorf("-L:\n%s", out)
	}
	out := mustRun(t, root, "nvidia-smi", "--query-gpu=index,pci.bus_id,memory.total", "--format=csv,noheader,nounits")
	if !strings.HasPrefix(out, "0, 00000000:18:00.0, 81559\n1, 00000000:2A:00.0, 81559\n") {
		t.Errorf("--query-gpu:\n%s", out)
	}
	if r := runTool(t, root, "", "nvidia-smi", "-q", "-d", "BAR"); r.code != 2 {
		t.Errorf("-d BAR is not a valid type, exit %d", r.code)
	}
	if out := mustRun(t, root, "nvidia-smi"); !strings.Contains(out, "| NVIDIA-SMI 550.54.15") || strings.Count(out, "NVIDIA H100 80GB HBM3") != 8 {
		t.Errorf("summary:\n%s", out)
	}
	noGPU := mustProfile(t, "cx7")
	noGPU.GPUs = 0
	root = renderRoot(t, noGPU, HostID{Name: "n", Index: 0})
	if r := runTool(t, root, "", "nvidia-smi", "-L"); r.code != 6 || r.stdout != "No devices were found\n" {
		t.Errorf("no GPUs: exit %d %q", r.code, r.stdout)
	}
}

func TestModprobePeermem(t *testing.T) {
	const invalid = "modprobe: ERROR: could not insert 'nvidia_peermem': Invalid argument\n"
	const disagrees = "nvidia_peermem: disagrees about version of symbol ib_register_peer_memory_client"
	tests := []struct {
		profile    string
		ok         bool
		dmesgLines bool
	}{
		{"cx7", true, false},
		{"peermem-wrong-order", false, true},
		{"inbox", false, false},
		{"dmabuf", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.profile, func(t *testing.T) {
			root := renderRoot(t, mustProfile(t, tt.profile), HostID{Name: "n", Index: 0})
			r := runTool(t, root, "", "modprobe", "nvidia-peermem")
			peers := filepath.Join(root, sysPeers, "nv_mem/version")
			_, statErr := os.Stat(peers)
			if tt.ok {
				if r.code != 0 || statErr != nil {
					t.Fatalf("modprobe: exit %d %q; memory_peers: %v", r.code, r.stderr, statErr)
				}
				if !strings.Contains(mustRun(t, root, "lsmod"), "\nnvidia_peermem ") {
					t.Error("lsmod lacks nvidia_peermem")
				}
				return
			}
			if r.code != 1 || r.stderr != invalid || statErr == nil {
				t.Errorf("modprobe: exit %d stderr %q memory_peers present %v; want exit 1 %q", r.code, r.stderr, statErr == nil, invalid)
			}
			if dm := mustRun(t, root, "dmesg"); strings.Contains(dm, disagrees) != tt.dmesgLines {
				t.Errorf("dmesg has the symbol-version line: %v, want %v\n%s", !tt.dmesgLines, tt.dmesgLines, dm)
			}
			if strings.Contains(mustRun(t, root, "lsmod"), "nvidia_peermem") {
				t.Error("lsmod lists nvidia_peermem after a failed load")
			}
			if tt.profile == "peermem-wrong-order" {
				// Rebuilding the driver against the installed OFED fixes it.
				if out := mustRun(t, root, "dkms", "autoinstall"); !strings.Contains(out, "nvidia-peermem.ko") {
					t.Errorf("dkms autoinstall:\n%s", out)
				}
				mustRun(t, root, "modprobe", "nvidia_peermem")
			}
		})
	}
}

func TestModulesMisc(t *testing.T) {
	root := renderRoot(t, mustProfile(t, "cx7"), HostID{Name: "n", Index: 0})
	r := runTool(t, root, "", "modprobe", "nosuchmod")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "modprobe: FATAL: Module nosuchmod not found in directory /lib/modules/") {
		t.Errorf("unknown module: exit %d %q", r.code, r.stderr)
	}
	mustRun(t, root, "modprobe", "mlx5_core") // already loaded: silent success
	mustRun(t, root, "modprobe", "nvidia-peermem", "peerdirect_support=1")
	checkTree(t, root, map[string]string{
		"sys/module/nvidia_peermem/parameters/peerdirect_support": "1\n",
		"sys/module/nvidia_peermem/version":                       "550.54.15\n",
	})
	if r := runTool(t, root, "", "rmmod", "ib_core"); r.code != 1 || !strings.Contains(r.stderr, "Module ib_core is in use by: nvidia_peermem") {
		t.Errorf("rmmod ib_core: exit %d %q", r.code, r.stderr)
	}
	mustRun(t, root, "modprobe", "-r", "nvidia_peermem")
	checkTree(t, root, map[string]string{"sys/module/nvidia_peermem": absent, "sys/kernel/mm/memory_peers/nv_mem": absent})
	if r := runTool(t, root, "", "rmmod", "nvidia_peermem"); r.code != 1 || r.stderr != "rmmod: ERROR: Module nvidia_peermem is not currently loaded\n" {
		t.Errorf("rmmod twice: exit %d %q", r.code, r.stderr)
	}
	if got := mustRun(t, root, "modinfo", "-F", "version", "mlx5_core"); got != "25.10-1.7.1\n" {
		t.Errorf("modinfo -F version mlx5_core = %q", got)
	}
	if out := mustRun(t, root, "modinfo", "nvidia-peermem"); !strings.Contains(out, "/updates/dkms/nvidia-peermem.ko\n") || !strings.Contains(out, "parm:           peerdirect_support:") {
		t.Errorf("modinfo nvidia-peermem:\n%s", out)
	}
	if out := mustRun(t, root, "dkms", "status"); !strings.Contains(out, "mlnx-ofed-kernel/25.10.OFED.25.10.1.7.1.1, ") || !strings.Contains(out, "nvidia/550.54.15, ") {
		t.Errorf("dkms status:\n%s", out)
	}
	inbox := renderRoot(t, mustProfile(t, "inbox"), HostID{Name: "n", Index: 0})
	if got := mustRun(t, inbox, "modinfo", "mlx5_core"); !strings.Contains(got, "kernel/drivers/net/ethernet/mellanox/mlx5/core/mlx5_core.ko\n") || strings.Contains(got, "version:") {
		t.Errorf("inbox modinfo mlx5_core:\n%s", got)
	}
}

func TestSystemctlAndBoot(t *testing.T) {
	root := renderRoot(t, mustProfile(t, "cx7"), HostID{Name: "n", Index: 0})
	writeFile(t, root, "etc/systemd/system/roce-qos.service", `[Unit]
Description=RoCE QoS
After=network-online.target

[Service]
Type=oneshot
RemainAfterExit=yes
Environment="IFACE=ens1f0np0"
ExecStart=/bin/sh -c 'mlnx_qos -i $IFACE --trust dscp \
  --pfc 0,0,0,1,0,0,0,0'
ExecStart=-/bin/false

[Install]
WantedBy=multi-user.target
`)
	writeFile(t, root, "etc/modules-load.d/nvidia-peermem.conf", "# GPUDirect\nnvidia-peermem\n")
	if r := runTool(t, root, "", "systemctl", "is-enabled", "roce-qos"); r.code != 1 || r.stdout != "disabled\n" {
		t.Errorf("is-enabled before enable: %d %q, want 1 disabled", r.code, r.stdout)
	}
	if r := runTool(t, root, "", "systemctl", "enable", "roce-qos.service"); r.code != 0 ||
		r.stderr != "Created symlink /etc/systemd/system/multi-user.target.wants/roce-qos.service → /etc/systemd/system/roce-qos.service.\n" {
		t.Errorf("enable: exit %d %q", r.code, r.stderr)
	}
	if got := mustRun(t, root, "systemctl", "is-enabled", "roce-qos"); got != "enabled\n" {
		t.Errorf("is-enabled = %q", got)
	}
	if r := runTool(t, root, "", "systemctl", "is-active", "roce-qos"); r.code != 3 || r.stdout != "inactive\n" {
		t.Errorf("is-active before boot: %d %q", r.code, r.stdout)
	}

	out := mustRun(t, root, "twin-boot")
	if !strings.Contains(out, "[  OK  ] Started roce-qos.service.\n") || !strings.Contains(out, "[  OK  ] Finished systemd-modules-load.service") {
		t.Errorf("twin-boot:\n%s", out)
	}
	if got := mustRun(t, root, "systemctl", "is-active", "roce-qos"); got != "active\n" {
		t.Errorf("is-active after boot = %q", got)
	}
	if !strings.Contains(mustRun(t, root, "mlnx_qos", "-i", "ens1f0np0"), "Priority trust state: dscp\n") {
		t.Error("the unit's ExecStart did not run")
	}
	if _, err := os.Stat(filepath.Join(root, sysPeers, "nv_mem/version")); err != nil {
		t.Errorf("modules-load.d did not load nvidia-peermem: %v", err)
	}
	if got := mustRun(t, root, "systemctl", "show", "-p", "ActiveState,UnitFileState", "roce-qos"); got != "ActiveState=active\nUnitFileState=enabled\n" {
		t.Errorf("show = %q", got)
	}

	// A failing unit: reported, state failed, journal has its output.
	writeFile(t, root, "etc/systemd/system/broken.service", "[Service]\nType=oneshot\nExecStart=/bin/sh -c 'echo boom; exit 3'\n[Install]\nWantedBy=multi-user.target\n")
	r := runTool(t, root, "", "systemctl", "enable", "--now", "broken")
	if r.code != 1 || !strings.Contains(r.stderr, "Job for broken.service failed because the control process exited with error code.") {
		t.Errorf("enable --now broken: exit %d %q", r.code, r.stderr)
	}
	if r := runTool(t, root, "", "systemctl", "is-failed", "broken"); r.code != 0 || r.stdout != "failed\n" {
		t.Errorf("is-failed broken: %d %q", r.code, r.stdout)
	}
	if j := mustRun(t, root, "journalctl", "-u", "broken"); !strings.Contains(j, "broken: boom\n") {
		t.Errorf("journal:\n%s", j)
	}
	if r := runTool(t, root, "", "systemctl", "start", "nosuch"); r.code != 5 || r.stderr != "Failed to start nosuch.service: Unit nosuch.service not found.\n" {
		t.Errorf("start nosuch: %d %q", r.code, r.stderr)
	}
	if r := runTool(t, root, "", "systemctl", "disable", "roce-qos"); r.code != 0 || !strings.HasPrefix(r.stderr, `Removed "/etc/systemd/system/multi-user.target.wants/roce-qos.service".`) {
		t.Errorf("disable: %d %q", r.code, r.stderr)
	}
	mustRun(t, root, "systemctl", "daemon-reload")
	mustRun(t, root, "udevadm", "control", "--reload")
	mustRun(t, root, "udevadm", "trigger", "--action=add", "--subsystem-match=net")
}

func TestTwinBootReportsModuleFailure(t *testing.T) {
	root := renderRoot(t, mustProfile(t, "peermem-wrong-order"), HostID{Name: "n", Index: 0})
	writeFile(t, root, "etc/modules-load.d/nvidia-peermem.conf", "nvidia-peermem\n")
	out := mustRun(t, root, "twin-boot")
	if !strings.Contains(out, "[FAILED] Failed to start systemd-modules-load.service") {
		t.Errorf("twin-boot:\n%s", out)
	}
	if j := mustRun(t, root, "journalctl", "-u", "systemd-modules-load"); !strings.Contains(j, "Failed to insert module 'nvidia_peermem': Invalid argument") {
		t.Errorf("journal:\n%s", j)
	}
	if got := mustRun(t, root, "systemctl", "is-failed", "systemd-modules-load"); got != "failed\n" {
		t.Errorf("is-failed = %q", got)
	}
}

func TestMlxconfig(t *testing.T) {
	root := renderRoot(t, mustProfile(t, "cx7"), HostID{Name: "n", Index: 0})
	out := mustRun(t, root, "mlxconfig", "-d", "mlx5_0", "q", "ROCE_CC_PRIO_MASK_P1", "QOS_TRUST_STATE_P1")
	if !strings.Contains(out, "        ROCE_CC_PRIO_MASK_P1                        255\n") || !strings.Contains(out, "TRUST_PCP(1)\n") {
		t.Errorf("q:\n%s", out)
	}
	out = mustRun(t, root, "mlxconfig", "-d", "0000:17:00.0", "-y", "set", "CNP_DSCP_P1=26", "ROCE_CC_PRIO_MASK_P1=8")
	if !strings.HasSuffix(out, "Applying... Done!\n-I- Please reboot machine to load new configurations.\n") {
		t.Errorf("set:\n%s", out)
	}
	if got := readFile(t, root, "etc/twin/nvconfig/0000:17:00.0"); got != "CNP_DSCP_P1=26\nROCE_CC_PRIO_MASK_P1=8\n" {
		t.Errorf("stored next-boot config %q", got)
	}
	if r := runTool(t, root, "n\n", "mlxconfig", "-d", "mlx5_0", "set", "CNP_DSCP_P1=30"); r.code != 1 || !strings.Contains(r.stdout, "Aborted by user") {
		t.Errorf("declined set: %d\n%s", r.code, r.stdout)
	}
	if r := runTool(t, root, "", "mlxconfig", "-d", "mlx5_0", "-y", "set", "NO_SUCH_P1=1"); r.code != 1 {
		t.Errorf("unknown parameter accepted")
	}
	if r := runTool(t, root, "", "mlxconfig", "-d", "mlx5_42", "q"); r.code != 1 {
		t.Errorf("unknown device accepted")
	}
	// Still the old values until a reboot.
	if got := readFile(t, root, "sys/class/net/ens1f0np0/ecn/roce_np/cnp_dscp"); got != "48\n" {
		t.Errorf("cnp_dscp before reboot = %q", got)
	}
}

func TestCmaRoceTos(t *testing.T) {
	root := renderRoot(t, mustProfile(t, "cx7"), HostID{Name: "n", Index: 0})
	if got := mustRun(t, root, "cma_roce_tos", "-d", "mlx5_1"); got != "0\n" {
		t.Errorf("default tos %q", got)
	}
	if got := mustRun(t, root, "cma_roce_tos", "-d", "mlx5_1", "-t", "106"); got != "106\n" {
		t.Errorf("set tos %q", got)
	}
	if got := mustRun(t, root, "cma_roce_tos", "-d", "mlx5_1"); got != "106\n" {
		t.Errorf("read back %q", got)
	}
	if r := runTool(t, root, "", "cma_roce_tos", "-d", "mlx5_1", "-p", "2"); r.code != 1 || r.stdout != "Device mlx5_1 port 2 does not exist\n" {
		t.Errorf("bad port: %d %q", r.code, r.stdout)
	}
}

// TestMlnxQoSReadsWriteNothing: a call that only prints leaves the state alone, so a gather
// beside an apply cannot put back what it read, and setters running at once each keep their
// change, as netlink requests serialised by the kernel do.
func TestMlnxQoSReadsWriteNothing(t *testing.T) {
	root := renderRoot(t, mustProfile(t, "cx7"), HostID{Name: "n", Index: 0})
	state := filepath.Join(root, "run/twin/qos/ens1f0np0")
	mustRun(t, root, "mlnx_qos", "-i", "ens1f0np0")
	mustRun(t, root, "mlnx_qos", "-i", "ens1f0np0", "-P", "3")
	if _, err := os.Stat(state); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a read created the state file (stat: %v)", err)
	}
	mustRun(t, root, "mlnx_qos", "-i", "ens1f0np0", "--trust", "dscp")
	before, err := os.Stat(state)
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, root, "mlnx_qos", "-i", "ens1f0np0")
	if after, err := os.Stat(state); err != nil || !os.SameFile(before, after) {
		t.Fatalf("a read replaced the state file (stat: %v)", err)
	}

	var wg sync.WaitGroup
	for p := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			one := strings.Split("x,x,x,x,x,x,x,x", ",")
			one[p] = "1"
			if r := runTool(t, root, "", "mlnx_qos", "-i", "ens1f0np0", "-F", strings.Join(one, ",")); r.code != 0 {
				t.Errorf("-F %s: exit %d %s", strings.Join(one, ","), r.code, r.stdout+r.stderr)
			}
		}()
	}
	wg.Wait()
	if out := mustRun(t, root, "mlnx_qos", "-i", "ens1f0np0"); !strings.Contains(out, "\tenabled     1   1   1   1   1   1   1   1   \n") {
		t.Errorf("eight setters at once lost a change:\n%s", out)
	}
}
