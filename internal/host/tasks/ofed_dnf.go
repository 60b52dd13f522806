package tasks

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// DnfRepoPath is the dnf repository file OFEDPin writes on RHEL.
const DnfRepoPath = "/etc/yum.repos.d/roce-ofed.repo"

// dnfRepoID is the repository's id in DnfRepoPath.
const dnfRepoID = "roce-ofed"

// DnfRepo is the content of DnfRepoPath.
func (t OFEDPin) DnfRepo() string {
	var b strings.Builder
	b.WriteString("# Managed by the roce provider: the " + t.Flavor + " OFED " + t.Version + " repository.\n")
	b.WriteString("[" + dnfRepoID + "]\n")
	b.WriteString("name=" + t.Flavor + " OFED " + t.Version + " (roce provider)\n")
	b.WriteString("baseurl=" + t.RepoURL + "\n")
	b.WriteString("enabled=1\n")
	if a := t.RepoAuth; a != nil {
		b.WriteString("username=" + a.Username + "\npassword=" + a.Password + "\n")
	}
	if t.Trusted {
		b.WriteString("gpgcheck=0\n")
		return b.String()
	}
	b.WriteString("gpgcheck=1\n")
	if t.Key != "" {
		b.WriteString("gpgkey=" + t.Key + "\n")
	}
	return b.String()
}

// planDnf plans the RHEL install: repository file, version locks of other
// versions removed, install (or downgrade), version lock, then the
// running-stack check. It reads the packages as rpm reports them and the
// locks as "dnf versionlock list" does (facts.ParseRPMQuery and
// facts.ParseDnfVersionlock).
func (t OFEDPin) planDnf(f host.Facts, pkgs []facts.Package) ([]host.Change, error) {
	if err := interruptedRPM(pkgs); err != nil {
		return nil, err
	}
	if !f.Has(host.FactDnfLocks) {
		why := f.Absent[host.FactDnfLocks.String()]
		if strings.HasPrefix(why, "exit status 200") || dnfLockRE.MatchString(why) {
			return nil, fmt.Errorf("%w: cannot read dnf's version locks, dnf found one of its locks held (%s): "+
				"wait for that process (another dnf, dnf-automatic or packagekitd) to finish, then plan again", ErrPackageLock, why)
		}
		return nil, fmt.Errorf("cannot read dnf's version locks (%s): install the versionlock plugin "+
			"(dnf install python3-dnf-plugin-versionlock on dnf 4) and apply again", why)
	}
	repo := File{Path: DnfRepoPath, Content: t.DnfRepo()}
	if t.RepoAuth != nil {
		// The login is in the file: root only (dnf.conf(5) username, password).
		repo.Mode, repo.Secret, repo.Withheld = secretFileMode, true, t.RepoAuth.PasswordWithheld
	}
	out, err := planRepoFiles(f, []repoFile{{"dnf repository: ", repo}})
	if err != nil {
		return nil, err
	}
	want := t.packageVersion()
	install, before, after := t.packageChanges(f.OFED, pkgs)
	locked, stale := t.dnfLocks(f.DnfLocks)
	if len(stale) > 0 {
		out = append(out, host.Change{
			Summary: "remove the version locks of other versions: " + strings.Join(stale, " "),
			Before:  "locked at " + strings.Join(stale, " "),
			After:   "unlocked",
			Apply:   t.dnfCommands(append([]string{"-q", "versionlock", "delete"}, lockNames(stale)...)...),
		})
	}
	if len(install) > 0 {
		out = append(out, host.Change{
			Summary: strings.Join(install, ", "),
			Before:  before,
			After:   after + " (the new stack runs after a reboot or an openibd restart)",
			Apply:   t.dnfCommands(t.dnfInstall(pkgs)...),
		})
	}
	if !locked || len(stale) > 0 || len(install) > 0 {
		out = append(out, host.Change{
			Summary: "lock " + strings.Join(t.packages(), " ") + " at " + want + " (dnf versionlock)",
			Before:  "not locked at " + want,
			After:   "locked at " + want,
			Apply:   t.dnfCommands(append([]string{"-q", "versionlock", "add"}, t.nevras()...)...),
		})
	}
	if len(install) == 0 {
		if locked && len(stale) == 0 {
			out = append(out, host.Unchanged(strings.Join(t.packages(), " ")+" installed and locked at "+want))
		}
		out = append(out, t.runningNote(f.OFED))
	}
	return out, nil
}

// dnfLocks reports whether every package is locked at the package version,
// and the lock entries ("name-version") of the packages at other versions.
func (t OFEDPin) dnfLocks(holds []facts.Hold) (locked bool, stale []string) {
	locked = true
	for _, p := range t.packages() {
		found := false
		for _, h := range holds {
			if h.Name != p {
				continue
			}
			if h.Version == t.packageVersion() && !h.Exclude {
				found = true
				continue
			}
			stale = append(stale, h.Name+"-"+h.Version)
		}
		locked = locked && found
	}
	return locked, stale
}

// lockNames are the package names of lock entries "name-version-release".
func lockNames(entries []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range entries {
		name := e
		if i := strings.LastIndexByte(e, '-'); i > 0 {
			if j := strings.LastIndexByte(e[:i], '-'); j > 0 {
				name = e[:j]
			}
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

// dnfInstall returns the dnf arguments that install the packages at the
// package version, as a downgrade when every installed one is newer,
// refreshing the repository's metadata first (its URL may have changed).
func (t OFEDPin) dnfInstall(pkgs []facts.Package) []string {
	verb := "install"
	down := 0
	for _, p := range t.packages() {
		if v, ok := installedVersion(pkgs, p); ok && versionDirection(v, t.packageVersion()) == "downgrade" {
			down++
		}
	}
	if down == len(t.packages()) {
		verb = "downgrade"
	}
	return append([]string{"-y", "--refresh", verb}, t.nevras()...)
}

// nevras are the packages as "name-version".
func (t OFEDPin) nevras() []string {
	out := make([]string, len(t.packages()))
	for i, p := range t.packages() {
		out[i] = p + "-" + t.packageVersion()
	}
	return out
}

// dnfLockWait is a trusted constant script: "$1" the seconds to wait, then a
// dnf command that exits 200 when another process holds one of its locks
// (facts.DnfExitOnLock; dnf 4 would otherwise wait for it without end). It
// runs the command again once a second while it exits 200, for up to $1
// seconds — what apt's DPkg::Lock::Timeout does on Debian.
const dnfLockWait = `n_=$1; shift; until "$@"; do rc_=$?; ` +
	`if [ "$rc_" -ne 200 ] || [ "$n_" -le 0 ]; then exit "$rc_"; fi; n_=$((n_-1)); sleep 1; done`

// dnfWaiting returns dnf with args, waiting for dnf's locks up to the lock
// timeout (dnfLockWait).
func (t OFEDPin) dnfWaiting(args ...string) shell.Command {
	return shell.New("sh", "-c", dnfLockWait, "sh", strconv.Itoa(t.lockSeconds())).
		Arg("dnf").Arg(facts.DnfExitOnLock...).Arg(args...)
}

// dnfCommands is a root step of dnf with args, waiting for dnf's locks; a
// failure on a lock after the wait is explained.
func (t OFEDPin) dnfCommands(args ...string) host.Commands {
	return host.Commands{Run: []shell.Runnable{t.dnfWaiting(args...)}, Sudo: true, Finish: true, Explain: explainDnfLock(t.packages(), t.lockTimeout())}
}

// ErrRPMInterrupted is a dnf transaction that stopped between installing a package's new
// version and erasing its old one (a killed dnf, a lost session, a power loss): rpm's
// database then holds both.
var ErrRPMInterrupted = errors.New("a dnf transaction was interrupted")

// interruptedRPM refuses to plan over a package rpm holds in two versions of one
// architecture, which only an unfinished transaction leaves for these packages: dnf removes
// the old version in the same transaction that installs the new one (rpm -U), except for
// install-only packages, kernels and their kernel-module packages (dnf.conf(5)
// installonlypkgs), whose versions live side by side. Repairing it is for a person.
func interruptedRPM(pkgs []facts.Package) error {
	versions := map[string][]string{}
	var order []string
	for _, p := range pkgs {
		if !p.Installed || strings.HasPrefix(p.Name, "kernel") || strings.HasPrefix(p.Name, "kmod-") {
			continue
		}
		key := p.Name + "." + p.Arch
		if versions[key] == nil {
			order = append(order, key)
		}
		versions[key] = append(versions[key], p.Version)
	}
	var dup []string
	for _, k := range order {
		if v := versions[k]; len(v) > 1 {
			dup = append(dup, k+" ("+strings.Join(v, ", ")+")")
		}
	}
	if len(dup) == 0 {
		return nil
	}
	return fmt.Errorf("%w: rpm holds two versions of %s; run `sudo dnf check --duplicates` and `sudo dnf history info last` on the host, "+
		"finish or undo that transaction (`sudo dnf remove --duplicates` keeps the newest), then apply again", ErrRPMInterrupted, strings.Join(dup, ", "))
}
