package tasks

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

var (
	// packageNameRE is a Debian or RPM package name.
	packageNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9+._-]*$`)
	// packageVersionRE is a dpkg or rpm version.
	packageVersionRE = regexp.MustCompile(`^[0-9][A-Za-z0-9.+~:_-]*$`)
	// repoWordRE is what a repository URL or key may hold: no blanks,
	// newlines, quotes, brackets (apt's options) or '#' (a comment in
	// sources.list), so that it stays one word of a sources.list line or
	// one .repo value.
	repoWordRE = regexp.MustCompile(`^[A-Za-z0-9._~:/?@!$&()*+,;=%-]+$`)
)

// FieldError is a problem with one setting of a task. Field is the setting's snake_case
// name ("flavor", "version", "constraint", "package_version", "family", "repo_url",
// "repo_urls[rhel]", "key", "packages[1]", "lock_timeout"), as a resource attribute would name it.
type FieldError struct {
	Field string
	Err   error
}

// Error returns the problem; it names the setting in its own words.
func (e *FieldError) Error() string { return e.Err.Error() }

// Unwrap returns the problem, so errors.Is sees ErrLatestRepo through it.
func (e *FieldError) Unwrap() error { return e.Err }

func fieldError(field string, err error) error {
	if err == nil {
		return nil
	}
	return &FieldError{Field: field, Err: err}
}

// Validate checks the settings without a host: everything Plan refuses before it reads the
// host. The error is a *FieldError that names the setting at fault.
func (t OFEDPin) Validate() error { return t.validate() }

// validate checks the task's fields.
func (t OFEDPin) validate() error {
	if t.Flavor != string(facts.OFEDDOCA) && t.Flavor != string(facts.OFEDMLNX) {
		return fieldError("flavor", fmt.Errorf("OFED flavor %q: want doca or mlnx", t.Flavor))
	}
	if t.Version == "" && t.Constraint == "" {
		return fieldError("version", errors.New("OFED pin: set version (to install) or constraint (to check the running stack)"))
	}
	if err := t.validateVersions(); err != nil {
		return err
	}
	if t.Version == "" {
		return nil
	}
	if f := t.family(); f != FamilyAuto && f != FamilyDebian && f != FamilyRHEL {
		return fieldError("family", fmt.Errorf("package family %q: want auto (the host's), debian or rhel", f))
	}
	if err := t.validateRepos(); err != nil {
		return err
	}
	for i, p := range t.packages() {
		if err := t.validatePackage(p); err != nil {
			return fieldError(fmt.Sprintf("packages[%d]", i), err)
		}
	}
	if t.LockTimeout < 0 {
		return fieldError("lock_timeout", fmt.Errorf("lock timeout %v: want zero (the default, %v) or more", t.LockTimeout, DefaultLockTimeout))
	}
	return nil
}

func (t OFEDPin) validateVersions() error {
	if t.Version != "" {
		v, err := parseOFEDVersion(t.Version)
		if err != nil {
			return fieldError("version", err)
		}
		if !packageVersionRE.MatchString(t.packageVersion()) {
			return fieldError("package_version", fmt.Errorf("package version %q: want a dpkg or rpm version", t.packageVersion()))
		}
		if t.Constraint == "" {
			return nil
		}
		cs, err := parseOFEDConstraint(t.Constraint)
		if err != nil {
			return fieldError("constraint", err)
		}
		if !cs.Check(v) {
			return fieldError("constraint", fmt.Errorf("OFED version %s does not satisfy the constraint %s", t.Version, t.Constraint))
		}
		return nil
	}
	_, err := parseOFEDConstraint(t.Constraint)
	return fieldError("constraint", err)
}

// validateRepos checks RepoURL, or each of RepoURLs as the RepoURL of its family's hosts.
func (t OFEDPin) validateRepos() error {
	if len(t.RepoURLs) == 0 {
		if err := loginInURL(t.RepoURL); err != nil {
			return err
		}
		return t.validateRepo()
	}
	if t.RepoURL != "" {
		return fieldError("repo_urls", errors.New("set repo_url (one repository for every host) or repo_urls (one per package family), not both"))
	}
	for _, fam := range slices.Sorted(maps.Keys(t.RepoURLs)) {
		if fam != FamilyDebian && fam != FamilyRHEL {
			return fieldError("repo_urls", fmt.Errorf("repo_urls has the key %q: want %s or %s", fam, FamilyDebian, FamilyRHEL))
		}
		one := t
		one.RepoURL, one.RepoURLs = t.RepoURLs[fam], nil
		err := loginInURL(one.RepoURL)
		if err == nil {
			err = one.validateRepo()
		}
		if fe := (*FieldError)(nil); errors.As(err, &fe) && fe.Field == "repo_url" {
			return fieldError("repo_urls["+fam+"]", fe.Err)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (t OFEDPin) validateRepo() error {
	if t.RepoURL == "" {
		return fieldError("repo_url", fmt.Errorf("OFED %s %s: set repo_url to the repository directory of that version", t.Flavor, t.Version))
	}
	if strings.Contains(strings.ToLower(t.RepoURL), "latest") {
		return fieldError("repo_url", fmt.Errorf("%w: %s moves to a new release without notice; use the directory of one release, "+
			"e.g. https://linux.mellanox.com/public/repo/doca/3.2.1/ubuntu24.04/x86_64/", ErrLatestRepo, t.RepoURL))
	}
	u, err := url.Parse(t.RepoURL)
	if err != nil || !repoWordRE.MatchString(t.RepoURL) {
		return fieldError("repo_url", fmt.Errorf("repository URL %q: want an http, https or file URL without blanks or quotes", t.RepoURL))
	}
	if u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "file" {
		return fieldError("repo_url", fmt.Errorf("repository URL %q: want an http, https or file URL", t.RepoURL))
	}
	if t.Trusted && t.Key != "" {
		return fieldError("key", errors.New("OFED repository: set key or trusted, not both"))
	}
	if t.Trusted && u.Scheme != "file" && !t.AllowUnsignedRemote {
		return fieldError("trusted", fmt.Errorf("trusted turns signature checks off for %s, a remote repository: whoever controls the mirror "+
			"or the network path could then install kernel modules as root. Set key to the repository's signing key, "+
			"or set allow_unsigned_remote = true to accept that", t.RepoURL))
	}
	if t.Key != "" && !repoWordRE.MatchString(t.Key) {
		return fieldError("key", fmt.Errorf("repository key %q: want a path or URL without blanks or quotes", t.Key))
	}
	if err := t.validateAuth(u); err != nil {
		return err
	}
	if t.Key == "" {
		return nil
	}
	keyURL := false
	if k, err := url.Parse(t.Key); err == nil && (k.Scheme == "http" || k.Scheme == "https" || k.Scheme == "file") {
		keyURL = true
	}
	switch fam := t.family(); {
	case fam == FamilyDebian && !path.IsAbs(t.Key):
		return fieldError("key", fmt.Errorf("repository key %q: want the absolute path of a keyring file for signed-by", t.Key))
	case fam == FamilyRHEL && !keyURL:
		return fieldError("key", fmt.Errorf("repository key %q: want the gpgkey URL of the key (https://... or file:///...)", t.Key))
	case !path.IsAbs(t.Key) && !keyURL:
		return fieldError("key", fmt.Errorf("repository key %q: want a keyring path for signed-by (Debian) or a gpgkey URL (RHEL)", t.Key))
	}
	return nil
}

// validatePackage checks a package name: it must be one the family's package
// fact reads (host.OFEDPackages, host.OFEDRPMPackages; either while the
// family is left to the host), or the task could never see it installed.
func (t OFEDPin) validatePackage(p string) error {
	if !packageNameRE.MatchString(p) {
		return fmt.Errorf("package name %q: want letters, digits and + . _ -", p)
	}
	var pats []string
	if t.family() != FamilyRHEL {
		pats = append(pats, host.OFEDPackages...)
	}
	if t.family() != FamilyDebian {
		pats = append(pats, host.OFEDRPMPackages...)
	}
	for _, pat := range pats {
		if ok, _ := path.Match(pat, p); ok {
			return nil
		}
	}
	return fmt.Errorf("package %q: the package fact reads only %s, so its version could not be checked",
		p, strings.Join(slices.Compact(slices.Sorted(slices.Values(pats))), " "))
}
