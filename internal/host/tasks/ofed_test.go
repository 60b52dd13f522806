package tasks

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

const (
	docaURL = "https://linux.mellanox.com/public/repo/doca/3.2.1/ubuntu24.04/x86_64/"
	docaKey = "/usr/share/keyrings/mellanox.gpg"
	// doca31URL is the DOCA release that carries OFED 25.07.
	doca31URL = "https://linux.mellanox.com/public/repo/doca/3.1.0/ubuntu24.04/x86_64/"
	doca2510  = "25.10-1.7.1"
	doca2507  = "25.07-0.9.7"
)

// docaPin is the Debian pin of the plan tests.
func docaPin(v string) OFEDPin {
	return OFEDPin{Flavor: "doca", Version: v, RepoURL: docaURL, Key: docaKey}
}

// pkg is an installed package; held sets dpkg's hold selection.
func debPkg(name, version string, held bool) facts.Package {
	p := facts.Package{Name: name, Arch: "amd64", Version: version, Status: "install ok installed", Installed: true, Held: held}
	if held {
		p.Status = "hold ok installed"
	}
	return p
}

// aptFacts are the facts an OFEDPin reads on Debian: the running stack, the
// packages, and its two files (absent unless given).
func aptFacts(running facts.OFEDInfo, files map[string]host.FileInfo, pkgs ...facts.Package) host.Facts {
	f := host.Facts{
		Host:     "h",
		Gathered: host.WantFacts(host.FactOFED, host.FactOS, host.FactPackages).WithFiles(AptSourcePath, AptPreferencesPath, AptAuthPath),
		Absent:   map[string]string{},
		OS:       debian12,
		OFED:     running,
		Packages: pkgs,
		Files: map[string]host.FileInfo{AptSourcePath: {Path: AptSourcePath}, AptPreferencesPath: {Path: AptPreferencesPath},
			AptAuthPath: {Path: AptAuthPath}},
	}
	for p, fi := range files {
		fi.Path = p
		f.Files[p] = fi
	}
	return f
}

// pinnedFiles are the two files of t as t writes them.
func pinnedFiles(t OFEDPin) map[string]host.FileInfo {
	return map[string]host.FileInfo{
		AptSourcePath:      existing(t.aptSource(), 0o644),
		AptPreferencesPath: existing(t.AptPreferences(), 0o644),
	}
}

var (
	runInbox = facts.OFEDInfo{Flavor: facts.OFEDInbox}
	run2510  = facts.OFEDInfo{Flavor: facts.OFEDDOCA, Version: doca2510}
	run2507  = facts.OFEDInfo{Flavor: facts.OFEDDOCA, Version: doca2507}

	debian12 = facts.OSRelease{ID: "debian", VersionID: "12", PrettyName: "Debian GNU/Linux 12 (bookworm)"}
	rocky9   = facts.OSRelease{ID: "rocky", IDLike: []string{"rhel", "centos", "fedora"}, VersionID: "9.6", PrettyName: "Rocky Linux 9.6 (Blue Onyx)"}
)

// The command lines of the Debian steps of docaPin.
const (
	aptPrefix  = "run: DEBIAN_FRONTEND=noninteractive LC_ALL=C apt-get -q -o DPkg::Lock::Timeout=120 "
	updateLine = aptPrefix + "-o Dir::Etc::sourcelist=/etc/apt/sources.list.d/roce-ofed.list " +
		"-o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0 update (as root)"
	installOpts = aptPrefix + "-y -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold " +
		"--allow-downgrades --allow-change-held-packages install "
	holdLine = "run: apt-mark hold doca-ofed (as root)"
)

func TestOFEDPinPlanDebian(t *testing.T) {
	p2510, p2507 := docaPin(doca2510), docaPin(doca2507)
	p2507.RepoURL = doca31URL
	src, prefs := p2510.aptSource(), p2510.AptPreferences()
	srcSum, prefsSum := shortHash(sha256Hex([]byte(src))), shortHash(sha256Hex([]byte(prefs)))
	createSrc := change{"apt source: create /etc/apt/sources.list.d/roce-ofed.list (" + strconv.Itoa(len(src)) + " bytes)", "absent",
		"sha256 " + srcSum + " (" + strconv.Itoa(len(src)) + " bytes), mode 0644",
		[]string{"write: /etc/apt/sources.list.d/roce-ofed.list (" + strconv.Itoa(len(src)) + " bytes, mode 0644) (as root)"}}
	createPrefs := change{"apt pin: create /etc/apt/preferences.d/roce-ofed (" + strconv.Itoa(len(prefs)) + " bytes)", "absent",
		"sha256 " + prefsSum + " (" + strconv.Itoa(len(prefs)) + " bytes), mode 0644",
		[]string{"write: /etc/apt/preferences.d/roce-ofed (" + strconv.Itoa(len(prefs)) + " bytes, mode 0644) (as root)"}}
	filesSame := []change{
		{Summary: "apt source: /etc/apt/sources.list.d/roce-ofed.list has the wanted content (sha256 " + srcSum + ") and mode"},
		{Summary: "apt pin: /etc/apt/preferences.d/roce-ofed has the wanted content (sha256 " + prefsSum + ") and mode"},
	}
	tests := []struct {
		name  string
		task  OFEDPin
		facts host.Facts
		want  []change
	}{
		{"fresh install on inbox", p2510, aptFacts(runInbox, nil, debPkg("rdma-core", "44.0-2", false)), []change{
			createSrc, createPrefs,
			{"read the package lists of " + docaURL, "lists without the new source", "lists of " + docaURL, []string{updateLine}},
			{"install doca-ofed 25.10-1.7.1", "doca-ofed not installed; running the inbox rdma-core stack (no ofed_info)",
				"doca-ofed 25.10-1.7.1 (the new stack runs after a reboot or an openibd restart)",
				[]string{installOpts + "doca-ofed=25.10-1.7.1 (as root)"}},
			{"hold doca-ofed (apt-mark hold; installing releases a hold)", "not held", "held", []string{holdLine}},
		}},
		{"pinned and running", p2510, aptFacts(run2510, pinnedFiles(p2510), debPkg("doca-ofed", doca2510, true)), append(filesSame,
			change{Summary: "doca-ofed installed at 25.10-1.7.1 and held"},
			change{Summary: "the running stack is DOCA-OFED 25.10-1.7.1, as pinned"},
		)},
		{"not held", p2510, aptFacts(run2510, pinnedFiles(p2510), debPkg("doca-ofed", doca2510, false)), append(filesSame,
			change{"hold doca-ofed (apt-mark hold)", "not held", "held", []string{holdLine}},
			change{Summary: "the running stack is DOCA-OFED 25.10-1.7.1, as pinned"},
		)},
		{"installed, another stack running", p2510, aptFacts(run2507, pinnedFiles(p2510), debPkg("doca-ofed", doca2510, true)), append(filesSame,
			change{Summary: "doca-ofed installed at 25.10-1.7.1 and held"},
			change{Summary: "OFED doca 25.10-1.7.1 installed, running DOCA-OFED 25.07-0.9.7: reboot (or restart openibd) to load it"},
		)},
		{"files in place, package missing", p2510, aptFacts(runInbox, pinnedFiles(p2510)), append(filesSame,
			change{"read the package lists of " + docaURL, "lists read before the install", "lists of " + docaURL, []string{updateLine}},
			change{"install doca-ofed 25.10-1.7.1", "doca-ofed not installed; running the inbox rdma-core stack (no ofed_info)",
				"doca-ofed 25.10-1.7.1 (the new stack runs after a reboot or an openibd restart)",
				[]string{installOpts + "doca-ofed=25.10-1.7.1 (as root)"}},
			change{"hold doca-ofed (apt-mark hold; installing releases a hold)", "not held", "held", []string{holdLine}},
		)},
		{"downgrade", p2507, aptFacts(run2510, pinnedFiles(p2510), debPkg("doca-ofed", doca2510, true)), []change{
			{"apt source: update /etc/apt/sources.list.d/roce-ofed.list: content +2 -2 lines",
				"sha256 " + srcSum + " (" + strconv.Itoa(len(src)) + " bytes), mode 0644, owner root:root",
				"sha256 " + shortHash(sha256Hex([]byte(p2507.aptSource()))) + " (" + strconv.Itoa(len(p2507.aptSource())) + " bytes), mode 0644",
				[]string{"write: /etc/apt/sources.list.d/roce-ofed.list (" + strconv.Itoa(len(p2507.aptSource())) + " bytes, mode 0644, owner 0:0) (as root)"}},
			{"apt pin: update /etc/apt/preferences.d/roce-ofed: content +2 -2 lines",
				"sha256 " + prefsSum + " (" + strconv.Itoa(len(prefs)) + " bytes), mode 0644, owner root:root",
				"sha256 " + shortHash(sha256Hex([]byte(p2507.AptPreferences()))) + " (" + strconv.Itoa(len(p2507.AptPreferences())) + " bytes), mode 0644",
				[]string{"write: /etc/apt/preferences.d/roce-ofed (" + strconv.Itoa(len(p2507.AptPreferences())) + " bytes, mode 0644, owner 0:0) (as root)"}},
			{"read the package lists of " + doca31URL, "lists without the new source", "lists of " + doca31URL, []string{updateLine}},
			{"downgrade doca-ofed 25.10-1.7.1 → 25.07-0.9.7", "doca-ofed 25.10-1.7.1; running DOCA-OFED 25.10-1.7.1",
				"doca-ofed 25.07-0.9.7 (the new stack runs after a reboot or an openibd restart)",
				[]string{installOpts + "doca-ofed=25.07-0.9.7 (as root)"}},
			{"hold doca-ofed (apt-mark hold; installing releases a hold)", "held", "held", []string{holdLine}},
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

// TestOFEDPinUpgradeWithOwnPackages checks an upgrade of several packages,
// one of them with a Debian version that is not in OFED form, and a lock
// timeout rounded up to whole seconds.
func TestOFEDPinUpgradeWithOwnPackages(t *testing.T) {
	task := OFEDPin{Flavor: "mlnx", Version: "24.10-3.2.5.0", RepoURL: "http://mirror.lan/mlnx/24.10-3.2.5.0/", Trusted: true, AllowUnsignedRemote: true,
		Packages: []string{"mlnx-ofed-all", "mlnx-ofed-kernel-dkms"}, PackageVersion: "24.10-3.2.5.0", LockTimeout: 1500 * time.Millisecond}
	f := aptFacts(facts.OFEDInfo{Flavor: facts.OFEDMLNX, Version: "24.10-2.1.8.0"}, nil,
		debPkg("mlnx-ofed-all", "24.10-2.1.8.0", true), debPkg("mlnx-ofed-kernel-dkms", "24.10.OFED.24.10.2.1.8.0.1", false))
	cs, err := task.Plan(f)
	if err != nil {
		t.Fatal(err)
	}
	got := readable(cs)
	want := []change{
		{"upgrade mlnx-ofed-all 24.10-2.1.8.0 → 24.10-3.2.5.0, change mlnx-ofed-kernel-dkms 24.10.OFED.24.10.2.1.8.0.1 → 24.10-3.2.5.0",
			"mlnx-ofed-all 24.10-2.1.8.0, mlnx-ofed-kernel-dkms 24.10.OFED.24.10.2.1.8.0.1; running MLNX_OFED 24.10-2.1.8.0",
			"mlnx-ofed-all 24.10-3.2.5.0, mlnx-ofed-kernel-dkms 24.10-3.2.5.0 (the new stack runs after a reboot or an openibd restart)",
			[]string{"run: DEBIAN_FRONTEND=noninteractive LC_ALL=C apt-get -q -o DPkg::Lock::Timeout=2 -y -o Dpkg::Options::=--force-confdef " +
				"-o Dpkg::Options::=--force-confold --allow-downgrades --allow-change-held-packages install " +
				"mlnx-ofed-all=24.10-3.2.5.0 mlnx-ofed-kernel-dkms=24.10-3.2.5.0 (as root)"}},
		{"hold mlnx-ofed-all mlnx-ofed-kernel-dkms (apt-mark hold; installing releases a hold)", "not held", "held",
			[]string{"run: apt-mark hold mlnx-ofed-all mlnx-ofed-kernel-dkms (as root)"}},
	}
	if len(got) != 5 {
		t.Fatalf("plan has %d changes, want 5 (2 files, update, install, hold):\n%+v", len(got), got)
	}
	if diff := cmp.Diff(want, got[3:]); diff != "" {
		t.Errorf("install and hold (-want +got):\n%s", diff)
	}
	if task.Name() != "ofed mlnx 24.10-3.2.5.0" {
		t.Errorf("Name = %q", task.Name())
	}
}

// TestOFEDPinCommandsAreOneScript checks that the commands of one plan run as one
// script, in order: update, install, hold.
func TestOFEDPinCommandsAreOneScript(t *testing.T) {
	cs, err := docaPin(doca2510).Plan(aptFacts(runInbox, nil))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, c := range cs {
		switch c.Apply.(type) {
		case host.WriteFile:
			kinds = append(kinds, "write")
		case host.Commands:
			kinds = append(kinds, "run")
		}
	}
	// The engine joins consecutive Commands of a task that agree on Sudo:
	// two writes and one script.
	if diff := cmp.Diff([]string{"write", "write", "run", "run", "run"}, kinds); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	for _, c := range cs[2:] {
		cmd, ok := c.Apply.(host.Commands)
		if !ok || !cmd.Sudo || cmd.Explain == nil {
			t.Errorf("%s: %T, Sudo %v, Explain set %v; want Commands with both", c.Summary, c.Apply, cmd.Sudo, cmd.Explain != nil)
		}
	}
}

// TestOFEDPinFileMode checks that a source and pin with the wrong mode are
// rewritten and nothing else happens.
func TestOFEDPinFileMode(t *testing.T) {
	p := docaPin(doca2510)
	files := map[string]host.FileInfo{
		AptSourcePath:      existing(p.aptSource(), 0o600),
		AptPreferencesPath: existing(p.AptPreferences(), 0o644),
	}
	cs, err := p.Plan(aptFacts(run2510, files, debPkg("doca-ofed", doca2510, true)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		if c.Apply != nil {
			got = append(got, c.Summary)
		}
	}
	if diff := cmp.Diff([]string{"apt source: update /etc/apt/sources.list.d/roce-ofed.list: mode 0600 → 0644"}, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

func TestOFEDPinStatus(t *testing.T) {
	p := docaPin(doca2510)
	tests := []struct {
		name   string
		facts  host.Facts
		reboot bool
		inst   string
	}{
		{"running as pinned", aptFacts(run2510, nil, debPkg("doca-ofed", doca2510, true)), false, doca2510},
		{"installed, old stack running", aptFacts(run2507, nil, debPkg("doca-ofed", doca2510, true)), true, doca2510},
		{"installed over runInbox, not loaded", aptFacts(runInbox, nil, debPkg("doca-ofed", doca2510, true)), true, doca2510},
		{"not installed yet", aptFacts(run2507, nil, debPkg("doca-ofed", doca2507, true)), false, doca2507},
		{"nothing installed", aptFacts(runInbox, nil), false, ""},
	}
	for _, tt := range tests {
		st, err := p.Status(tt.facts)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if st.RebootRequired != tt.reboot || st.Installed["doca-ofed"] != tt.inst || st.Running != tt.facts.OFED {
			t.Errorf("%s: Status = %+v, want RebootRequired %v, doca-ofed %q", tt.name, st, tt.reboot, tt.inst)
		}
	}
	noDpkg := host.Facts{Gathered: host.WantFacts(host.FactOS, host.FactPackages), OS: debian12, Absent: map[string]string{"dpkg-query": "exit status 127"}}
	if _, err := p.Status(noDpkg); err == nil ||
		!strings.Contains(err.Error(), "cannot read the installed packages (dpkg-query): exit status 127") {
		t.Errorf("Status without packages: %v", err)
	}
}

func TestOFEDPinConstraintOnly(t *testing.T) {
	task := OFEDPin{Flavor: "doca", Constraint: "~> 25.10.0"}
	f := func(o facts.OFEDInfo) host.Facts {
		return host.Facts{Gathered: host.WantFacts(host.FactOFED), Absent: map[string]string{}, OFED: o}
	}
	cs, err := task.Plan(f(run2510))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]change{{Summary: "the running stack DOCA-OFED 25.10-1.7.1 satisfies ~> 25.10.0"}}, readable(cs)); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		o    facts.OFEDInfo
		want string
	}{
		{run2507, "the host runs DOCA-OFED 25.07-0.9.7, which does not satisfy ~> 25.10.0: set version (and repo_url) to install one that does"},
		{runInbox, "the host runs the inbox rdma-core stack (no ofed_info), want doca OFED ~> 25.10.0: set version (and repo_url) to install it"},
		{facts.OFEDInfo{Flavor: facts.OFEDMLNX, Version: "24.10-3.2.5.0"}, "the host runs MLNX_OFED 24.10-3.2.5.0, want doca OFED ~> 25.10.0"},
	} {
		if _, err := task.Plan(f(tt.o)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("running %v: error %v, want %q", tt.o, err, tt.want)
		}
	}
	if got := task.Needs().String(); got != "ofed_info" {
		t.Errorf("Needs = %q, want ofed_info only", got)
	}
	if task.Name() != "ofed doca ~> 25.10.0" {
		t.Errorf("Name = %q", task.Name())
	}
}

func TestOFEDPinNeeds(t *testing.T) {
	for _, c := range []struct{ family, want string }{
		{FamilyDebian, "ofed_info,dpkg-query,os-release,file /etc/apt/auth.conf.d/roce-ofed.conf,file /etc/apt/preferences.d/roce-ofed,file /etc/apt/sources.list.d/roce-ofed.list"},
		{FamilyRHEL, "ofed_info,os-release,rpm,dnf versionlock,file /etc/yum.repos.d/roce-ofed.repo"},
		{"", "ofed_info,dpkg-query,os-release,rpm,dnf versionlock,file /etc/apt/auth.conf.d/roce-ofed.conf,file /etc/apt/preferences.d/roce-ofed," +
			"file /etc/apt/sources.list.d/roce-ofed.list,file /etc/yum.repos.d/roce-ofed.repo"},
	} {
		p := docaPin(doca2510)
		p.Family = c.family
		if got := p.Needs().String(); got != c.want {
			t.Errorf("family %q: Needs = %q, want %q", c.family, got, c.want)
		}
	}
}
