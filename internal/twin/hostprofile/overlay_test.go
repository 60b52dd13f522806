package hostprofile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// twinTestScript runs inside the chrooted overlay: it checks the preinstalled
// stack, upgrades it from the twin repository with the real apt-get, holds
// it, installs persistence, waits for the reboot (ResetRuntime from outside
// through /proc/<pid>/root) and then boots.
const twinTestScript = `set -e
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C
echo "ofed: $(ofed_info -s)"
echo "sources: $(ls -A /etc/apt/sources.list.d /etc/systemd/system | tr '\n' ' ')"
echo "hcas: $(ibv_devinfo -l | head -n 1)"
modprobe nvidia-peermem
test -e /sys/kernel/mm/memory_peers/nv_mem/version
echo 'deb [trusted=yes] file:/srv/twin-apt/doca/25.10-1.7.1 ./' >/etc/apt/sources.list.d/twin.list
apt-get -q update >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; exit 1; }
apt-get -q install -y doca-ofed=25.10-1.7.1 >>/tmp/apt.log 2>&1 || { cat /tmp/apt.log; exit 1; }
echo "upgraded: $(ofed_info -s)"
apt-mark hold doca-ofed >/dev/null
echo "holds: $(apt-mark showhold | tr '\n' ' ')"
echo "dpkg: $(dpkg-query -W -f '${Version} ${Status}' doca-ofed)"
cat >/etc/systemd/system/roce.service <<'EOF'
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh -c 'mlnx_qos -i ens1f0np0 --trust dscp >/dev/null'
[Install]
WantedBy=multi-user.target
EOF
systemctl enable roce.service 2>/dev/null
echo nvidia-peermem >/etc/modules-load.d/nvidia-peermem.conf
echo ready
read -r go
echo "after reset: peermem loaded $(lsmod | grep -c '^nvidia_peermem' || true)"
twin-boot >/dev/null
echo "nvrm: $(grep -c '^NVRM version: NVIDIA UNIX' /proc/driver/nvidia/version)"
echo "roce: $(systemctl is-active roce.service)"
echo "modules-load: $(systemctl is-active systemd-modules-load || true)"
echo "trust: $(mlnx_qos -i ens1f0np0 | grep 'trust state')"
dkms autoinstall >/dev/null
modprobe nvidia-peermem
echo "after dkms: $(cat /sys/kernel/mm/memory_peers/nv_mem/version)"
`

// TestOverlayChroot mounts the layers as hosttwin does (lowerdir =
// per-host:base:/, upper and work on tmpfs) in a private mount namespace,
// chroots into the result and runs twinTestScript. It needs root, unshare
// and overlayfs; it fails where they are missing.
func TestOverlayChroot(t *testing.T) {
	requireRoot(t)
	if testing.Short() {
		t.Skip("slow: runs apt-get in a chroot")
	}
	for _, tool := range []string{"unshare", "apt-get", "chroot"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not installed: the host twins need it (Debian packages util-linux, apt, coreutils)", tool)
		}
	}
	p := mustProfile(t, "cx7")
	p.OFEDVersion = "25.07-0.9.7"
	id := HostID{Name: "twin-e2e", Index: 9}
	work := fastTempDir(t)
	dirs := map[string]string{}
	for _, d := range []string{"host", "base", "upper", "work", "merged"} {
		dirs[d] = filepath.Join(work, d)
		if err := os.Mkdir(dirs[d], 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := RenderHost(dirs["host"], p, id); err != nil {
		t.Fatal(err)
	}
	if err := BuildBase(dirs["base"], false); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dirs["upper"], "twin-test.sh", twinTestScript)

	mount := fmt.Sprintf(`set -e
mount -t overlay overlay -o lowerdir=%[1]s:%[2]s:/,upperdir=%[3]s,workdir=%[4]s %[5]s
mount --bind /dev %[5]s/dev
mount -t proc proc %[5]s/proc
mount -t tmpfs tmpfs %[5]s/proc/driver
mkdir %[5]s/proc/driver/nvidia
mount --bind %[5]s%[6]s %[5]s/proc/driver/nvidia
exec chroot %[5]s /bin/sh /twin-test.sh`, dirs["host"], dirs["base"], dirs["upper"], dirs["work"], dirs["merged"], ProcDriverNVIDIA)
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "/bin/sh", "-c", mount)
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()

	var lines []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && sc.Text() != "ready" {
		lines = append(lines, sc.Text())
	}
	if len(lines) == 0 {
		_ = stdin.Close()
		_ = cmd.Wait()
		if s := stderr.String(); strings.Contains(s, "unknown filesystem type") || strings.Contains(s, "Operation not permitted") {
			t.Fatalf("no overlay mounts here (the host twins need root and overlayfs): %s", s)
		}
		t.Fatalf("the twin did not start:\n%s", stderr.String())
	}
	// The reboot, through the chrooted process's root as hosttwin does it.
	if err := ResetRuntime(fmt.Sprintf("/proc/%d/root", cmd.Process.Pid), p, id); err != nil {
		t.Errorf("ResetRuntime via /proc/pid/root: %v", err)
	}
	if _, err := io.WriteString(stdin, "go\n"); err != nil {
		t.Fatal(err)
	}
	stdin.Close()
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("twin script: %v\nstdout:\n%s\nstderr:\n%s", err, strings.Join(lines, "\n"), stderr.String())
	}
	out := strings.Join(lines, "\n") + "\n"
	for _, want := range []string{
		"ofed: OFED-internal-25.07-0.9.7:\n",
		"sources: /etc/apt/sources.list.d:  /etc/systemd/system: \n", // the machine's sources and units are hidden
		"hcas: 8 HCAs found:\n",
		"upgraded: OFED-internal-25.10-1.7.1:\n",
		"holds: doca-ofed \n",
		"dpkg: 25.10-1.7.1 hold ok installed\n",
		"after reset: peermem loaded 0\n",
		"nvrm: 1\n",
		"roce: active\n",
		// OFED was upgraded under the NVIDIA driver: peermem fails at boot.
		"modules-load: failed\n",
		"trust: Priority trust state: dscp\n",
		"after dkms: 550.54.15\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("twin output lacks %q:\n%s", want, out)
		}
	}
	// Writes stayed in the upper layer.
	if _, err := os.Stat(filepath.Join(dirs["upper"], "etc/apt/sources.list.d/twin.list")); err != nil {
		t.Errorf("upper layer: %v", err)
	}
	if _, err := os.Stat("/etc/apt/sources.list.d/twin.list"); err == nil {
		t.Error("the twin wrote the machine's /etc")
	}
}
