package sonic

import (
	"fmt"
	"strconv"
	"strings"
)

// masterBranch sorts after every dated release branch.
const masterBranch = 999999

// Release is a SONiC release branch such as 202411 (YYYYMM), or master.
// The zero Release is not a valid release.
type Release struct {
	branch int // YYYYMM, or masterBranch
}

// ParseRelease reads the release branch out of the version strings a switch
// shows:
//
//   - a bare branch: "202411", "master";
//   - a community build version (sonic_version.yml build_version, as gNMI
//     OTHERS/osversion/build and `show version` print it):
//     "SONiC.202411.480535-dd8e4c6e2", "SONiC.master.921927-18199d73f";
//   - an official build version with an 8-digit branch: "SONiC.20241110.09";
//   - a vendor build: "SONiC.202411_RC.8-8f9d0c09c";
//   - the CONFIG_DB schema version in VERSIONS|DATABASE: "version_202411_02".
func ParseRelease(s string) (Release, error) {
	rest := strings.TrimSpace(s)
	for _, prefix := range []string{"sonic.", "sonic-os-", "version_"} {
		if len(rest) >= len(prefix) && strings.EqualFold(rest[:len(prefix)], prefix) {
			rest = rest[len(prefix):]
			break
		}
	}
	first := rest
	if i := strings.IndexAny(rest, "._-"); i >= 0 {
		first = rest[:i]
	}
	if strings.EqualFold(first, "master") {
		return Release{branch: masterBranch}, nil
	}
	if (len(first) != 6 && len(first) != 8) || !allDigits(first) {
		return Release{}, fmt.Errorf("parse sonic release %q: no YYYYMM branch or master found", s)
	}
	branch, _ := strconv.Atoi(first[:6])
	year, month := branch/100, branch%100
	if year < 2016 || year > 2099 || month < 1 || month > 12 {
		return Release{}, fmt.Errorf("parse sonic release %q: %s is not a YYYYMM branch", s, first[:6])
	}
	return Release{branch: branch}, nil
}

// String returns the branch name: "202411" or "master"; "" for the zero
// Release.
func (r Release) String() string {
	switch r.branch {
	case 0:
		return ""
	case masterBranch:
		return "master"
	}
	return strconv.Itoa(r.branch)
}

// IsZero reports whether r is the zero Release.
func (r Release) IsZero() bool { return r.branch == 0 }

// IsMaster reports whether r is the master branch.
func (r Release) IsMaster() bool { return r.branch == masterBranch }

// Compare returns -1, 0 or +1 as r is older than, the same as or newer than
// o. Master is newer than every dated branch.
func (r Release) Compare(o Release) int {
	switch {
	case r.branch < o.branch:
		return -1
	case r.branch > o.branch:
		return 1
	}
	return 0
}

// AtLeast reports whether r is the branch YYYYMM or newer.
func (r Release) AtLeast(branch int) bool { return r.branch >= branch }

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// OS is the name users give SONiC in a switch's `os`.
const OS = "sonic"
