package tasks

import (
	"errors"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
)

const secretPassword = "s3cret-Pw"

// planText is every line a plan shows of cs: summaries, before and after, commands.
func planText(cs []host.Change) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(c.Summary + "\n" + c.Before + "\n" + c.After + "\n")
		if cmds, ok := c.Apply.(host.Commands); ok {
			b.WriteString(strings.Join(cmds.Lines(), "\n") + "\n")
		}
	}
	return b.String()
}

// On Debian the login goes to apt's auth.conf.d, mode 0600, in apt_auth.conf(5)'s format;
// the plan names the file but not the password, its hash or its size.
func TestOFEDPinAptLogin(t *testing.T) {
	p := docaPin(doca2510)
	p.RepoURL = "http://mirror.example:8080/doca/3.2.1/ubuntu24.04/x86_64/"
	p.RepoAuth = &RepoAuth{Username: "gpu", Password: secretPassword}
	if got, want := p.aptAuth(), "machine http://mirror.example:8080/doca/3.2.1/ubuntu24.04/x86_64/ login gpu password "+secretPassword+"\n"; !strings.HasSuffix(got, want) {
		t.Errorf("auth.conf = %q, want the entry %q", got, want)
	}
	https := p
	https.RepoURL = docaURL
	if got := https.aptAuth(); !strings.Contains(got, "machine linux.mellanox.com/public/repo/") {
		t.Errorf("https entry without the protocol (apt matches it to https only): %q", got)
	}
	cs, err := p.Plan(aptFacts(runInbox, nil))
	if err != nil {
		t.Fatal(err)
	}
	var write host.WriteFile
	for _, c := range cs {
		if w, ok := c.Apply.(host.WriteFile); ok && w.Path == AptAuthPath {
			write = w
		}
	}
	if write.Mode != 0o600 || !strings.Contains(string(write.Content), "password "+secretPassword) {
		t.Errorf("auth file write %+v, want mode 0600 with the login", write)
	}
	if text := planText(cs); strings.Contains(text, secretPassword) || !strings.Contains(text, "apt login: create "+AptAuthPath) ||
		strings.Contains(text, shortHash(sha256Hex([]byte(p.aptAuth())))) {
		t.Errorf("plan shows the secret or its hash, or no login file:\n%s", text)
	}
	// Without repo_auth, a login file left by an earlier apply is removed.
	p.RepoAuth = nil
	f := aptFacts(runInbox, nil)
	f.Files[AptAuthPath] = existing("machine x login a password b\n", 0o600)
	cs, err = p.Plan(f)
	if err != nil {
		t.Fatal(err)
	}
	if text := planText(cs); !strings.Contains(text, "apt login: remove "+AptAuthPath) || !strings.Contains(text, "rm -f -- "+AptAuthPath) {
		t.Errorf("stale login file not removed:\n%s", text)
	}
}

// On RHEL the login goes into the .repo file (dnf.conf(5) username, password), which is
// then mode 0600; the plan does not show it.
func TestOFEDPinDnfLogin(t *testing.T) {
	p := rhelPin(doca2510)
	p.RepoAuth = &RepoAuth{Username: "gpu", Password: secretPassword}
	if repo := p.DnfRepo(); !strings.Contains(repo, "\nusername=gpu\npassword="+secretPassword+"\n") {
		t.Errorf(".repo:\n%s", repo)
	}
	// The host has the file without the login, world-readable.
	cs, err := p.Plan(dnfFacts(runInbox, rhelPin(doca2510).DnfRepo(), nil))
	if err != nil {
		t.Fatal(err)
	}
	text := planText(cs)
	if strings.Contains(text, secretPassword) || !strings.Contains(text, "content (secret) differs, mode 0644 → 0600") {
		t.Errorf("plan:\n%s", text)
	}
}

func TestOFEDPinLoginRefused(t *testing.T) {
	for _, c := range []struct {
		name, field, text string
		edit              func(*OFEDPin)
	}{
		{"login in the URL", "repo_url", "https://gpu:xxxxx@mirror.example/doca/ carries a login", func(p *OFEDPin) {
			p.RepoURL = "https://gpu:" + secretPassword + "@mirror.example/doca/"
		}},
		{"file URL", "repo_auth", "a login needs an http or https repository, not file:", func(p *OFEDPin) {
			p.RepoURL, p.Trusted, p.Key = "file:/srv/twin-apt/doca/25.10-1.7.1", true, ""
			p.RepoAuth = &RepoAuth{Username: "gpu", Password: secretPassword}
		}},
		{"blank in the password", "repo_auth.password", "the password holds a blank", func(p *OFEDPin) {
			p.RepoAuth = &RepoAuth{Username: "gpu", Password: "two words"}
		}},
		{"empty username", "repo_auth.username", "empty username", func(p *OFEDPin) {
			p.RepoAuth = &RepoAuth{Password: secretPassword}
		}},
		{"dollar on dnf", "repo_auth.password", `the password holds "$"`, func(p *OFEDPin) {
			p.Family, p.Key = FamilyRHEL, ""
			p.RepoAuth = &RepoAuth{Username: "gpu", Password: "a$basearch"}
		}},
	} {
		p := docaPin(doca2510)
		c.edit(&p)
		err := p.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: %v, want a FieldError on %s containing %q", c.name, err, c.field, c.text)
		}
		if err != nil && strings.Contains(err.Error(), secretPassword) {
			t.Errorf("%s: the error quotes the password: %v", c.name, err)
		}
	}
}

// A refresh of a write-only password (PasswordWithheld) cannot compare the files that hold
// it: on both families a file with another password is in sync, a missing one is a change
// whose write refuses to run, and apt is not told to read its lists again.
func TestOFEDPinWithheldPassword(t *testing.T) {
	for _, c := range []struct {
		family, path string
		facts        func(OFEDPin) host.Facts
		content      func(OFEDPin) string
	}{
		{FamilyDebian, AptAuthPath, func(p OFEDPin) host.Facts {
			f := aptFacts(runInbox, nil)
			f.Files[AptSourcePath] = existing(p.aptSource(), 0o644)
			f.Files[AptPreferencesPath] = existing(p.AptPreferences(), 0o644)
			return f
		}, OFEDPin.aptAuth},
		{FamilyRHEL, DnfRepoPath, func(OFEDPin) host.Facts { return dnfFacts(runInbox, "", nil) }, OFEDPin.DnfRepo},
	} {
		t.Run(c.family, func(t *testing.T) {
			p := docaPin(doca2510)
			if c.family == FamilyRHEL {
				p = rhelPin(doca2510)
			}
			p.RepoAuth = &RepoAuth{Username: "gpu", Password: "old-password"}
			f := c.facts(p)
			fi := existing(c.content(p), 0o600)
			fi.Path = c.path
			f.Files[c.path] = fi
			p.RepoAuth = &RepoAuth{Username: "gpu", PasswordWithheld: true}
			if err := p.Validate(); err != nil {
				t.Fatalf("validate with the password withheld: %v", err)
			}
			cs, err := p.Plan(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range cs {
				if ch.Apply != nil && strings.Contains(ch.Summary, c.path) || strings.Contains(ch.Summary, "apt-get update") {
					t.Errorf("change planned with the password withheld: %s", ch.Summary)
				}
			}
			f.Files[c.path] = host.FileInfo{Path: c.path}
			cs, err = p.Plan(f)
			if err != nil {
				t.Fatal(err)
			}
			var write host.WriteFile
			for _, ch := range cs {
				if w, ok := ch.Apply.(host.WriteFile); ok && w.Path == c.path {
					write = w
				}
			}
			if !write.Withheld || len(write.Content) != 0 {
				t.Errorf("missing %s planned as %+v, want a withheld write", c.path, write)
			}
		})
	}
}
