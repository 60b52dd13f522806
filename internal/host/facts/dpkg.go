package facts

import (
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// dpkgFormat is the dpkg-query output format: one tab-separated line per
// package. dpkg-query expands \t and \n itself.
const dpkgFormat = `${Package}\t${Architecture}\t${Version}\t${Status}\n`

// DpkgQueryCommand returns the command that prints name, architecture,
// version and status of the given packages (glob patterns allowed), one
// tab-separated line each. dpkg-query exits 1 and names the misses on stderr
// when a pattern matches nothing; the lines for the others still come.
func DpkgQueryCommand(pkgs ...string) (shell.Command, error) {
	if err := checkPackageNames(pkgs); err != nil {
		return shell.Command{}, err
	}
	return shell.New("dpkg-query", "-W", "--showformat="+dpkgFormat).Arg(pkgs...), nil
}

// ParseDpkgQuery reads the output of [DpkgQueryCommand].
func ParseDpkgQuery(out string) ([]Package, error) {
	const fact = "dpkg-query"
	var res []Package
	for i, line := range lines(out) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 || f[0] == "" {
			return nil, lineError(fact, i+1, line, "want 4 tab-separated fields")
		}
		st := strings.Fields(f[3])
		p := Package{Name: f[0], Arch: f[1], Version: f[2], Status: strings.Join(st, " ")}
		if len(st) == 3 {
			p.Held = st[0] == "hold"
			p.Installed = st[2] == "installed"
		}
		res = append(res, p)
	}
	return res, nil
}

// DpkgQueryProbe is the Debian/Ubuntu package version probe for pkgs.
func DpkgQueryProbe(pkgs ...string) (Probe[[]Package], error) {
	c, err := DpkgQueryCommand(pkgs...)
	if err != nil {
		return Probe[[]Package]{}, err
	}
	return Probe[[]Package]{Name: "dpkg-query", Command: c, Parse: ParseDpkgQuery}, nil
}
