package hostprofile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// A Rocky layer holds a real rpm database of what rpm installed into it, Rocky's
// os-release and dnf configuration, and whiteouts over the machine's apt and dpkg; a
// Debian layer whites out the machine's dnf and rpm instead.
func TestRenderHostRocky(t *testing.T) {
	requireRoot(t)
	root := fastTempDir(t)
	if err := RenderHost(root, mustProfile(t, "rocky9"), HostID{Name: "r", Index: 0}); err != nil {
		t.Fatal(err)
	}
	out, err := runCmd(t, "rpm", "--root", root, "--dbpath", rhelDbPath, "-qa", "--qf", "%{NAME} %{VERSION}-%{RELEASE}\n")
	if err != nil {
		t.Fatalf("rpm -qa: %v\n%s", err, out)
	}
	for _, want := range []string{"rocky-release 9.6-1.2.el9", "doca-ofed 25.10-1.7.1", "mlnx-ofa_kernel-dkms 25.10-OFED.25.10.1.7.1.1.el9",
		"ofed-scripts 25.10-OFED.25.10.1.7.1", "rdma-core 2510.0.11-1.el9", "libnccl 2.21.5-1+cuda12.4"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("rpm -qa lacks %q:\n%s", want, out)
		}
	}
	if info := readFile(t, root, "usr/bin/ofed_info"); !strings.Contains(info, "OFED-internal-25.10-1.7.1:") {
		t.Errorf("ofed_info from ofed-scripts:\n%s", info)
	}
	o, err := facts.ParseOSRelease(readFile(t, root, "etc/os-release"))
	if fam, _ := o.Family(); err != nil || fam != facts.FamilyRHEL || o.VersionID != "9.6" {
		t.Errorf("os-release: %+v, %v", o, err)
	}
	if got := readFile(t, root, "etc/dnf/dnf.conf"); got != rockyDnfConf {
		t.Errorf("dnf.conf = %q", got)
	}
	checkWhiteouts(t, root, "usr/bin/dpkg-query", "usr/bin/apt-get", "etc/apt")
	for _, d := range []string{"etc/dnf", "etc/yum.repos.d"} {
		buf := make([]byte, 8)
		if n, err := syscall.Getxattr(filepath.Join(root, d), "trusted.overlay.opaque", buf); err != nil || string(buf[:n]) != "y" {
			t.Errorf("%s is not opaque: %v", d, err)
		}
	}

	deb := fastTempDir(t)
	if err := RenderHost(deb, mustProfile(t, "cx7"), HostID{Name: "d", Index: 1}); err != nil {
		t.Fatal(err)
	}
	checkWhiteouts(t, deb, "usr/bin/dnf", "usr/bin/rpm", "etc/yum.repos.d")
}

// checkWhiteouts fails unless each path of root is an overlayfs whiteout (a 0/0 character
// device).
func checkWhiteouts(t *testing.T, root string, rels ...string) {
	t.Helper()
	for _, rel := range rels {
		st, err := os.Lstat(filepath.Join(root, rel))
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		if !ok || st.Mode()&os.ModeCharDevice == 0 || sys.Rdev != 0 {
			t.Errorf("%s: mode %v, want a whiteout (a 0/0 character device)", rel, st.Mode())
		}
	}
}

// With rhel the base carries a dnf repository per OFED version, indexed by createrepo_c,
// whose packages are those RPMPackages lists; without, it has none and needs no rpmbuild.
func TestBuildBaseRHELRepositories(t *testing.T) {
	dir := fastTempDir(t)
	if err := BuildBase(dir, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, RHELRepoRoot)); err == nil {
		t.Error("a Debian-only base has dnf repositories")
	}
	if err := BuildBase(dir, true); err != nil {
		t.Fatal(err)
	}
	for _, r := range Repos() {
		repo := filepath.Join(dir, RHELRepoPath(r.Flavor, r.Version))
		if md := readFile(t, repo, "repodata/repomd.xml"); !strings.Contains(md, "primary") {
			t.Errorf("%s: repomd.xml without primary metadata", repo)
		}
		pkgs, err := RPMPackages(r.Flavor, r.Version)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pkgs {
			matches, _ := filepath.Glob(filepath.Join(repo, p.Name+"-"+p.Version+".*.rpm"))
			if len(matches) != 1 {
				t.Errorf("%s: no package file for %s %s", repo, p.Name, p.Version)
			}
		}
	}
}
