package tasks

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// RepoAuth is the login of an OFED repository that needs one (a mirror
// behind basic authentication). It is written only where each family reads
// it, mode 0600: apt's auth.conf.d on Debian, the .repo file on RHEL; never
// in the world-readable sources.list or in a plan.
type RepoAuth struct {
	Username string
	Password string
	// PasswordWithheld says Password is write-only and not at hand (a
	// refresh of a configuration with password_wo): the files that hold it
	// are compared by existence, mode and owner only.
	PasswordWithheld bool
}

// AptAuthPath is the apt login file OFEDPin writes on Debian when the
// repository needs a login (apt_auth.conf(5), apt 2.6).
const AptAuthPath = "/etc/apt/auth.conf.d/roce-ofed.conf"

// secretFileMode is the mode of the files that hold the login.
const secretFileMode = 0o600

// aptAuth is the content of AptAuthPath: one netrc-like entry whose machine
// token matches the repository (apt_auth.conf(5): without a protocol an
// entry matches https only, so an http repository names it).
func (t OFEDPin) aptAuth() string {
	u, _ := url.Parse(t.RepoURL)
	machine := u.Host + u.EscapedPath()
	if u.Scheme == "http" {
		machine = "http://" + machine
	}
	return "# Managed by the roce provider: the login of the " + t.Flavor + " OFED repository.\n" +
		"machine " + machine + " login " + t.RepoAuth.Username + " password " + t.RepoAuth.Password + "\n"
}

// loginInURL refuses a repository URL that carries a login: it would be
// written to a world-readable file and stored in the plan. The error shows the
// URL with the password masked.
func loginInURL(raw string) error {
	// A URL that cannot be parsed has no login to mask; validateRepo reports it.
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		return fieldError("repo_url", fmt.Errorf("repository URL %s carries a login: it would be written to a world-readable "+
			"apt source or dnf .repo file and stored in the plan; remove it from repo_url and set ofed.repo_auth "+
			"(username and password, written mode 0600 where apt or dnf reads it)", u.Redacted()))
	}
	return nil
}

// validateAuth checks the login of the repository at u: it needs an http or
// https repository and values each family's file can hold. Errors never
// quote the password.
func (t OFEDPin) validateAuth(u *url.URL) error {
	a := t.RepoAuth
	if a == nil {
		return nil
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fieldError("repo_auth", fmt.Errorf("a login needs an http or https repository, not %s", u.Scheme+":"))
	}
	// apt's auth.conf splits tokens at blanks and dnf's .repo values end at a
	// newline: neither can hold them.
	for _, v := range []struct{ name, value string }{{"username", a.Username}, {"password", a.Password}} {
		if v.value == "" && (v.name != "password" || !a.PasswordWithheld) {
			return fieldError("repo_auth."+v.name, errors.New("empty "+v.name))
		}
		if strings.IndexFunc(v.value, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
			return fieldError("repo_auth."+v.name, fmt.Errorf("the %s holds a blank or control character, which apt's "+
				"auth.conf (tokens split at blanks) and dnf's .repo file (one line per value) cannot hold", v.name))
		}
	}
	// dnf substitutes $variables in .repo values (dnf 4.14
	// dnf/conf/config.py, getSubstitutedValue): "$basearch" in a password
	// would be sent as "x86_64".
	if t.family() == FamilyRHEL && strings.Contains(a.Password, "$") {
		return fieldError("repo_auth.password", errors.New(`the password holds "$", which dnf would read as the start of a `+
			`variable ($releasever, $basearch, /etc/dnf/vars) and replace; use a password without "$" for this repository`))
	}
	return nil
}

// aptAuthChanges plans AptAuthPath: written with the login, or removed when
// the task has none but an earlier one left it.
func (t OFEDPin) aptAuthChanges(f host.Facts) ([]host.Change, error) {
	if t.RepoAuth != nil {
		return planRepoFiles(f, []repoFile{{"apt login: ", File{Path: AptAuthPath, Content: t.aptAuth(), Mode: secretFileMode, Secret: true,
			Withheld: t.RepoAuth.PasswordWithheld}}})
	}
	if fi, _ := f.File(AptAuthPath); fi.Exists {
		return []host.Change{{
			Summary: "apt login: remove " + AptAuthPath + " (no repo_auth)",
			Before:  "present", After: "absent",
			Apply: host.Commands{Run: []shell.Runnable{shell.New("rm", "-f", "--", AptAuthPath)}, Sudo: true},
		}}, nil
	}
	return nil, nil
}
