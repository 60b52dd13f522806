package tasks

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// The package families OFEDPin can manage.
const (
	// FamilyAuto takes the family from the host's /etc/os-release.
	FamilyAuto = "auto"
	// FamilyDebian is Debian and Ubuntu: apt, dpkg, apt-mark.
	FamilyDebian = facts.FamilyDebian
	// FamilyRHEL is RHEL and its rebuilds: dnf and its versionlock plugin.
	FamilyRHEL = facts.FamilyRHEL
)

// DefaultLockTimeout is how long an OFEDPin waits for another process's dpkg
// lock when its LockTimeout is zero.
const DefaultLockTimeout = 2 * time.Minute

// ErrLatestRepo is returned for a repository URL that names a moving
// "latest" directory instead of a version.
var ErrLatestRepo = errors.New(`the OFED repository URL points at a "latest" directory`)

// OFEDPin installs one exact MLNX_OFED or DOCA-OFED version from a versioned
// repository and keeps it there: on Debian an apt source, an apt preferences
// pin (priority 1001) and apt-mark hold; on RHEL a dnf repository and a dnf
// version lock. It then checks that the running stack (ofed_info -s) is that
// version and reports a needed reboot through a note and [OFEDPin.Status];
// it never reboots.
//
// Without Version it installs nothing and only checks that the running stack
// satisfies Constraint.
type OFEDPin struct {
	// Flavor is "doca" (DOCA-OFED) or "mlnx" (MLNX_OFED).
	Flavor string
	// Version is the exact OFED version to install, as ofed_info -n prints
	// it, e.g. "25.10-1.7.1". Installs need it.
	Version string
	// Constraint is a go-version constraint the running stack must satisfy,
	// e.g. "~> 25.10.0" (any 25.10 release) or ">= 24.10-3.2.5.0"; OFED
	// versions in it are compared number by number ("25.10-1.7.1" as
	// 25.10.1.7.1). With Version, Version must satisfy it; without, nothing
	// is installed and a running stack outside it is an error.
	Constraint string
	// PackageVersion is the package version to pin and install (dpkg's, or
	// rpm's "version-release"); empty means Version. Set it where the
	// repository versions its packages differently from ofed_info.
	PackageVersion string
	// RepoAuth is the repository's login, if it needs one; RepoURL must not
	// carry one.
	RepoAuth *RepoAuth
	// RepoURL is the versioned repository directory, e.g.
	// "https://linux.mellanox.com/public/repo/doca/3.2.1/ubuntu24.04/x86_64/".
	// URLs with "latest" in them are refused.
	RepoURL string
	// RepoURLs are the repositories of a fleet of both families, by family
	// (FamilyDebian, FamilyRHEL): the host's family picks the RepoURL its
	// plan uses. They exclude RepoURL.
	RepoURLs map[string]string
	// Key is the repository's signing key: on Debian a keyring file for
	// "signed-by" (e.g. "/usr/share/keyrings/mellanox.gpg"), on RHEL a
	// "gpgkey" URL. Empty uses the keys the package manager already trusts.
	Key string
	// Trusted turns signature checks off ("trusted=yes", "gpgcheck=0"), for
	// local test repositories only. It excludes Key, and needs a file: URL
	// unless AllowUnsignedRemote is set.
	Trusted bool
	// AllowUnsignedRemote lets Trusted apply to an http or https repository,
	// whose mirror or network path could then feed the host kernel modules
	// that root installs.
	AllowUnsignedRemote bool
	// Packages are the packages to install, pin and hold; empty means the
	// flavor's metapackage (doca-ofed or mlnx-ofed-all).
	Packages []string
	// Family is FamilyAuto (the default: the host's, from /etc/os-release),
	// FamilyDebian or FamilyRHEL. A set family the host does not have is an
	// error at plan.
	Family string
	// LockTimeout is how long apt waits for a dpkg lock, or dnf for its
	// locks, held by another process (unattended-upgrades or dnf-automatic,
	// say) before failing; zero means DefaultLockTimeout.
	LockTimeout time.Duration
}

var _ host.Task = OFEDPin{}

// Name implements host.Task: "ofed <flavor> <version or constraint>".
func (t OFEDPin) Name() string {
	if t.Version != "" {
		return "ofed " + t.Flavor + " " + t.Version
	}
	return "ofed " + t.Flavor + " " + t.Constraint
}

// Needs implements host.Task: the running stack and, for an install, the
// distribution, and the installed packages and repository files of the
// family (dpkg's, or rpm's with dnf's version locks), of both families when
// the family is left to the host.
func (t OFEDPin) Needs() host.Want {
	s := host.WantFacts(host.FactOFED)
	if t.Version == "" {
		return s
	}
	s = s.Union(host.WantFacts(host.FactOS))
	fam := t.family()
	if fam != FamilyDebian {
		s = s.Union(host.WantFacts(host.FactRPMPackages, host.FactDnfLocks)).WithFiles(DnfRepoPath)
	}
	if fam != FamilyRHEL {
		s = s.Union(host.WantFacts(host.FactPackages)).WithFiles(AptSourcePath, AptPreferencesPath, AptAuthPath)
	}
	return s
}

// ForHost returns t with the family of the host f was gathered on (with
// FactOS), checked against a family t sets: a Debian task on a RHEL host,
// or the reverse, is an error naming both, and a distribution of neither
// family needs the family set.
func (t OFEDPin) ForHost(f host.Facts) (OFEDPin, error) {
	if !f.Has(host.FactOS) {
		if t.family() != FamilyAuto {
			return t.withRepoOf(t.family())
		}
		return t, fieldError("family", fmt.Errorf("cannot read the host's distribution (%s): set family to debian or rhel",
			f.Absent[host.FactOS.String()]))
	}
	fam, ok := f.OS.Family()
	switch {
	case !ok && t.family() == FamilyAuto:
		return t, fieldError("family", fmt.Errorf("the host runs %s (ID %q, ID_LIKE %q), of neither the debian nor the rhel family: "+
			"set family to the one whose package tools (apt or dnf) it has", f.OS, f.OS.ID, strings.Join(f.OS.IDLike, " ")))
	case !ok:
		return t.withRepoOf(t.family())
	case t.family() != FamilyAuto && t.family() != fam:
		return t, fieldError("family", fmt.Errorf("family is %q but the host runs %s, a %s-family distribution: "+
			"set family to %q or leave it unset (auto)", t.Family, f.OS, fam, fam))
	case t.family() == fam:
		return t.withRepoOf(fam)
	}
	// Resolved from auto: the rules that depend on the family (key, packages) apply now.
	t.Family = fam
	t, err := t.withRepoOf(fam)
	if err != nil {
		return t, err
	}
	return t, t.validate()
}

// withRepoOf returns t with RepoURL set to the repository RepoURLs gives family, the host's
// (t unchanged without RepoURLs).
func (t OFEDPin) withRepoOf(family string) (OFEDPin, error) {
	if len(t.RepoURLs) == 0 {
		return t, nil
	}
	u, ok := t.RepoURLs[family]
	if !ok {
		return t, fieldError("repo_urls", fmt.Errorf("the host is of the %s family and repo_urls has no %q entry: add the repository of its "+
			"distribution as repo_urls[%q]", family, family, family))
	}
	t.RepoURL, t.RepoURLs = u, nil
	return t, nil
}

// Plan implements host.Task.
func (t OFEDPin) Plan(f host.Facts) ([]host.Change, error) {
	if err := t.validate(); err != nil {
		return nil, err
	}
	if !f.Has(host.FactOFED) {
		return nil, fmt.Errorf("cannot read the running OFED stack: %s", f.Absent[host.FactOFED.String()])
	}
	if t.Version == "" {
		n, err := t.checkRunning(f.OFED)
		if err != nil {
			return nil, err
		}
		return []host.Change{n}, nil
	}
	t, err := t.ForHost(f)
	if err != nil {
		return nil, err
	}
	pkgs, err := t.installed(f)
	if err != nil {
		return nil, err
	}
	if err := t.checkFlavor(f.OFED, pkgs); err != nil {
		return nil, err
	}
	if t.family() == FamilyRHEL {
		return t.planDnf(f, pkgs)
	}
	return t.planApt(f, pkgs)
}

// metaPackage is the flavor's metapackage.
func metaPackage(flavor string) string {
	if flavor == string(facts.OFEDMLNX) {
		return "mlnx-ofed-all"
	}
	return "doca-ofed"
}

// installedVersion returns the version of the installed package name.
func installedVersion(pkgs []facts.Package, name string) (string, bool) {
	for _, p := range pkgs {
		if p.Name == name && p.Installed {
			return p.Version, true
		}
	}
	return "", false
}

func (t OFEDPin) family() string {
	if t.Family == "" {
		return FamilyAuto
	}
	return t.Family
}

// installed returns the installed packages of the task's family as the
// gather read them, or an error saying why they could not be read.
func (t OFEDPin) installed(f host.Facts) ([]facts.Package, error) {
	fact, pkgs := host.FactPackages, f.Packages
	if t.family() == FamilyRHEL {
		fact, pkgs = host.FactRPMPackages, f.RPMPackages
	}
	if !f.Has(fact) {
		return nil, fmt.Errorf("cannot read the installed packages (%s): %s", fact, f.Absent[fact.String()])
	}
	return pkgs, nil
}

func (t OFEDPin) packages() []string {
	if len(t.Packages) == 0 {
		return []string{metaPackage(t.Flavor)}
	}
	return t.Packages
}

func (t OFEDPin) packageVersion() string {
	if t.PackageVersion == "" {
		return t.Version
	}
	return t.PackageVersion
}

func (t OFEDPin) lockTimeout() time.Duration {
	if t.LockTimeout == 0 {
		return DefaultLockTimeout
	}
	return t.LockTimeout
}
