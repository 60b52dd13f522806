package hostprofile

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestPackagesVersions(t *testing.T) {
	pkgs, err := Packages(StackDOCA, "25.10-1.7.1")
	if err != nil {
		t.Fatal(err)
	}
	want := []Package{
		{"doca-ofed", "25.10-1.7.1"},
		{"mlnx-ofed-kernel-dkms", "25.10.OFED.25.10.1.7.1.1"},
		{"mlnx-tools", "25.10-1.7.1"},
		{"rdma-core", "2510mlnx1-1.2510171"},
		{"ibverbs-utils", "2510mlnx1-1.2510171"},
	}
	if fmt.Sprint(pkgs) != fmt.Sprint(want) {
		t.Errorf("Packages = %v, want %v", pkgs, want)
	}
	if pkgs, _ := Packages(StackMLNX, "24.10-3.2.5.0"); pkgs[0].Name != "mlnx-ofed-all" {
		t.Errorf("mlnx metapackage %v", pkgs[0])
	}
	if _, err := Packages(StackDOCA, "9.9-9"); err == nil {
		t.Error("Packages of an unknown version succeeded")
	}
	r := Repo{StackDOCA, "25.10-1.7.1"}
	if r.SourceLine() != "deb [trusted=yes] file:/srv/twin-apt/doca/25.10-1.7.1 ./" {
		t.Errorf("SourceLine = %q", r.SourceLine())
	}
	if len(Repos()) != 4 {
		t.Errorf("Repos = %v, want two versions of two flavors", Repos())
	}
}

// The distribution's versions must sort below the twin's, and the older
// twin version below the newer, as dpkg compares them.
func TestPackageVersionOrder(t *testing.T) {
	if _, err := exec.LookPath("dpkg"); err != nil {
		t.Fatal("dpkg is not installed: the host twins need the machine's dpkg (a Debian or Ubuntu machine)")
	}
	old, _ := Packages(StackDOCA, "25.07-0.9.7")
	cur, _ := Packages(StackDOCA, "25.10-1.7.1")
	for i := range cur {
		if err := exec.Command("dpkg", "--compare-versions", old[i].Version, "lt", cur[i].Version).Run(); err != nil {
			t.Errorf("%s: %s is not < %s", cur[i].Name, old[i].Version, cur[i].Version)
		}
	}
	if err := exec.Command("dpkg", "--compare-versions", "44.0-2", "lt", cur[3].Version).Run(); err != nil {
		t.Errorf("inbox rdma-core 44.0-2 is not < %s", cur[3].Version)
	}
}

func TestDebWithDpkgDeb(t *testing.T) {
	pkgs, err := ofedPackages(StackDOCA, "25.10-1.7.1")
	if err != nil {
		t.Fatal(err)
	}
	meta := pkgs[0]
	deb, err := meta.build()
	if err != nil {
		t.Fatal(err)
	}
	again, _ := meta.build()
	if !bytes.Equal(deb, again) {
		t.Error("two builds differ: the .deb is not reproducible")
	}
	if !bytes.HasPrefix(deb, []byte("!<arch>\ndebian-binary   ")) {
		t.Errorf("ar header: %q", deb[:24])
	}
	path := filepath.Join(t.TempDir(), meta.fileName())
	if err := os.WriteFile(path, deb, 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := runCmd(t, "dpkg-deb", "--info", path)
	if err != nil {
		t.Fatalf("dpkg-deb --info: %v\n%s", err, info)
	}
	for _, want := range []string{" Package: doca-ofed\n", " Version: 25.10-1.7.1\n",
		" Depends: mlnx-ofed-kernel-dkms (= 25.10.OFED.25.10.1.7.1.1), mlnx-tools (= 25.10-1.7.1), rdma-core (= 2510mlnx1-1.2510171), ibverbs-utils (= 2510mlnx1-1.2510171)\n"} {
		if !strings.Contains(info, want) {
			t.Errorf("dpkg-deb --info lacks %q:\n%s", want, info)
		}
	}
	contents, err := runCmd(t, "dpkg-deb", "--contents", path)
	if err != nil || !strings.Contains(contents, "-rwxr-xr-x root/root") || !strings.Contains(contents, "./usr/bin/ofed_info\n") {
		t.Errorf("dpkg-deb --contents: %v\n%s", err, contents)
	}
	// The packaged ofed_info prints the short form facts parse.
	dir := t.TempDir()
	if out, err := runCmd(t, "dpkg-deb", "-x", path, dir); err != nil {
		t.Fatalf("dpkg-deb -x: %v %s", err, out)
	}
	if out, err := runCmd(t, filepath.Join(dir, "usr/bin/ofed_info"), "-s"); err != nil || out != "OFED-internal-25.10-1.7.1:\n" {
		t.Errorf("ofed_info -s = %q, %v", out, err)
	}
	mlnx, _ := ofedPackages(StackMLNX, "24.10-3.2.5.0")
	script := filepath.Join(dir, "mlnx_ofed_info")
	if err := os.WriteFile(script, []byte(mlnx[0].files[0].content), 0o755); err != nil {
		t.Fatal(err)
	}
	for arg, want := range map[string]string{"-s": "MLNX_OFED_LINUX-24.10-3.2.5.0:\n", "-n": "24.10-3.2.5.0\n"} {
		if out, err := runCmd(t, script, arg); err != nil || out != want {
			t.Errorf("mlnx ofed_info %s = %q, %v; want %q", arg, out, err, want)
		}
	}
	if out, _ := runCmd(t, script); !strings.HasPrefix(out, "MLNX_OFED_LINUX-24.10-3.2.5.0 (OFED-24.10-3.2.5):\n\n") {
		t.Errorf("mlnx ofed_info long form:\n%s", out)
	}
}

func TestRepoIndexes(t *testing.T) {
	base := sharedBase(t)
	dir := filepath.Join(base, "srv/twin-apt/doca/25.07-0.9.7")
	packages := readFile(t, dir, "Packages")
	for _, want := range []string{"Package: doca-ofed\nVersion: 25.07-0.9.7\n", "Filename: ./doca-ofed_25.07-0.9.7_" + debArch() + ".deb\n", "Package: mlnx-ofed-kernel-dkms\n"} {
		if !strings.Contains(packages, want) {
			t.Errorf("Packages lacks %q", want)
		}
	}
	zr, err := gzip.NewReader(strings.NewReader(readFile(t, dir, "Packages.gz")))
	if err != nil {
		t.Fatal(err)
	}
	unz, _ := io.ReadAll(zr)
	if string(unz) != packages {
		t.Error("Packages.gz differs from Packages")
	}
	sum := sha256.Sum256([]byte(packages))
	release := readFile(t, dir, "Release")
	if want := fmt.Sprintf(" %s %d Packages\n", hex.EncodeToString(sum[:]), len(packages)); !strings.Contains(release, want) {
		t.Errorf("Release lacks %q:\n%s", want, release)
	}
	// Every Filename exists with the recorded size.
	for _, stanza := range strings.Split(strings.TrimSpace(packages), "\n\n") {
		var file string
		var size int
		for _, l := range strings.Split(stanza, "\n") {
			if f, ok := strings.CutPrefix(l, "Filename: "); ok {
				file = f
			}
			if s, ok := strings.CutPrefix(l, "Size: "); ok {
				if _, err := fmt.Sscan(s, &size); err != nil {
					t.Fatalf("Size line %q: %v", l, err)
				}
			}
		}
		st, err := os.Stat(filepath.Join(dir, file))
		if err != nil || st.Size() != int64(size) {
			t.Errorf("%s: %v, size %d want %d", file, err, st.Size(), size)
		}
	}
}

// TestRepoWithApt points a private apt configuration at the repository and
// simulates installs: apt must read the flat repository and resolve the
// metapackage's exact-version dependencies, including an upgrade over a
// rendered host's preinstalled stack.
func TestRepoWithApt(t *testing.T) {
	if _, err := exec.LookPath("apt-get"); err != nil {
		t.Fatal("apt-get is not installed: the host twins need the machine's apt (a Debian or Ubuntu machine)")
	}
	root := renderRoot(t, mustProfile(t, "cx7"), HostID{Name: "n", Index: 0})
	base := sharedBase(t)
	work := t.TempDir()
	for _, d := range []string{"lists/partial", "cache/archives/partial", "etc/apt.conf.d", "etc/preferences.d", "etc/sources.list.d"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sources := ""
	for _, v := range repoVersions[StackDOCA] {
		sources += "deb [trusted=yes] file:" + filepath.Join(base, "srv/twin-apt/doca", v) + " ./\n"
	}
	writeFile(t, work, "etc/sources.list", sources)
	apt := func(args ...string) (string, error) {
		opts := []string{
			"-o", "Dir::Etc=" + filepath.Join(work, "etc"),
			"-o", "Dir::Etc::sourcelist=" + filepath.Join(work, "etc/sources.list"),
			"-o", "Dir::Etc::sourceparts=" + filepath.Join(work, "etc/sources.list.d"),
			"-o", "Dir::Etc::parts=" + filepath.Join(work, "etc/apt.conf.d"),
			"-o", "Dir::Etc::preferencesparts=" + filepath.Join(work, "etc/preferences.d"),
			"-o", "Dir::State::Lists=" + filepath.Join(work, "lists"),
			"-o", "Dir::Cache=" + filepath.Join(work, "cache"),
			"-o", "Dir::State::status=" + filepath.Join(root, "var/lib/dpkg/status"),
			"-o", "Debug::NoLocking=1",
			"-o", "APT::Sandbox::User=root",
		}
		cmd := exec.Command("apt-get", append(opts, args...)...)
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := apt("update"); err != nil {
		t.Fatalf("apt-get update: %v\n%s", err, out)
	}
	// The host has 25.10 installed; asking for 25.07 of the whole set is a
	// downgrade apt plans exactly.
	out, err := apt("-s", "install", "--allow-downgrades", "doca-ofed=25.07-0.9.7", "mlnx-ofed-kernel-dkms=25.07.OFED.25.07.0.9.7.1",
		"mlnx-tools=25.07-0.9.7", "rdma-core=2507mlnx1-1.2507097", "ibverbs-utils=2507mlnx1-1.2507097")
	if err != nil || !strings.Contains(out, "Inst doca-ofed [25.10-1.7.1] (25.07-0.9.7 ") {
		t.Errorf("apt-get -s install downgrade: %v\n%s", err, out)
	}
	// The metapackage alone cannot move: its dependencies pin exact versions.
	if out, err := apt("-s", "install", "doca-ofed=25.07-0.9.7"); err == nil {
		t.Errorf("apt planned a lone metapackage downgrade:\n%s", out)
	}
}

func TestRepoInstallsWithDpkg(t *testing.T) {
	if _, err := exec.LookPath("dpkg"); err != nil {
		t.Fatal("dpkg is not installed: the host twins need the machine's dpkg (a Debian or Ubuntu machine)")
	}
	requireRoot(t)
	base := sharedBase(t)
	root := t.TempDir()
	for _, d := range []string{"var/lib/dpkg/info", "var/lib/dpkg/updates", "var/lib/dpkg/triggers"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, root, "var/lib/dpkg/status", "")
	install := func(v string) {
		t.Helper()
		debs, err := filepath.Glob(filepath.Join(base, "srv/twin-apt/doca", v, "*.deb"))
		if err != nil || len(debs) != 5 {
			t.Fatalf("debs of %s: %v %v", v, debs, err)
		}
		args := append([]string{"--root=" + root, "--log=/dev/null", "--force-script-chrootless", "--no-triggers", "-i"}, debs...)
		cmd := exec.Command("dpkg", args...)
		cmd.Env = append(os.Environ(), "LC_ALL=C", "PATH=/usr/sbin:/usr/bin:/sbin:/bin")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("dpkg -i %s: %v\n%s", v, err, out)
		}
	}
	install("25.07-0.9.7")
	install("25.10-1.7.1")
	out, err := runCmd(t, "dpkg-query", "--admindir="+filepath.Join(root, "var/lib/dpkg"), "-W", "-f", "${Package} ${Version} ${Status}\n")
	if err != nil || !strings.Contains(out, "doca-ofed 25.10-1.7.1 install ok installed\n") {
		t.Errorf("dpkg-query after upgrade: %v\n%s", err, out)
	}
	if got := readFile(t, root, "usr/bin/ofed_info"); !strings.Contains(got, "OFED-internal-25.10-1.7.1:") {
		t.Errorf("ofed_info not upgraded:\n%s", got)
	}
}
