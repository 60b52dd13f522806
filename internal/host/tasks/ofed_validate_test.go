package tasks

import (
	"errors"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

func TestOFEDPinInvalid(t *testing.T) {
	ok := docaPin(doca2510)
	with := func(change func(*OFEDPin)) OFEDPin { p := ok; change(&p); return p }
	tests := []struct {
		name    string
		task    OFEDPin
		is      error
		errText string
	}{
		{"latest", with(func(p *OFEDPin) { p.RepoURL = "https://linux.mellanox.com/public/repo/doca/latest/ubuntu24.04/x86_64/" }),
			ErrLatestRepo, "use the directory of one release"},
		{"latest LTS", with(func(p *OFEDPin) { p.RepoURL = "https://linux.mellanox.com/public/repo/doca/LATEST-2.9-LTS/u/" }), ErrLatestRepo, ""},
		{"flavor", with(func(p *OFEDPin) { p.Flavor = "runInbox" }), nil, `OFED flavor "runInbox": want doca or mlnx`},
		{"neither version nor constraint", OFEDPin{Flavor: "doca"}, nil, "set version (to install) or constraint"},
		{"version form", with(func(p *OFEDPin) { p.Version = "25.10" }), nil, `OFED version "25.10": want the form ofed_info -n prints`},
		{"version outside constraint", with(func(p *OFEDPin) { p.Constraint = "~> 25.07.0" }), nil,
			"OFED version 25.10-1.7.1 does not satisfy the constraint ~> 25.07.0"},
		{"bad constraint", with(func(p *OFEDPin) { p.Constraint = ">= banana" }), nil, `OFED version constraint ">= banana"`},
		{"no URL", with(func(p *OFEDPin) { p.RepoURL = "" }), nil, "set repo_url to the repository directory of that version"},
		{"newline in URL", with(func(p *OFEDPin) { p.RepoURL = docaURL + " ./\ndeb http://evil/ ./" }), nil, "without blanks or quotes"},
		{"bracket in URL", with(func(p *OFEDPin) { p.RepoURL = "[trusted=yes] http://x/" }), nil, "without blanks or quotes"},
		{"comment in URL", with(func(p *OFEDPin) { p.RepoURL = docaURL + "#x" }), nil, "without blanks or quotes"},
		{"scheme", with(func(p *OFEDPin) { p.RepoURL = "ftp://x/doca/3.2.1/" }), nil, "want an http, https or file URL"},
		{"key and trusted", with(func(p *OFEDPin) { p.Trusted = true }), nil, "set key or trusted, not both"},
		{"relative key", with(func(p *OFEDPin) { p.Key = "mellanox.gpg" }), nil, "want a keyring path for signed-by (Debian) or a gpgkey URL (RHEL)"},
		{"relative key on debian", with(func(p *OFEDPin) { p.Key, p.Family = "mellanox.gpg", FamilyDebian }), nil, "want the absolute path of a keyring file"},
		{"key path on rhel", with(func(p *OFEDPin) { p.Key, p.Family = "/etc/pki/mellanox.pub", FamilyRHEL }), nil, "want the gpgkey URL of the key"},
		{"key with blank", with(func(p *OFEDPin) { p.Key = "/k ey" }), nil, "without blanks or quotes"},
		{"package name", with(func(p *OFEDPin) { p.Packages = []string{"doca-ofed;reboot"} }), nil, `package name "doca-ofed;reboot"`},
		{"package not gathered", with(func(p *OFEDPin) { p.Packages = []string{"openmpi"} }), nil,
			`package "openmpi": the package fact reads only doca-* ibverbs-providers ibverbs-utils kmod-mlnx-* libibverbs`},
		{"package version", with(func(p *OFEDPin) { p.PackageVersion = "1.0 x" }), nil, `package version "1.0 x"`},
		{"family", with(func(p *OFEDPin) { p.Family = "arch" }), nil, `package family "arch": want auto (the host's), debian or rhel`},
		{"timeout", with(func(p *OFEDPin) { p.LockTimeout = -1 }), nil, "lock timeout -1ns: want zero"},
	}
	// fields is the setting each case gets wrong, as Validate's FieldError names it.
	fields := map[string]string{
		"latest":                         "repo_url",
		"latest LTS":                     "repo_url",
		"flavor":                         "flavor",
		"neither version nor constraint": "version",
		"version form":                   "version",
		"version outside constraint":     "constraint",
		"bad constraint":                 "constraint",
		"no URL":                         "repo_url",
		"newline in URL":                 "repo_url",
		"bracket in URL":                 "repo_url",
		"comment in URL":                 "repo_url",
		"scheme":                         "repo_url",
		"key and trusted":                "key",
		"relative key":                   "key",
		"relative key on debian":         "key",
		"key path on rhel":               "key",
		"key with blank":                 "key",
		"package name":                   "packages[0]",
		"package not gathered":           "packages[0]",
		"package version":                "package_version",
		"family":                         "family",
		"timeout":                        "lock_timeout",
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.task.Plan(aptFacts(runInbox, nil))
			if err == nil || tt.is != nil && !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.errText) {
				t.Fatalf("error = %v, want %v containing %q", err, tt.is, tt.errText)
			}
			var fe *FieldError
			if err := tt.task.Validate(); !errors.As(err, &fe) || fe.Field != fields[tt.name] {
				t.Errorf("Validate() = %#v, want a FieldError on %q", err, fields[tt.name])
			}
		})
	}
}

func TestOFEDPinRefusesFlavorSwitch(t *testing.T) {
	mlnx := facts.OFEDInfo{Flavor: facts.OFEDMLNX, Version: "24.10-3.2.5.0"}
	_, err := docaPin(doca2510).Plan(aptFacts(mlnx, nil, debPkg("mlnx-ofed-all", "24.10-3.2.5.0", true)))
	want := "the host has MLNX_OFED 24.10-3.2.5.0 (package mlnx-ofed-all): remove it first (/usr/sbin/ofed_uninstall.sh --force"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v, want %q", err, want)
	}
	// Installed but not loaded counts too.
	_, err = docaPin(doca2510).Plan(aptFacts(runInbox, nil, debPkg("mlnx-ofed-all", "24.10-3.2.5.0", false)))
	if want := "the host has mlnx-ofed-all 24.10-3.2.5.0 installed (package mlnx-ofed-all): remove it first"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v, want %q", err, want)
	}
	// MLNX_OFED over DOCA-OFED is refused the same way.
	task := OFEDPin{Flavor: "mlnx", Version: "24.10-3.2.5.0", RepoURL: "http://mirror.lan/mlnx/24.10-3.2.5.0/"}
	if _, err := task.Plan(aptFacts(run2510, nil, debPkg("doca-ofed", doca2510, true))); err == nil ||
		!strings.Contains(err.Error(), "the host has DOCA-OFED 25.10-1.7.1 (package doca-ofed)") {
		t.Errorf("mlnx over doca: %v", err)
	}
}

func TestOFEDPinUnreadableFacts(t *testing.T) {
	f := aptFacts(runInbox, nil)
	f.Absent["dpkg-query"] = "exit status 127: dpkg-query: not found"
	if _, err := docaPin(doca2510).Plan(f); err == nil || !strings.Contains(err.Error(), "cannot read the installed packages (dpkg-query): exit status 127") {
		t.Errorf("no dpkg-query: %v", err)
	}
	f = aptFacts(runInbox, nil)
	f.Absent["ofed_info"] = "exit status 2: garbage"
	if _, err := docaPin(doca2510).Plan(f); err == nil || !strings.Contains(err.Error(), "cannot read the running OFED stack") {
		t.Errorf("no ofed_info: %v", err)
	}
}
