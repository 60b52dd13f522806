package hostprofile

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// The stand-ins' output must read back through the parsers the bootstrapper
// uses (internal/host/facts) with the values the profile implies.

// rootedScript returns a facts command with its absolute sysfs/proc paths
// moved below root, as the same command sees them inside the twin.
func rootedScript(t *testing.T, root, script string, paths ...string) string {
	t.Helper()
	for _, p := range paths {
		if !strings.Contains(script, p) {
			t.Fatalf("script %q does not mention %s", script, p)
		}
		script = strings.ReplaceAll(script, p, root+p)
	}
	return script
}

// sh runs a command line with /bin/sh against root and returns its stdout.
func sh(t *testing.T, root, script string) string {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Env = []string{"TWIN_ROOT=" + root, "PATH=" + root + "/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sh -c %q: %v", script, err)
	}
	return string(out)
}

func TestFactsIBVDevinfo(t *testing.T) {
	for _, name := range []string{"cx7", "cx8", "port-down", "vf"} {
		t.Run(name, func(t *testing.T) {
			p := mustProfile(t, name)
			root := renderRoot(t, p, HostID{Name: "n", Index: 7})
			for _, args := range [][]string{nil, {"-v"}} {
				devs, err := facts.ParseIBVDevinfo(mustRun(t, root, "ibv_devinfo", args...))
				if err != nil {
					t.Fatalf("ParseIBVDevinfo(ibv_devinfo %v): %v", args, err)
				}
				if len(devs) != p.Ports {
					t.Fatalf("ibv_devinfo %v: %d devices, want %d", args, len(devs), p.Ports)
				}
				for i, d := range devs {
					wantModel := p.NICModel
					if p.VirtualFunctions {
						wantModel = "ConnectX VF"
					}
					if d.Name != fmt.Sprintf("mlx5_%d", i) || d.Model() != wantModel || len(d.Ports) != 1 {
						t.Errorf("device %d = %s model %q, %d ports; want mlx5_%d %s, 1 port", i, d.Name, d.Model(), len(d.Ports), i, wantModel)
						continue
					}
					port := d.Ports[0]
					if port.Active() == p.PortDown(i) || !port.RoCE() || port.ActiveMTU != 4096 {
						t.Errorf("%s port: active %v roce %v mtu %d; want active %v, RoCE, 4096", d.Name, port.Active(), port.RoCE(), port.ActiveMTU, !p.PortDown(i))
					}
					if args != nil && len(port.GIDs) != 4 {
						t.Errorf("%s -v: %d GIDs, want 4: %+v", d.Name, len(port.GIDs), port.GIDs)
					}
				}
			}
		})
	}
}

func TestFactsGIDTable(t *testing.T) {
	for _, name := range []string{"cx7", "gid-index-5"} {
		t.Run(name, func(t *testing.T) {
			p := mustProfile(t, name)
			root := renderRoot(t, p, HostID{Name: "n", Index: 3})
			script := rootedScript(t, root, facts.GIDTableScript().String(), "/sys/class/infiniband")
			entries, err := facts.ParseGIDTable(sh(t, root, script))
			if err != nil {
				t.Fatal(err)
			}
			for i := range p.Ports {
				dev := fmt.Sprintf("mlx5_%d", i)
				idx, ok := facts.RoCEv2IPv4Index(entries, dev)
				if !ok || idx != p.RoCEv2IPv4GIDIndex {
					t.Errorf("%s: RoCE v2 IPv4 index %d (found %v), want %d", dev, idx, ok, p.RoCEv2IPv4GIDIndex)
				}
			}
			// The first device's table, entry by entry.
			var got []string
			for _, e := range entries {
				if e.Device == "mlx5_0" {
					got = append(got, fmt.Sprintf("%d %s %s %s", e.Index, e.Type, e.Netdev, e.IP()))
				}
			}
			want := []string{
				"0 RoCE v1 ens1f0np0 fe80::ba3f:d2ff:fea0:300",
				"1 RoCE v2 ens1f0np0 fe80::ba3f:d2ff:fea0:300",
				"2 RoCE v1 ens1f0np0 10.3.0.1",
				"3 RoCE v2 ens1f0np0 10.3.0.1",
			}
			if p.RoCEv2IPv4GIDIndex == 5 {
				want = []string{want[0], want[1],
					"2 RoCE v1 ens1f0np0 fdaa:0:3::1", "3 RoCE v2 ens1f0np0 fdaa:0:3::1",
					"4 RoCE v1 ens1f0np0 10.3.0.1", "5 RoCE v2 ens1f0np0 10.3.0.1"}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("mlx5_0 GID table (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFactsShowGIDsAgreesWithSysfs(t *testing.T) {
	root := renderRoot(t, mustProfile(t, "gid-index-5"), HostID{Name: "n", Index: 2})
	out := mustRun(t, root, "show_gids", "mlx5_1")
	if !strings.Contains(out, "mlx5_1\t1\t5\t0000:0000:0000:0000:0000:ffff:0a02:0101\t10.2.1.1  \tv2\tens2f0np0\n") {
		t.Errorf("show_gids lacks the v2 IPv4 entry at index 5:\n%s", out)
	}
	if !strings.HasSuffix(out, "n_gids_found=6\n") {
		t.Errorf("show_gids should count 6 GIDs:\n%s", out)
	}
}

func TestFactsIBDev2Netdev(t *testing.T) {
	root := renderRoot(t, mustProfile(t, "port-down"), HostID{Name: "n", Index: 0})
	for _, args := range [][]string{nil, {"-v"}} {
		got, err := facts.ParseIBDev2Netdev(mustRun(t, root, "ibdev2netdev", args...))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 8 {
			t.Fatalf("ibdev2netdev %v: %d lines, want 8", args, len(got))
		}
		for i, d := range got {
			if d.Device != fmt.Sprintf("mlx5_%d", i) || d.Netdev != fmt.Sprintf("ens%df0np0", i+1) || d.Port != 1 || d.Up() == (i == 3) {
				t.Errorf("ibdev2netdev %v line %d = %+v", args, i, d)
			}
			if args != nil && (d.PCIAddr == "" || (i == 3) != (d.PortState == "DOWN")) {
				t.Errorf("ibdev2netdev -v line %d = %+v, want PCI address and port state", i, d)
			}
		}
	}
}

func TestFactsTopoAndMemory(t *testing.T) {
	p := mustProfile(t, "cx8")
	root := renderRoot(t, p, HostID{Name: "n", Index: 0})
	out := mustRun(t, root, "nvidia-smi", "topo", "-m")
	if !strings.HasPrefix(out, "\x1b[4m\tGPU0\t") || !strings.Contains(out, "GPU NUMA ID\x1b[0m\n") {
		t.Errorf("topo header is not wrapped in ANSI underline:\n%q", out[:80])
	}
	topo, err := facts.ParseTopo(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(topo.GPUs) != 8 || len(topo.NICLabels) != 8 {
		t.Fatalf("topo: %d GPUs, %d NICs", len(topo.GPUs), len(topo.NICLabels))
	}
	for i, g := range topo.GPUs {
		dev, link, ok := topo.BestNIC(g)
		if !ok || dev != fmt.Sprintf("mlx5_%d", i) || link != "PIX" {
			t.Errorf("BestNIC(%s) = %s %s %v, want mlx5_%d PIX", g, dev, link, ok, i)
		}
	}
	if got := topo.NUMAAffinity["GPU5"]; got != "1" {
		t.Errorf("GPU5 NUMA affinity %q, want 1", got)
	}

	mem, err := facts.ParseGPUMemory(mustRun(t, root, "nvidia-smi", "-q", "-d", "MEMORY"))
	if err != nil {
		t.Fatal(err)
	}
	if len(mem) != 8 {
		t.Fatalf("%d GPUs in -q -d MEMORY", len(mem))
	}
	for _, m := range mem {
		if m.BAR1Total != int64(p.BAR1MiB) || m.FBTotal != int64(p.GPUMemMiB) || m.BAR1Free != m.BAR1Total-m.BAR1Used {
			t.Errorf("GPU %s memory = %+v", m.BusID, m)
		}
	}
}

// parseMlnxQoS parses the stand-in's mlnx_qos output, which prints the current mlnx-tools
// buffer line ("max_buffer_size=N"), with facts.ParseMlnxQoS.
func parseMlnxQoS(t *testing.T, out string) facts.MlnxQoS {
	t.Helper()
	q, err := facts.ParseMlnxQoS(out)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestFactsMlnxQoS(t *testing.T) {
	root := renderRoot(t, mustProfile(t, "cx7"), HostID{Name: "n", Index: 0})
	before := parseMlnxQoS(t, mustRun(t, root, "mlnx_qos", "-i", "ens4f0np0"))
	if before.Trust != "pcp" || before.PFC != [8]bool{} || before.DCBXMode != "OS controlled" {
		t.Errorf("boot QoS = trust %q PFC %v DCBX %q", before.Trust, before.PFC, before.DCBXMode)
	}
	after := parseMlnxQoS(t, mustRun(t, root, "mlnx_qos", "-i", "ens4f0np0", "--trust", "dscp", "--pfc", "0,0,0,1,0,0,0,0"))
	if after.Trust != "dscp" || after.PFC != [8]bool{3: true} || after.DSCPToPrio[26] != 3 || after.DSCPToPrio[48] != 6 || len(after.DSCPToPrio) != 64 {
		t.Errorf("after set: trust %q PFC %v dscp26->%d dscp48->%d (%d entries)", after.Trust, after.PFC,
			after.DSCPToPrio[26], after.DSCPToPrio[48], len(after.DSCPToPrio))
	}
	if after.PrioToTC != [8]int{1, 0, 2, 3, 4, 5, 6, 7} || len(after.BufferSize) != 8 || after.CableLen != 7 {
		t.Errorf("prio->tc %v, buffers %v, cable %d", after.PrioToTC, after.BufferSize, after.CableLen)
	}
	// The state persisted: a plain read shows it again.
	again := parseMlnxQoS(t, mustRun(t, root, "mlnx_qos", "-i", "ens4f0np0"))
	if diff := cmp.Diff(after, again); diff != "" {
		t.Errorf("read-back differs from the set output (-set +read):\n%s", diff)
	}
}

func TestFactsModulesAndPeerMem(t *testing.T) {
	root := renderRoot(t, mustProfile(t, "cx7"), HostID{Name: "n", Index: 0})
	peer := rootedScript(t, root, facts.PeerMemCommand.String(), facts.PeerMemVersionPath)
	pm, err := facts.ParsePeerMem(sh(t, root, peer))
	if err != nil || pm.Registered {
		t.Fatalf("before modprobe: %+v, %v; want not registered", pm, err)
	}
	mustRun(t, root, "modprobe", "nvidia-peermem")
	mods, err := facts.ParseLsmod(mustRun(t, root, "lsmod"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := mods["nvidia_peermem"]; !ok {
		t.Errorf("lsmod lacks nvidia_peermem: %v", mods)
	}
	if got := mods["ib_core"].UsedBy; len(got) == 0 || got[0] != "nvidia_peermem" {
		t.Errorf("ib_core used by %v, want nvidia_peermem first", got)
	}
	pm, err = facts.ParsePeerMem(sh(t, root, peer))
	if err != nil || !pm.Registered || pm.Version != "550.54.15" {
		t.Errorf("after modprobe: %+v, %v; want registered 550.54.15", pm, err)
	}
}

func TestFactsDCQCNTrees(t *testing.T) {
	root := renderRoot(t, mustProfile(t, "cx7"), HostID{Name: "n", Index: 0})
	ecnScript, err := facts.ECNTreeScript()
	if err != nil {
		t.Fatal(err)
	}
	ecn, err := facts.ParseECNTree(sh(t, root, rootedScript(t, root, ecnScript.String(), "/sys/class/net")))
	if err != nil {
		t.Fatal(err)
	}
	ccScript, err := facts.CCParamsScript()
	if err != nil {
		t.Fatal(err)
	}
	cc, err := facts.ParseCCParams(sh(t, root, rootedScript(t, root, ccScript.String(), "/sys/kernel/debug/mlx5")))
	if err != nil {
		t.Fatal(err)
	}
	if len(ecn) != 8 || len(cc) != 8 {
		t.Fatalf("%d ecn trees, %d cc_params dirs; want 8 each", len(ecn), len(cc))
	}
	st := ecn["ens1f0np0"]
	wantRP, wantNP := map[string]int64{}, map[string]int64{}
	wantCC := facts.CCParams{}
	for _, p := range dcqcnParams {
		if p.sysfs != "" && p.side == "rp" {
			wantRP[p.sysfs] = int64(p.def)
		}
		if p.sysfs != "" && p.side == "np" {
			wantNP[p.sysfs] = int64(p.def)
		}
		wantCC[p.debugfs] = int64(p.def)
	}
	all := [8]bool{true, true, true, true, true, true, true, true}
	if st.RPEnabled != all || st.NPEnabled != all {
		t.Errorf("enable bits rp %v np %v, want all on (ROCE_CC_PRIO_MASK 255)", st.RPEnabled, st.NPEnabled)
	}
	if diff := cmp.Diff(wantRP, st.RP); diff != "" {
		t.Errorf("roce_rp (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantNP, st.NP); diff != "" {
		t.Errorf("roce_np (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantCC, cc["0000:17:00.0"]); diff != "" {
		t.Errorf("cc_params (-want +got):\n%s", diff)
	}
	// The ConnectX firmware defaults (NVIDIA's DCQCN parameter documentation,
	// "mlxconfig q" dumps), spelled out once.
	for k, v := range map[string]int64{"dce_tcp_g": 1019, "dce_tcp_rtt": 1, "initial_alpha_value": 1023, "rpg_gd": 11,
		"rpg_min_dec_fac": 50, "rpg_time_reset": 300, "rpg_byte_reset": 32767, "rpg_threshold": 1, "rpg_ai_rate": 5, "rpg_hai_rate": 50} {
		if st.RP[k] != v {
			t.Errorf("roce_rp/%s = %d, want %d", k, st.RP[k], v)
		}
	}
	for k, v := range map[string]int64{"min_time_between_cnps": 4, "cnp_dscp": 48, "cnp_802p_prio": 6} {
		if st.NP[k] != v {
			t.Errorf("roce_np/%s = %d, want %d", k, st.NP[k], v)
		}
	}
}

func TestFactsLockdownBlocksCCParams(t *testing.T) {
	root := renderRoot(t, mustProfile(t, "lockdown"), HostID{Name: "n", Index: 0})
	mode, err := facts.ParseLockdown(readFile(t, root, sysLockdown))
	if err != nil || mode != facts.LockdownIntegrity {
		t.Errorf("lockdown = %q, %v; want integrity", mode, err)
	}
	ccScript, err := facts.CCParamsScript("0000:17:00.0")
	if err != nil {
		t.Fatal(err)
	}
	if out := sh(t, root, rootedScript(t, root, ccScript.String(), "/sys/kernel/debug/mlx5")); out != "" {
		t.Errorf("cc_params readable under lockdown:\n%s", out)
	}
}

func TestFactsVersions(t *testing.T) {
	tests := []struct {
		profile string
		flavor  facts.OFEDFlavor
		version string
		open    bool
	}{
		{"cx7", facts.OFEDDOCA, "25.10-1.7.1", false},
		{"mlnx", facts.OFEDMLNX, "24.10-3.2.5.0", false},
		{"inbox", facts.OFEDInbox, "", false},
		{"dmabuf", facts.OFEDDOCA, "25.10-1.7.1", true},
	}
	for _, tt := range tests {
		t.Run(tt.profile, func(t *testing.T) {
			root := renderRoot(t, mustProfile(t, tt.profile), HostID{Name: "n", Index: 0})
			// Inside the twin ofed_info is /usr/bin/ofed_info of the
			// per-host layer; on the inbox host the shell cannot find it.
			cmd := exec.Command("/bin/sh", "-c", "ofed_info -s")
			cmd.Env = []string{"PATH=" + root + "/usr/bin:/nonexistent"}
			out, _ := cmd.CombinedOutput()
			info, err := facts.ParseOFEDInfo(string(out))
			if err != nil || info.Flavor != tt.flavor || info.Version != tt.version {
				t.Errorf("ofed_info -s %q -> %+v, %v; want %s %s", out, info, err, tt.flavor, tt.version)
			}
			drv, err := facts.ParseNVIDIAVersion(readFile(t, root, "run/twin/proc-driver-nvidia/version"))
			if err != nil || drv.Open != tt.open || drv.Version != "550.54.15" {
				t.Errorf("nvidia version -> %+v, %v; want open %v", drv, err, tt.open)
			}
		})
	}
}

func TestFactsDpkgQuery(t *testing.T) {
	root := renderRoot(t, mustProfile(t, "cx7"), HostID{Name: "n", Index: 0})
	cmd, err := facts.DpkgQueryCommand("doca-ofed", "mlnx-ofed-kernel-dkms", "rdma-core")
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Replace(cmd.String(), "dpkg-query ", "dpkg-query --admindir="+root+"/var/lib/dpkg ", 1)
	pkgs, err := facts.ParseDpkgQuery(sh(t, root, line))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range pkgs {
		if !p.Installed || p.Held {
			t.Errorf("%s status %q", p.Name, p.Status)
		}
		got[p.Name] = p.Version
	}
	want := map[string]string{"doca-ofed": "25.10-1.7.1", "mlnx-ofed-kernel-dkms": "25.10.OFED.25.10.1.7.1.1", "rdma-core": "2510mlnx1-1.2510171"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dpkg-query (-want +got):\n%s", diff)
	}
}
