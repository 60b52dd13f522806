package hostprofile

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// The package families a profile's distribution can belong to.
const (
	FamilyDebian = "debian" // Debian 12: apt, dpkg (the machine's own)
	FamilyRHEL   = "rhel"   // Rocky Linux 9.6: dnf, rpm
)

// rhelDbPath is where Rocky 9's rpm keeps its database (rpm 4.16; Fedora
// has since moved it to /usr/lib/sysimage/rpm). Debian's rpm defaults to
// ~/.rpmdb, so the twin's /etc/rpm/macros.dbpath sets it.
const rhelDbPath = "/var/lib/rpm"

// Each family's package tools and configuration: a twin host hides the
// other family's, which the machine's root would lend it (a Debian machine
// with dnf installed for the RHEL twins, say).
var (
	debianTools = []string{
		"usr/bin/dpkg", "usr/bin/dpkg-query", "usr/bin/dpkg-deb", "usr/bin/dpkg-divert", "usr/bin/dpkg-trigger",
		"usr/bin/apt", "usr/bin/apt-get", "usr/bin/apt-mark", "usr/bin/apt-cache", "usr/bin/apt-config", "usr/bin/apt-key",
		"etc/apt", "var/lib/dpkg", "var/lib/apt",
	}
	rhelTools = []string{
		"usr/bin/dnf", "usr/bin/dnf-3", "usr/bin/dnf4", "usr/bin/yum", "usr/bin/rpm", "usr/bin/rpmdb", "usr/bin/rpmquery",
		"usr/bin/rpmkeys", "usr/bin/rpmverify", "usr/bin/rpmbuild", "usr/bin/createrepo_c",
		"etc/dnf", "etc/yum.repos.d", "etc/rpm",
	}
)

// hideFamilyTools whites out the package tools of the family the profile
// does not have.
func hideFamilyTools(t *tree, p Profile) {
	other := rhelTools
	if p.RHEL() {
		other = debianTools
	}
	for _, rel := range other {
		t.whiteout(rel)
	}
}

// rockyDnfConf is Rocky 9's /etc/dnf/dnf.conf (the dnf package's).
const rockyDnfConf = "[main]\ngpgcheck=1\ninstallonly_limit=3\nclean_requirements_on_remove=True\nbest=True\nskip_if_unavailable=False\n"

// renderRPMStack installs a RHEL profile's distribution and RDMA stack with
// the machine's rpm into the layer: rocky-release, the OFED packages of the
// twin repository (or Rocky's rdma-core for inbox) and libnccl, files and
// database as rpm writes them; and writes dnf's configuration as Rocky 9
// ships it (the versionlock plugin on, its list empty, no repositories).
func renderRPMStack(t *tree, p Profile) error {
	t.file("etc/rpm/macros.dbpath", "# Host twin: Rocky 9's rpm database location.\n%_dbpath "+rhelDbPath+"\n", 0o644)
	t.file("etc/dnf/dnf.conf", rockyDnfConf, 0o644)
	t.file("etc/dnf/plugins/versionlock.conf", "[main]\nenabled = 1\nlocklist = /etc/dnf/plugins/versionlock.list\n", 0o644)
	t.file("etc/dnf/plugins/versionlock.list", "", 0o644)
	t.dir("etc/yum.repos.d")
	if err := t.Err(); err != nil {
		return err
	}
	pkgs := append([]rpmPackage{rockyRelease()}, inboxRPMs()...)
	if p.OFED() {
		ofed, err := ofedRPMs(p.Stack, p.OFEDVersion)
		if err != nil {
			return err
		}
		pkgs = append([]rpmPackage{rockyRelease()}, ofed...)
	}
	if p.NCCLVersion != "" {
		pkgs = append(pkgs, ncclRPM(p.NCCLVersion))
	}
	files := make([]string, len(pkgs))
	for i, pk := range pkgs {
		f, err := pk.built()
		if err != nil {
			return err
		}
		files[i] = f
	}
	args := append([]string{"--root", t.root, "--dbpath", rhelDbPath, "-i", "--nodeps", "--noscripts", "--nosignature"}, files...)
	cmd := exec.Command("rpm", args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("rpm --root %s -i: %w: %s", t.root, err, lastLines(string(out), 5))
	}
	for _, d := range []string{"etc/dnf", "etc/yum.repos.d"} {
		t.fail(setOpaque(t.abs(d)))
	}
	return t.Err()
}

// writeRPMRepos copies the packages of every repository version into the
// base layer's /srv/twin-dnf/<flavor>/<version> and indexes each with
// createrepo_c.
func writeRPMRepos(t *tree) error {
	if _, err := exec.LookPath("createrepo_c"); err != nil {
		return fmt.Errorf("createrepo_c not found (the RHEL twins need the createrepo-c package: make rpmtools installs it)")
	}
	for _, r := range Repos() {
		pkgs, err := ofedRPMs(r.Flavor, r.Version)
		if err != nil {
			return err
		}
		dir := strings.TrimPrefix(RHELRepoPath(r.Flavor, r.Version), "/")
		for _, p := range pkgs {
			f, err := p.built()
			if err != nil {
				return err
			}
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			t.file(dir+"/"+p.fileName(), string(b), 0o644)
		}
		if err := t.Err(); err != nil {
			return err
		}
		cmd := exec.Command("createrepo_c", "--quiet", "--no-database", "--simple-md-filenames", t.abs(dir))
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("createrepo_c %s: %w: %s", dir, err, lastLines(string(out), 5))
		}
	}
	return nil
}
