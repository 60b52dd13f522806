package hostprofile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestResetRuntimeRestoresBootState(t *testing.T) {
	p := mustProfile(t, "cx7")
	id := HostID{Name: "n", Index: 4}
	root := renderRoot(t, p, id)
	// Configure the host as a bootstrapper would.
	writeFile(t, root, "sys/class/net/ens1f0np0/ecn/roce_np/enable/3", "0\n")
	writeFile(t, root, "sys/class/net/ens1f0np0/ecn/roce_rp/dce_tcp_g", "1000\n")
	writeFile(t, root, "sys/kernel/debug/mlx5/0000:17:00.0/cc_params/np_cnp_dscp", "26\n")
	writeFile(t, root, "sys/class/infiniband/mlx5_0/tc/1/traffic_class", "106\n")
	writeFile(t, root, "sys/class/net/ens1f0np0/mtu", "1500\n")
	writeFile(t, root, "etc/nccl.conf", "NCCL_IB_TC=106\n")
	mustRun(t, root, "mlnx_qos", "-i", "ens1f0np0", "--trust", "dscp", "--pfc", "0,0,0,1,0,0,0,0")
	mustRun(t, root, "modprobe", "nvidia-peermem")
	mustRun(t, root, "cma_roce_tos", "-d", "mlx5_0", "-t", "106")
	version := filepath.Join(root, "run/twin/proc-driver-nvidia/version")
	before, err := os.Stat(version)
	if err != nil {
		t.Fatal(err)
	}

	if err := ResetRuntime(root, p, id); err != nil {
		t.Fatal(err)
	}
	checkTree(t, root, map[string]string{
		"sys/class/net/ens1f0np0/ecn/roce_np/enable/3":             "1\n",
		"sys/class/net/ens1f0np0/ecn/roce_rp/dce_tcp_g":            "1019\n",
		"sys/kernel/debug/mlx5/0000:17:00.0/cc_params/np_cnp_dscp": "48\n",
		"sys/class/infiniband/mlx5_0/tc/1/traffic_class":           "",
		"sys/class/net/ens1f0np0/mtu":                              "9000\n",
		"sys/kernel/mm/memory_peers":                               absent,
		"sys/module/nvidia_peermem":                                absent,
		"run/twin/qos":                                             absent,
		"run/twin/rdma_cm":                                         absent,
		"etc/nccl.conf":                                            "NCCL_IB_TC=106\n",
	})
	if out := mustRun(t, root, "mlnx_qos", "-i", "ens1f0np0"); !strings.Contains(out, "Priority trust state: pcp\n") {
		t.Errorf("QoS survived the reboot:\n%s", out)
	}
	if strings.Contains(mustRun(t, root, "lsmod"), "nvidia_peermem") {
		t.Error("nvidia_peermem still loaded")
	}
	if got := mustRun(t, root, "cma_roce_tos", "-d", "mlx5_0"); got != "0\n" {
		t.Errorf("rdma_cm tos after reboot = %q", got)
	}
	// The NVIDIA version file is rewritten in place: a bind mount of its
	// directory stays valid.
	after, err := os.Stat(version)
	if err != nil || inode(after) != inode(before) {
		t.Errorf("proc-driver-nvidia/version replaced (%v), want rewritten in place", err)
	}
}

func TestResetRuntimeAppliesNVConfig(t *testing.T) {
	p := mustProfile(t, "cx7")
	id := HostID{Name: "n", Index: 0}
	root := renderRoot(t, p, id)
	mustRun(t, root, "mlxconfig", "-d", "mlx5_0", "-y", "set", "CNP_DSCP_P1=26", "ROCE_CC_PRIO_MASK_P1=8", "QOS_TRUST_STATE_P1=TRUST_DSCP", "DCE_TCP_G_P1=1000")
	if err := ResetRuntime(root, p, id); err != nil {
		t.Fatal(err)
	}
	checkTree(t, root, map[string]string{
		"sys/class/net/ens1f0np0/ecn/roce_np/cnp_dscp":             "26\n",
		"sys/class/net/ens1f0np0/ecn/roce_np/enable/3":             "1\n",
		"sys/class/net/ens1f0np0/ecn/roce_np/enable/0":             "0\n",
		"sys/class/net/ens1f0np0/ecn/roce_rp/enable/4":             "0\n",
		"sys/class/net/ens1f0np0/ecn/roce_rp/dce_tcp_g":            "1000\n",
		"sys/kernel/debug/mlx5/0000:17:00.0/cc_params/np_cnp_dscp": "26\n",
		"sys/class/net/ens2f0np0/ecn/roce_np/cnp_dscp":             "48\n",
	})
	if out := mustRun(t, root, "mlnx_qos", "-i", "ens1f0np0"); !strings.Contains(out, "Priority trust state: dscp\n") {
		t.Errorf("NV trust state not applied at boot:\n%s", out)
	}
	if out := mustRun(t, root, "mlnx_qos", "-i", "ens2f0np0"); !strings.Contains(out, "Priority trust state: pcp\n") {
		t.Errorf("another port took the NV trust state:\n%s", out)
	}
	if out := mustRun(t, root, "mlxconfig", "-d", "mlx5_0", "-e", "q", "CNP_DSCP_P1"); !strings.Contains(out, "CNP_DSCP_P1                                 48              26              26\n") {
		t.Errorf("current value after reboot:\n%s", out)
	}
}

func TestResetRuntimeFollowsInstalledStack(t *testing.T) {
	p := mustProfile(t, "inbox")
	id := HostID{Name: "n", Index: 0}
	root := renderRoot(t, p, id)
	// apt-get install doca-ofed put ofed_info in place; the next boot loads
	// OFED's drivers, which bring the ecn/ tree and mlx_compat.
	writeFile(t, root, "usr/bin/ofed_info", ofedInfoScript(StackDOCA, "25.10-1.7.1"))
	if err := os.Chmod(filepath.Join(root, "usr/bin/ofed_info"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := ResetRuntime(root, p, id); err != nil {
		t.Fatal(err)
	}
	checkTree(t, root, map[string]string{
		"sys/class/net/ens1f0np0/ecn/roce_np/cnp_dscp":   "48\n",
		"sys/class/infiniband/mlx5_0/tc/1/traffic_class": "",
		"sys/module/mlx_compat/initstate":                "live\n",
	})
	// The driver was built without OFED: peermem still refuses until dkms.
	if r := runTool(t, root, "", "modprobe", "nvidia_peermem"); r.code != 1 {
		t.Errorf("modprobe after OFED install without driver rebuild: exit %d", r.code)
	}
	mustRun(t, root, "dkms", "autoinstall")
	mustRun(t, root, "modprobe", "nvidia_peermem")

	os.Remove(filepath.Join(root, "usr/bin/ofed_info"))
	if err := ResetRuntime(root, p, id); err != nil {
		t.Fatal(err)
	}
	checkTree(t, root, map[string]string{"sys/class/net/ens1f0np0/ecn": absent, "sys/class/infiniband/mlx5_0/tc": absent})
}

func TestResetRuntimeLockdownAndVF(t *testing.T) {
	for _, name := range []string{"lockdown", "vf"} {
		p := mustProfile(t, name)
		id := HostID{Name: "n", Index: 0}
		root := renderRoot(t, p, id)
		if err := ResetRuntime(root, p, id); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if err := ResetRuntime(t.TempDir(), Profile{}, HostID{Name: "n"}); err == nil {
		t.Error("ResetRuntime accepted an invalid profile")
	}
}

// inode returns a file's inode number, 0 where the platform gives none.
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}
