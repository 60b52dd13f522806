package tasks

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// The files OFEDPin writes on Debian.
const (
	// AptSourcePath is the apt source of the OFED repository.
	AptSourcePath = "/etc/apt/sources.list.d/roce-ofed.list"
	// AptPreferencesPath is the apt pin of the OFED packages.
	AptPreferencesPath = "/etc/apt/preferences.d/roce-ofed"
)

// aptOFEDPatterns are the packages DOCA-OFED and MLNX_OFED ship or replace
// (Debian names). Their metapackages depend on exact versions of them, and
// apt never downgrades a dependency below 1001, so the preferences file gives
// these 1001 when they come from the repository's host.
var aptOFEDPatterns = []string{
	"doca-*", "mlnx-*", "ofed-scripts", "rdma-core", "ibverbs-*", "libibverbs*",
	"librdmacm*", "rdmacm-utils", "ibacm", "infiniband-diags", "libibumad*", "libibnetdisc*",
	"srptools", "python3-pyverbs", "mstflint", "mft", "kernel-mft-dkms", "knem*", "xpmem*",
	"libxpmem*", "ucx*", "hcoll*", "sharp*", "openmpi*", "perftest",
}

// AptSourceLine is the sources.list line of the repository, e.g.
// "deb [signed-by=/usr/share/keyrings/mellanox.gpg] https://…/x86_64/ ./"
// (a flat repository, as NVIDIA publishes them).
func (t OFEDPin) AptSourceLine() string {
	opt := ""
	switch {
	case t.Trusted:
		opt = "[trusted=yes] "
	case t.Key != "":
		opt = "[signed-by=" + t.Key + "] "
	}
	return "deb " + opt + t.RepoURL + " ./"
}

// aptSource is the content of AptSourcePath.
func (t OFEDPin) aptSource() string {
	return "# Managed by the roce provider: the " + t.Flavor + " OFED " + t.Version + " repository.\n" +
		t.AptSourceLine() + "\n"
}

// AptPreferences is the content of AptPreferencesPath: the packages pinned
// to the package version at priority 1001 (above any repository, downgrades
// allowed), and the OFED packages of the repository's host at 1001 so that
// apt may take the metapackage's exact-version dependencies from it even
// when that is a downgrade.
func (t OFEDPin) AptPreferences() string {
	pkgs := t.packages()
	pats := append([]string{}, aptOFEDPatterns...)
	for _, p := range pkgs {
		if !matchesAny(aptOFEDPatterns, p) {
			pats = append(pats, p)
		}
	}
	return "Explanation: managed by the roce provider: " + t.Flavor + " OFED " + t.Version + "\n" +
		"Package: " + strings.Join(pkgs, " ") + "\n" +
		"Pin: version " + t.packageVersion() + "\n" +
		"Pin-Priority: 1001\n\n" +
		"Explanation: the OFED packages the metapackage depends on, from the pinned repository\n" +
		"Package: " + strings.Join(pats, " ") + "\n" +
		"Pin: origin " + t.aptOrigin() + "\n" +
		"Pin-Priority: 1001\n"
}

// aptOrigin is the repository's host as apt's "Pin: origin" matches it:
// the host name, or "" (quoted) for a local file: repository.
func (t OFEDPin) aptOrigin() string {
	u, err := url.Parse(t.RepoURL)
	if err != nil || u.Hostname() == "" {
		return `""`
	}
	return u.Hostname()
}

// planApt plans the Debian install: source, pin, update, install, hold,
// then the running-stack check.
func (t OFEDPin) planApt(f host.Facts, pkgs []facts.Package) ([]host.Change, error) {
	if err := interruptedDpkg(pkgs); err != nil {
		return nil, err
	}
	out, err := planRepoFiles(f, []repoFile{
		{"apt source: ", File{Path: AptSourcePath, Content: t.aptSource()}},
		{"apt pin: ", File{Path: AptPreferencesPath, Content: t.AptPreferences()}},
	})
	if err != nil {
		return nil, err
	}
	auth, err := t.aptAuthChanges(f)
	if err != nil {
		return nil, err
	}
	out = append(out, auth...)
	srcChanged := contentDiffers(f, AptSourcePath, t.aptSource()) || t.RepoAuth != nil && t.authDiffers(f)
	install, before, after := t.packageChanges(f.OFED, pkgs)
	held := true
	for _, p := range t.packages() {
		held = held && isHeld(pkgs, p)
	}
	if srcChanged || len(install) > 0 {
		out = append(out, t.aptUpdate(srcChanged))
	}
	if len(install) > 0 {
		out = append(out, host.Change{
			Summary: strings.Join(install, ", "),
			Before:  before,
			After:   after + " (the new stack runs after a reboot or an openibd restart)",
			Apply:   t.aptCommands(t.aptInstall()),
		})
	}
	switch {
	case len(install) > 0:
		out = append(out, t.aptHold("apt-mark hold; installing releases a hold", held))
	case !held:
		out = append(out, t.aptHold("apt-mark hold", held))
	default:
		out = append(out, host.Unchanged(strings.Join(t.packages(), " ")+" installed at "+t.packageVersion()+" and held"))
	}
	if len(install) == 0 {
		out = append(out, t.runningNote(f.OFED))
	}
	return out, nil
}

// repoFile is a file of the repository setup and the prefix of its
// changes' summaries.
type repoFile struct {
	prefix string
	file   File
}

// planRepoFiles plans the repository files.
func planRepoFiles(f host.Facts, files []repoFile) ([]host.Change, error) {
	var out []host.Change
	for _, rf := range files {
		cs, err := rf.file.Plan(f)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			c.Summary = rf.prefix + c.Summary
			out = append(out, c)
		}
	}
	return out, nil
}

// contentDiffers reports whether the file at path (gathered in f) is absent
// or holds something other than content; a mode or owner change alone does
// not make apt read the lists again.
func contentDiffers(f host.Facts, path, content string) bool {
	fi, _ := f.File(path)
	return !fi.Exists || fi.SHA256 != sha256Hex([]byte(content))
}

// authDiffers reports whether AptAuthPath must be written; with the password
// withheld, only a missing file is known to.
func (t OFEDPin) authDiffers(f host.Facts) bool {
	if t.RepoAuth.PasswordWithheld {
		fi, _ := f.File(AptAuthPath)
		return !fi.Exists
	}
	return contentDiffers(f, AptAuthPath, t.aptAuth())
}

// packageChanges compares the installed packages with the package version:
// the summaries of what must change and the state before and after.
func (t OFEDPin) packageChanges(running facts.OFEDInfo, pkgs []facts.Package) (install []string, before, after string) {
	want := t.packageVersion()
	var b, a []string
	for _, p := range t.packages() {
		v, ok := installedVersion(pkgs, p)
		switch {
		case !ok:
			install = append(install, "install "+p+" "+want)
			b = append(b, p+" not installed")
		case v != want:
			install = append(install, versionDirection(v, want)+" "+p+" "+v+" → "+want)
			b = append(b, p+" "+v)
		default:
			b = append(b, p+" "+v)
		}
		a = append(a, p+" "+want)
	}
	return install, strings.Join(b, ", ") + "; running " + describeStack(running), strings.Join(a, ", ")
}

func isHeld(pkgs []facts.Package, name string) bool {
	for _, p := range pkgs {
		if p.Name == name && p.Installed {
			return p.Held
		}
	}
	return false
}

// aptHold holds the packages; why says why in the summary.
func (t OFEDPin) aptHold(why string, held bool) host.Change {
	before := "not held"
	if held {
		before = "held"
	}
	return host.Change{
		Summary: "hold " + strings.Join(t.packages(), " ") + " (" + why + ")",
		Before:  before,
		After:   "held",
		Apply:   t.aptCommands(shell.New("apt-mark", "hold").Arg(t.packages()...)),
	}
}

// aptUpdate reads the package lists of the OFED source only, leaving the
// other sources' lists as they are.
func (t OFEDPin) aptUpdate(srcChanged bool) host.Change {
	before := "lists read before the install"
	if srcChanged {
		before = "lists without the new source"
	}
	return host.Change{
		Summary: "read the package lists of " + t.RepoURL,
		Before:  before,
		After:   "lists of " + t.RepoURL,
		Apply: t.aptCommands(t.aptGet().
			Arg("-o", "Dir::Etc::sourcelist="+AptSourcePath, "-o", "Dir::Etc::sourceparts=-",
				"-o", "APT::Get::List-Cleanup=0", "update")),
	}
}

// aptInstall installs the packages at the package version; downgrades and
// held packages are allowed because the version is the one asked for.
func (t OFEDPin) aptInstall() shell.Command {
	c := t.aptGet().Arg("-y",
		"-o", "Dpkg::Options::=--force-confdef", "-o", "Dpkg::Options::=--force-confold",
		"--allow-downgrades", "--allow-change-held-packages", "install")
	for _, p := range t.packages() {
		c = c.Arg(p + "=" + t.packageVersion())
	}
	return c
}

// aptGet is apt-get, non-interactive, in the C locale (so that the lock
// message can be recognised), waiting LockTimeout for the dpkg lock.
func (t OFEDPin) aptGet() shell.Command {
	return shell.New("apt-get").Env("DEBIAN_FRONTEND", "noninteractive").Env("LC_ALL", "C").
		Arg("-q", "-o", "DPkg::Lock::Timeout="+strconv.Itoa(t.lockSeconds()))
}

// lockSeconds is LockTimeout in whole seconds, rounded up.
func (t OFEDPin) lockSeconds() int {
	return int(math.Ceil(t.lockTimeout().Seconds()))
}

// aptCommands is a root step whose failure on a held lock is explained.
func (t OFEDPin) aptCommands(c shell.Command) host.Commands {
	return host.Commands{Run: []shell.Runnable{c}, Sudo: true, Finish: true, Explain: explainAptLock(t.packages(), t.lockTimeout())}
}

func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if p == name || strings.HasSuffix(p, "*") && strings.HasPrefix(name, strings.TrimSuffix(p, "*")) {
			return true
		}
	}
	return false
}

// ErrDpkgInterrupted is a package left half installed or half configured by a dpkg run that
// was stopped (a killed apt-get, a lost session, a power loss).
var ErrDpkgInterrupted = errors.New("dpkg was interrupted")

// dpkgUnfinished are the dpkg states a package is left in when dpkg stops before the end of
// its work on it (dpkg-query(1), "Package states"); apt-get refuses to go on from them
// ("dpkg was interrupted, you must manually run 'dpkg --configure -a'").
var dpkgUnfinished = []string{"half-installed", "unpacked", "half-configured", "triggers-awaiting", "triggers-pending"}

// interruptedDpkg refuses to plan over a package an interrupted dpkg left unfinished, naming
// it and the command that finishes the work: repairing a package database is for a person.
func interruptedDpkg(pkgs []facts.Package) error {
	var bad []string
	for _, p := range pkgs {
		fields := strings.Fields(p.Status)
		if len(fields) == 3 && slices.Contains(dpkgUnfinished, fields[2]) {
			bad = append(bad, p.Name+" ("+fields[2]+")")
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s left unfinished; run `sudo dpkg --configure -a` on the host (and `sudo apt-get -f install` if it reports broken dependencies), then apply again",
		ErrDpkgInterrupted, strings.Join(bad, ", "))
}
