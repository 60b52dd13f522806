package facts

import (
	"errors"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// rpmFormat is the rpm query format: one tab-separated line per package.
const rpmFormat = `%{NAME}\t%{ARCH}\t%{EPOCH}\t%{VERSION}-%{RELEASE}\n`

// ParseRPMQuery reads rpm's output in [rpmFormat]: name, architecture, epoch
// and version-release of each package, as [RPMInstalledCommand] prints them.
// A "package X is not installed" line (rpm -q of a missing package) comes
// back with Installed false and no version.
func ParseRPMQuery(out string) ([]Package, error) {
	const fact = "rpm"
	var res []Package
	for i, line := range lines(out) {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		if name, ok := strings.CutPrefix(t, "package "); ok {
			if name, ok = strings.CutSuffix(name, " is not installed"); ok {
				res = append(res, Package{Name: name})
				continue
			}
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 || f[0] == "" {
			return nil, lineError(fact, i+1, line, "want 4 tab-separated fields")
		}
		v := f[3]
		if e := f[2]; e != "(none)" && e != "0" && e != "" {
			v = e + ":" + v
		}
		res = append(res, Package{Name: f[0], Arch: f[1], Version: v, Status: "installed", Installed: true})
	}
	return res, nil
}

// RPMInstalledCommand returns the command that prints the installed packages
// matching any of the glob patterns, one line each in [rpmFormat]. Unlike
// "rpm -q", "rpm -qa" takes patterns, prints nothing for one that matches
// nothing and exits 0.
func RPMInstalledCommand(patterns ...string) (shell.Command, error) {
	if len(patterns) == 0 {
		return shell.Command{}, errors.New("rpm -qa: no package patterns")
	}
	if err := checkPackageNames(patterns); err != nil {
		return shell.Command{}, err
	}
	return shell.New("rpm", "-qa", "--qf", rpmFormat).Arg(patterns...), nil
}

// RPMInstalledProbe is the RHEL package version probe for the packages that
// match patterns.
func RPMInstalledProbe(patterns ...string) (Probe[[]Package], error) {
	c, err := RPMInstalledCommand(patterns...)
	if err != nil {
		return Probe[[]Package]{}, err
	}
	return Probe[[]Package]{Name: "rpm", Command: c, Parse: ParseRPMQuery}, nil
}
