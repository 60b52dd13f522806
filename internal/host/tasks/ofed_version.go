package tasks

import (
	"fmt"
	"regexp"
	"strings"

	version "github.com/hashicorp/go-version"
)

// ofedVersionRE is an OFED version as ofed_info prints it: "<major>.<minor>-"
// then dot-separated numbers, e.g. "25.10-1.7.1" (DOCA-OFED) or
// "24.10-3.2.5.0" (MLNX_OFED).
var ofedVersionRE = regexp.MustCompile(`^([0-9]+\.[0-9]+)-([0-9]+(?:\.[0-9]+)*)$`)

// semverish turns an OFED version into one go-version compares as OFED
// orders them: "25.10-1.7.1" → "25.10.1.7.1". Read as is, go-version would
// take "-1.7.1" for a pre-release and sort 25.10-1.7.1 below 25.10. Anything
// else is returned unchanged.
func semverish(v string) string {
	m := ofedVersionRE.FindStringSubmatch(v)
	if m == nil {
		return v
	}
	return m[1] + "." + m[2]
}

// parseOFEDVersion parses an OFED version for comparisons.
func parseOFEDVersion(v string) (*version.Version, error) {
	if !ofedVersionRE.MatchString(v) {
		return nil, fmt.Errorf("OFED version %q: want the form ofed_info -n prints, e.g. 25.10-1.7.1 or 24.10-3.2.5.0", v)
	}
	return version.NewVersion(semverish(v))
}

// constraintOpRE splits one constraint of a go-version list into its
// operator and its version.
var constraintOpRE = regexp.MustCompile(`^\s*(~>|>=|<=|!=|=|>|<)?\s*(\S+)\s*$`)

// parseOFEDConstraint parses a go-version constraint list ("~> 25.10.0",
// ">= 24.10-3.2.5.0, < 25.0") whose versions may be written in OFED form;
// each is rewritten as semverish does before go-version reads it.
func parseOFEDConstraint(c string) (version.Constraints, error) {
	parts := strings.Split(c, ",")
	for i, p := range parts {
		m := constraintOpRE.FindStringSubmatch(p)
		if m == nil {
			return nil, fmt.Errorf("OFED version constraint %q: cannot read %q", c, strings.TrimSpace(p))
		}
		parts[i] = m[1] + " " + semverish(m[2])
	}
	cs, err := version.NewConstraint(strings.Join(parts, ","))
	if err != nil {
		return nil, fmt.Errorf("OFED version constraint %q: %w", c, err)
	}
	return cs, nil
}

// versionDirection says how going from installed to want moves a package:
// "upgrade", "downgrade" or, when either version is not in OFED form (a
// Debian revision such as "25.10.OFED.25.10.1.7.1.1"), "change".
func versionDirection(installed, want string) string {
	a, errA := version.NewVersion(semverish(installed))
	b, errB := version.NewVersion(semverish(want))
	switch {
	case errA != nil || errB != nil:
		return "change"
	case b.LessThan(a):
		return "downgrade"
	}
	return "upgrade"
}
