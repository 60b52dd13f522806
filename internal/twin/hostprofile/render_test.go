package hostprofile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// absent marks a path that must not exist in a rendered layer.
const absent = "\x00absent"

// unopenable marks a path that must exist but fail to open.
const unopenable = "\x00unopenable"

// checkTree compares files of a rendered layer with their wanted content,
// or with absent / unopenable.
func checkTree(t *testing.T, root string, want map[string]string) {
	t.Helper()
	for rel, w := range want {
		p := filepath.Join(root, rel)
		b, err := os.ReadFile(p)
		switch w {
		case absent:
			if _, lerr := os.Lstat(p); lerr == nil {
				t.Errorf("%s exists, want absent", rel)
			}
		case unopenable:
			if _, lerr := os.Lstat(p); lerr != nil {
				t.Errorf("%s missing, want present but unopenable", rel)
			} else if err == nil || !errors.Is(err, syscall.ELOOP) {
				t.Errorf("%s: read err %v, want ELOOP", rel, err)
			}
		default:
			if err != nil {
				t.Errorf("%s: %v", rel, err)
			} else if string(b) != w {
				t.Errorf("%s = %q, want %q", rel, b, w)
			}
		}
	}
}

func TestRenderHostProfiles(t *testing.T) {
	const (
		ecnG    = "sys/class/net/ens1f0np0/ecn/roce_rp/dce_tcp_g"
		ecnEn3  = "sys/class/net/ens1f0np0/ecn/roce_np/enable/3"
		ccG     = "sys/kernel/debug/mlx5/0000:17:00.0/cc_params/rp_dce_tcp_g"
		tc      = "sys/class/infiniband/mlx5_0/tc/1/traffic_class"
		ofed    = "usr/bin/ofed_info"
		gid3    = "sys/class/infiniband/mlx5_0/ports/1/gids/3"
		type3   = "sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/3"
		type5   = "sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/5"
		type15  = "sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/15"
		ndev15  = "sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/15"
		gid15   = "sys/class/infiniband/mlx5_0/ports/1/gids/15"
		lock    = "sys/kernel/security/lockdown"
		nvver   = "run/twin/proc-driver-nvidia/version"
		built   = "var/lib/twin/nvidia-built-against"
		state3  = "sys/class/infiniband/mlx5_3/ports/1/state"
		carrier = "sys/class/net/ens4f0np0/carrier"
		peers   = "sys/kernel/mm/memory_peers/nv_mem/version"
	)
	ipv4GID := "0000:0000:0000:0000:0000:ffff:0a05:0001\n"
	zeroGID := "0000:0000:0000:0000:0000:0000:0000:0000\n"
	tests := []struct {
		profile string
		want    map[string]string
	}{
		{"cx7", map[string]string{
			ecnG: "1019\n", ecnEn3: "1\n", ccG: "1019\n", tc: "", gid3: ipv4GID, type3: "RoCE v2\n",
			type15: unopenable, ndev15: unopenable, gid15: zeroGID,
			lock: "[none] integrity confidentiality\n", built: "25.10-1.7.1\n", state3: "4: ACTIVE\n", carrier: "1\n",
			peers: absent, "sys/class/infiniband/mlx5_0/hca_type": "MT4129\n",
			"sys/bus/pci/devices/0000:17:00.0/device": "0x1021\n", "sys/class/net/ens1f0np0/address": "b8:3f:d2:a0:05:00\n",
			"etc/hostname": "node5\n", "sys/module/nvidia_peermem": absent, "sys/module/mlx_compat/initstate": "live\n",
		}},
		{"cx8", map[string]string{
			"sys/class/infiniband/mlx5_0/hca_type": "MT4131\n", "sys/bus/pci/devices/0000:17:00.0/device": "0x1023\n",
			"sys/class/infiniband/mlx5_0/ports/1/rate": "800 Gb/sec (4X XDR)\n", "sys/class/net/ens1f0np0/speed": "800000\n",
		}},
		{"gid-index-5", map[string]string{
			gid3: "fdaa:0000:0005:0000:0000:0000:0000:0001\n", type3: "RoCE v2\n", type5: "RoCE v2\n",
			"sys/class/infiniband/mlx5_0/ports/1/gids/5": ipv4GID,
		}},
		{"port-down", map[string]string{state3: "1: DOWN\n", carrier: "0\n", "sys/class/net/ens4f0np0/operstate": "down\n",
			"sys/class/infiniband/mlx5_3/ports/1/phys_state": "2: Polling\n"}},
		{"inbox", map[string]string{
			ecnG: absent, tc: absent, ofed: absent, ccG: "1019\n", built: "inbox\n", "sys/module/mlx_compat": absent,
			"usr/share/doc/doca-ofed": absent,
		}},
		{"mlnx", map[string]string{built: "24.10-3.2.5.0\n", "usr/share/doc/mlnx-ofed-all/README.twin": "Empty stand-in package of the host twin; the tools are emulated in /usr/local/sbin.\n"}},
		{"lockdown", map[string]string{lock: "none [integrity] confidentiality\n", ccG: unopenable, ecnG: "1019\n"}},
		{"peermem-wrong-order", map[string]string{built: "inbox\n"}},
		{"dmabuf", map[string]string{}},
		{"vf", map[string]string{
			"sys/class/net/ens1f0np0": absent, "sys/class/net/ens1f0v0/ecn/roce_rp/dce_tcp_g": "1019\n",
			"sys/bus/pci/devices/0000:17:00.1/device": "0x101e\n", "sys/class/infiniband/mlx5_0/hca_type": "MT4126\n",
			"sys/kernel/debug/mlx5/0000:17:00.1": absent, "sys/kernel/debug/mlx5/0000:17:00.0": absent,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.profile, func(t *testing.T) {
			requireRoot(t)
			p := mustProfile(t, tt.profile)
			root := fastTempDir(t)
			if err := RenderHost(root, p, HostID{Name: "node5", Index: 5}); err != nil {
				t.Fatal(err)
			}
			checkTree(t, root, tt.want)
			if p.GPUs > 0 {
				v := readFile(t, root, nvver)
				if strings.Contains(v, "Open Kernel Module") != p.OpenKernelModules {
					t.Errorf("nvidia version %q, open modules %v", v, p.OpenKernelModules)
				}
			}
		})
	}
}

func TestRenderHostModesAndLinks(t *testing.T) {
	requireRoot(t)
	for _, tt := range []struct {
		profile, netdev, bdf string
		ecnMode              fs.FileMode
	}{
		{"cx7", "ens1f0np0", "0000:17:00.0", 0o644},
		{"vf", "ens1f0v0", "0000:17:00.1", 0o444},
	} {
		root := fastTempDir(t)
		if err := RenderHost(root, mustProfile(t, tt.profile), HostID{Name: "n", Index: 0}); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"ecn/roce_rp/dce_tcp_g", "ecn/roce_np/enable/0", "ecn/roce_np/cnp_dscp"} {
			st, err := os.Stat(filepath.Join(root, sysNet, tt.netdev, f))
			if err != nil || st.Mode().Perm() != tt.ecnMode {
				t.Errorf("%s %s: mode %v, %v; want %v", tt.profile, f, st.Mode().Perm(), err, tt.ecnMode)
			}
		}
		// device links are relative, so they resolve below any root.
		link, err := os.Readlink(filepath.Join(root, sysNet, tt.netdev, "device"))
		if err != nil || strings.HasPrefix(link, "/") {
			t.Errorf("%s device link %q, %v; want a relative link", tt.profile, link, err)
		}
		dev, err := filepath.EvalSymlinks(filepath.Join(root, sysNet, tt.netdev, "device"))
		if err != nil || filepath.Base(dev) != tt.bdf {
			t.Errorf("%s device resolves to %s, %v; want %s", tt.profile, dev, err, tt.bdf)
		}
		_, err = os.Stat(filepath.Join(root, sysNet, tt.netdev, "device/physfn"))
		if (err == nil) != (tt.profile == "vf") {
			t.Errorf("%s physfn present: %v", tt.profile, err == nil)
		}
		if tt.profile == "cx7" {
			st, err := os.Stat(filepath.Join(root, sysDebugMLX5, tt.bdf, "cc_params/rp_gd"))
			if err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("cc_params mode %v, %v; want 0600", st.Mode().Perm(), err)
			}
		}
	}
}

func TestRenderHostHidesMachineConfig(t *testing.T) {
	requireRoot(t)
	root := fastTempDir(t)
	if err := RenderHost(root, mustProfile(t, "cx7"), HostID{Name: "n", Index: 0}); err != nil {
		t.Fatal(err)
	}
	for _, d := range hiddenDirs(mustProfile(t, "cx7")) {
		buf := make([]byte, 8)
		n, err := syscall.Getxattr(filepath.Join(root, d), "trusted.overlay.opaque", buf)
		if err != nil || string(buf[:n]) != "y" {
			t.Errorf("%s: opaque xattr %q, %v", d, buf[:n], err)
		}
		if entries, _ := os.ReadDir(filepath.Join(root, d)); len(entries) != 0 {
			t.Errorf("%s not empty: %v", d, entries)
		}
	}
	// Directories the overlay merges must not narrow the machine's modes.
	for _, d := range []string{".", "etc", "usr", "usr/bin", "var/lib/dpkg", "sys", "run"} {
		st, err := os.Stat(filepath.Join(root, d))
		if err != nil || st.Mode().Perm() != 0o755 {
			t.Errorf("%s: mode %v, %v; want 0755", d, st.Mode().Perm(), err)
		}
	}
	if _, err := os.Lstat(filepath.Join(root, "tmp")); err == nil {
		t.Error("the per-host layer must not shadow /tmp")
	}
}

func TestRenderHostDpkgStatus(t *testing.T) {
	requireRoot(t)
	fake := filepath.Join(t.TempDir(), "status")
	machine := "Package: bash\nStatus: install ok installed\nVersion: 5.2\n\n" +
		"Package: rdma-core\nStatus: install ok installed\nVersion: 44.0-2\n\n" +
		"Package: zlib1g\nStatus: install ok installed\nVersion: 1.2\n"
	if err := os.WriteFile(fake, []byte(machine), 0o644); err != nil {
		t.Fatal(err)
	}
	old := machineDPKGStatus
	machineDPKGStatus = fake
	t.Cleanup(func() { machineDPKGStatus = old })

	root := fastTempDir(t)
	if err := RenderHost(root, mustProfile(t, "cx7"), HostID{Name: "n", Index: 0}); err != nil {
		t.Fatal(err)
	}
	status := readFile(t, root, dpkgStatus)
	for _, want := range []string{
		"Package: bash\n", "Package: zlib1g\n",
		"Package: doca-ofed\nStatus: install ok installed\nVersion: 25.10-1.7.1\n",
		"Package: rdma-core\nStatus: install ok installed\nVersion: 2510mlnx1-1.2510171\n",
	} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q", want)
		}
	}
	if n := strings.Count(status, "Package: rdma-core\n"); n != 1 {
		t.Errorf("rdma-core appears %d times", n)
	}
	if got := readFile(t, root, dpkgInfo+"/doca-ofed.list"); !strings.Contains(got, "/usr/bin/ofed_info\n") || !strings.HasPrefix(got, "/.\n") {
		t.Errorf("doca-ofed.list = %q", got)
	}
	// dpkg itself must accept the database.
	out, err := runCmd(t, "dpkg-query", "--admindir="+filepath.Join(root, "var/lib/dpkg"), "-W", "-f", "${Package} ${Version} ${Status}\n", "doca-ofed", "bash")
	if err != nil || !strings.Contains(out, "doca-ofed 25.10-1.7.1 install ok installed") || !strings.Contains(out, "bash 5.2") {
		t.Errorf("dpkg-query: %v\n%s", err, out)
	}
}

func TestRenderHostReplacesOldContent(t *testing.T) {
	requireRoot(t)
	root := fastTempDir(t)
	if err := RenderHost(root, mustProfile(t, "cx7"), HostID{Name: "n", Index: 0}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "stale/file", "x")
	if err := RenderHost(root, mustProfile(t, "inbox"), HostID{Name: "n", Index: 0}); err != nil {
		t.Fatal(err)
	}
	checkTree(t, root, map[string]string{"stale": absent, "usr/bin/ofed_info": absent, "sys/class/net/ens1f0np0/ecn": absent})
	if err := RenderHost(root, Profile{Name: "bad"}, HostID{Name: "n"}); err == nil {
		t.Error("RenderHost accepted an invalid profile")
	}
}
