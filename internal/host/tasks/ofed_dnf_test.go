package tasks

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// The RHEL plans are tested with synthetic facts only: the host twins are
// Debian. Packages are as facts.ParseRPMQuery returns them, locks as
// facts.ParseDnfVersionlock does.

const rhelURL = "https://linux.mellanox.com/public/repo/doca/3.2.1/rhel9/x86_64/"

func rhelPin(v string) OFEDPin {
	return OFEDPin{Flavor: "doca", Version: v, RepoURL: rhelURL, Family: FamilyRHEL}
}

func rpmPkg(name, version string) facts.Package {
	return facts.Package{Name: name, Arch: "x86_64", Version: version, Status: "installed", Installed: true}
}

// dnfFacts are the facts an OFEDPin reads on RHEL; repo is the repository
// file's content, "" for none.
func dnfFacts(running facts.OFEDInfo, repo string, locks []facts.Hold, pkgs ...facts.Package) host.Facts {
	fi := host.FileInfo{Path: DnfRepoPath}
	if repo != "" {
		fi = existing(repo, 0o644)
		fi.Path = DnfRepoPath
	}
	return host.Facts{
		Host:        "rhel",
		Gathered:    host.WantFacts(host.FactOFED, host.FactOS, host.FactRPMPackages, host.FactDnfLocks).WithFiles(DnfRepoPath),
		Absent:      map[string]string{},
		OS:          rocky9,
		OFED:        running,
		RPMPackages: pkgs,
		DnfLocks:    locks,
		Files:       map[string]host.FileInfo{DnfRepoPath: fi},
	}
}

func TestOFEDPinPlanRHEL(t *testing.T) {
	p2510, p2507 := rhelPin(doca2510), rhelPin(doca2507)
	repo := p2510.DnfRepo()
	sum := shortHash(sha256Hex([]byte(repo)))
	sameRepo := change{Summary: "dnf repository: /etc/yum.repos.d/roce-ofed.repo has the wanted content (sha256 " + sum + ") and mode"}
	lock2510 := []facts.Hold{{Name: "doca-ofed", Version: doca2510}}
	tests := []struct {
		name  string
		task  OFEDPin
		facts host.Facts
		want  []change
	}{
		{"fresh install", p2510, dnfFacts(runInbox, "", nil, rpmPkg("rdma-core", "48.0-1.el9")), []change{
			{"dnf repository: create /etc/yum.repos.d/roce-ofed.repo (" + strconv.Itoa(len(repo)) + " bytes)", "absent",
				"sha256 " + sum + " (" + strconv.Itoa(len(repo)) + " bytes), mode 0644",
				[]string{"write: /etc/yum.repos.d/roce-ofed.repo (" + strconv.Itoa(len(repo)) + " bytes, mode 0644) (as root)"}},
			{"install doca-ofed 25.10-1.7.1", "doca-ofed not installed; running the inbox rdma-core stack (no ofed_info)",
				"doca-ofed 25.10-1.7.1 (the new stack runs after a reboot or an openibd restart)",
				[]string{dnfLine("-y --refresh install doca-ofed-25.10-1.7.1")}},
			{"lock doca-ofed at 25.10-1.7.1 (dnf versionlock)", "not locked at 25.10-1.7.1", "locked at 25.10-1.7.1",
				[]string{dnfLine("-q versionlock add doca-ofed-25.10-1.7.1")}},
		}},
		{"pinned and running", p2510, dnfFacts(run2510, repo, lock2510, rpmPkg("doca-ofed", doca2510)), []change{
			sameRepo,
			{Summary: "doca-ofed installed and locked at 25.10-1.7.1"},
			{Summary: "the running stack is DOCA-OFED 25.10-1.7.1, as pinned"},
		}},
		{"not locked", p2510, dnfFacts(run2510, repo, nil, rpmPkg("doca-ofed", doca2510)), []change{
			sameRepo,
			{"lock doca-ofed at 25.10-1.7.1 (dnf versionlock)", "not locked at 25.10-1.7.1", "locked at 25.10-1.7.1",
				[]string{dnfLine("-q versionlock add doca-ofed-25.10-1.7.1")}},
			{Summary: "the running stack is DOCA-OFED 25.10-1.7.1, as pinned"},
		}},
		{"downgrade", p2507, dnfFacts(run2510, repo, lock2510, rpmPkg("doca-ofed", doca2510)), []change{
			{"dnf repository: update /etc/yum.repos.d/roce-ofed.repo: content +2 -2 lines",
				"sha256 " + sum + " (" + strconv.Itoa(len(repo)) + " bytes), mode 0644, owner root:root",
				"sha256 " + shortHash(sha256Hex([]byte(p2507.DnfRepo()))) + " (" + strconv.Itoa(len(p2507.DnfRepo())) + " bytes), mode 0644",
				[]string{"write: /etc/yum.repos.d/roce-ofed.repo (" + strconv.Itoa(len(p2507.DnfRepo())) + " bytes, mode 0644, owner 0:0) (as root)"}},
			{"remove the version locks of other versions: doca-ofed-25.10-1.7.1", "locked at doca-ofed-25.10-1.7.1", "unlocked",
				[]string{dnfLine("-q versionlock delete doca-ofed")}},
			{"downgrade doca-ofed 25.10-1.7.1 → 25.07-0.9.7", "doca-ofed 25.10-1.7.1; running DOCA-OFED 25.10-1.7.1",
				"doca-ofed 25.07-0.9.7 (the new stack runs after a reboot or an openibd restart)",
				[]string{dnfLine("-y --refresh downgrade doca-ofed-25.07-0.9.7")}},
			{"lock doca-ofed at 25.07-0.9.7 (dnf versionlock)", "not locked at 25.07-0.9.7", "locked at 25.07-0.9.7",
				[]string{dnfLine("-q versionlock add doca-ofed-25.07-0.9.7")}},
		}},
		{"installed, old stack running", p2510, dnfFacts(run2507, repo, lock2510, rpmPkg("doca-ofed", doca2510)), []change{
			sameRepo,
			{Summary: "doca-ofed installed and locked at 25.10-1.7.1"},
			{Summary: "OFED doca 25.10-1.7.1 installed, running DOCA-OFED 25.07-0.9.7: reboot (or restart openibd) to load it"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.task.Plan(tt.facts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, readable(got)); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOFEDPinRHELUpgradeOfTwoPackages checks that a mixed move installs
// (dnf install also upgrades) and that RHEL package names need not be ones
// the Debian package fact reads.
func TestOFEDPinRHELUpgradeOfTwoPackages(t *testing.T) {
	task := rhelPin(doca2510)
	task.Packages = []string{"doca-ofed", "doca-roce"}
	f := dnfFacts(run2507, task.DnfRepo(), []facts.Hold{{Name: "doca-ofed", Version: doca2507}, {Name: "kernel", Version: "5.14.0-427.el9"}},
		rpmPkg("doca-ofed", doca2507), rpmPkg("doca-roce", "25.11-0.1.0"))
	cs, err := task.Plan(f)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range cs {
		if c.Apply != nil {
			lines = append(lines, c.Apply.Lines()...)
		}
	}
	want := []string{
		dnfLine("-q versionlock delete doca-ofed"),
		dnfLine("-y --refresh install doca-ofed-25.10-1.7.1 doca-roce-25.10-1.7.1"),
		dnfLine("-q versionlock add doca-ofed-25.10-1.7.1 doca-roce-25.10-1.7.1"),
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
}

func TestOFEDPinRHELNeedsVersionlock(t *testing.T) {
	f := dnfFacts(runInbox, "", nil)
	f.Absent["dnf versionlock"] = "exit status 1: No such command: versionlock"
	_, err := rhelPin(doca2510).Plan(f)
	if err == nil || !strings.Contains(err.Error(), "install the versionlock plugin (dnf install python3-dnf-plugin-versionlock on dnf 4)") {
		t.Errorf("error = %v", err)
	}
}

func TestLockNames(t *testing.T) {
	got := lockNames([]string{"doca-ofed-25.10-1.7.1", "doca-ofed-25.07-0.9.7", "mlnx-ofed-kernel-24.10-OFED.24.10.3.2.5.0.1", "odd"})
	if diff := cmp.Diff([]string{"doca-ofed", "mlnx-ofed-kernel", "odd"}, got); diff != "" {
		t.Errorf("lockNames (-want +got):\n%s", diff)
	}
}

// The family comes from the host's os-release unless set; a set family the host does not
// have, a distribution of neither family, or an unreadable os-release is refused naming
// what the host runs.
func TestOFEDPinFamilyFromHost(t *testing.T) {
	auto := rhelPin(doca2510)
	auto.Family = ""
	f := dnfFacts(runInbox, "", nil)
	cs, err := auto.Plan(f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cs[0].Summary, DnfRepoPath) {
		t.Errorf("auto on Rocky planned %q first, want the dnf repository", cs[0].Summary)
	}
	deb := auto
	deb.Family = FamilyDebian
	if _, err := deb.Plan(f); err == nil || !strings.Contains(err.Error(),
		`family is "debian" but the host runs Rocky Linux 9.6 (Blue Onyx), a rhel-family distribution: set family to "rhel" or leave it unset (auto)`) {
		t.Errorf("debian on Rocky: %v", err)
	}
	var fe *FieldError
	if _, err := deb.Plan(f); !errors.As(err, &fe) || fe.Field != "family" {
		t.Errorf("debian on Rocky: %#v, want a FieldError on family", err)
	}
	f.OS = facts.OSRelease{ID: "arch", PrettyName: "Arch Linux"}
	if _, err := auto.Plan(f); err == nil || !strings.Contains(err.Error(), `the host runs Arch Linux (ID "arch", ID_LIKE ""), of neither the debian nor the rhel family`) {
		t.Errorf("auto on Arch: %v", err)
	}
	if _, err := rhelPin(doca2510).Plan(f); err != nil {
		t.Errorf("rhel set on a distribution of no known family: %v", err)
	}
	f.Absent["os-release"] = "exit status 1: cat: /usr/lib/os-release: No such file or directory"
	if _, err := auto.Plan(f); err == nil || !strings.Contains(err.Error(), "cannot read the host's distribution (exit status 1: cat: /usr/lib/os-release") {
		t.Errorf("auto without os-release: %v", err)
	}
}

// TestOFEDPinRepoByFamily: with repo_urls, the host's family picks the repository; a family
// without an entry, an unknown key, a bad entry or both settings are refused on the setting.
func TestOFEDPinRepoByFamily(t *testing.T) {
	byFamily := rhelPin(doca2510)
	byFamily.Family, byFamily.RepoURL = "", ""
	byFamily.RepoURLs = map[string]string{FamilyDebian: docaURL, FamilyRHEL: rhelURL}
	f := dnfFacts(runInbox, "", nil)
	cs, err := byFamily.Plan(f)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := cs[0].Apply.(host.WriteFile)
	if got := string(w.Content); !strings.Contains(got, "baseurl="+rhelURL) || strings.Contains(got, docaURL) {
		t.Errorf("repo_urls on Rocky wrote:\n%s\nwant the rhel entry's baseurl", got)
	}
	fieldOf := func(p OFEDPin) (string, string) {
		var fe *FieldError
		if _, err := p.Plan(f); !errors.As(err, &fe) {
			return "", fmt.Sprint(err)
		} else {
			return fe.Field, fe.Error()
		}
	}
	debianOnly := byFamily
	debianOnly.RepoURLs = map[string]string{FamilyDebian: docaURL}
	bothSet, badKey, badEntry := byFamily, byFamily, byFamily
	bothSet.RepoURL = rhelURL
	badKey.RepoURLs = map[string]string{"suse": rhelURL}
	badEntry.RepoURLs = map[string]string{FamilyDebian: docaURL, FamilyRHEL: "https://linux.mellanox.com/public/repo/doca/latest/rhel9/"}
	for _, c := range []struct {
		name       string
		pin        OFEDPin
		field, msg string
	}{
		{"no entry for the host's family", debianOnly, "repo_urls", `the host is of the rhel family and repo_urls has no "rhel" entry`},
		{"both", bothSet, "repo_urls", "set repo_url (one repository for every host) or repo_urls (one per package family), not both"},
		{"unknown family", badKey, "repo_urls", `repo_urls has the key "suse": want debian or rhel`},
		{"moving entry", badEntry, "repo_urls[rhel]", "use the directory of one release"},
	} {
		if field, msg := fieldOf(c.pin); field != c.field || !strings.Contains(msg, c.msg) {
			t.Errorf("%s: %s: %s, want %s: …%s…", c.name, field, msg, c.field, c.msg)
		}
	}
}

// dnfLine is the plan line of a dnf step: dnf run again, once a second, while another
// process holds its lock, for the default 120 s at most.
func dnfLine(args string) string {
	return `run: sh -c 'n_=$1; shift; until "$@"; do rc_=$?; if [ "$rc_" -ne 200 ] || [ "$n_" -le 0 ]; then exit "$rc_"; fi; ` +
		`n_=$((n_-1)); sleep 1; done' sh 120 dnf --setopt=exit_on_lock=True ` + args + ` (as root)`
}

// A dnf lock held while the gather read the version locks is named as a lock, not as a
// missing plugin.
func TestOFEDPinRHELLockedWhileGathering(t *testing.T) {
	f := dnfFacts(runInbox, "", nil)
	f.Absent["dnf versionlock"] = "exit status 200:     State  : Sleeping (sleeping)"
	_, err := rhelPin(doca2510).Plan(f)
	if !errors.Is(err, ErrPackageLock) || !strings.Contains(err.Error(), "dnf found one of its locks held (exit status 200") {
		t.Errorf("error = %v", err)
	}
}

// A package rpm holds in two versions of one architecture is what an interrupted dnf
// transaction leaves: the plan refuses, naming both and the commands to repair it. Two
// architectures, and kernel module packages, are not duplicates.
func TestOFEDPinInterruptedRPM(t *testing.T) {
	p := rhelPin(doca2510)
	dup := []facts.Package{rpmPkg("doca-ofed", doca2507), rpmPkg("doca-ofed", doca2510), rpmPkg("rdma-core", "2507mlnx58-1")}
	_, err := p.Plan(dnfFacts(run2507, p.DnfRepo(), nil, dup...))
	if !errors.Is(err, ErrRPMInterrupted) || !strings.Contains(err.Error(), "doca-ofed.x86_64 ("+doca2507+", "+doca2510+")") ||
		!strings.Contains(err.Error(), "dnf check --duplicates") || strings.Contains(err.Error(), "rdma-core") {
		t.Fatalf("plan over duplicates: %v, want ErrRPMInterrupted naming doca-ofed's two versions", err)
	}
	multi := rpmPkg("rdma-core", "2507mlnx58-1")
	multi.Arch = "i686"
	kmods := []facts.Package{rpmPkg("kmod-mlnx-ofa_kernel", "25.07-1"), rpmPkg("kmod-mlnx-ofa_kernel", "25.10-1"), rpmPkg("rdma-core", "2507mlnx58-1"), multi}
	if _, err := p.Plan(dnfFacts(run2507, p.DnfRepo(), nil, kmods...)); errors.Is(err, ErrRPMInterrupted) {
		t.Fatalf("plan refused packages that may have two versions: %v", err)
	}
}
