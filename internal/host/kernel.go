package host

import (
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// Kernel is the running kernel's release.
type Kernel struct {
	// Release is as uname -r prints it, e.g. "6.8.0-45-generic".
	Release string
	// Major, Minor and Patch are its leading numbers (Patch 0 when absent).
	Major, Minor, Patch int
}

// Less reports whether k is an older version than o (major, minor, patch).
func (k Kernel) Less(o Kernel) bool {
	if k.Major != o.Major {
		return k.Major < o.Major
	}
	if k.Minor != o.Minor {
		return k.Minor < o.Minor
	}
	return k.Patch < o.Patch
}

// kernelCommand prints the kernel release.
var kernelCommand = shell.New("uname", "-r")

// ParseKernelRelease reads the output of uname -r: "<major>.<minor>[.<patch>]"
// followed by anything ("-45-generic", "+", ".el9.x86_64").
func ParseKernelRelease(out string) (Kernel, error) {
	rel := strings.TrimSpace(out)
	if rel == "" {
		return Kernel{}, &facts.ParseError{Fact: FactKernel.String(), Err: facts.ErrEmpty}
	}
	if strings.ContainsAny(rel, " \t\n") {
		return Kernel{}, &facts.ParseError{Fact: FactKernel.String(), Text: cut(rel), Msg: "want one release word"}
	}
	k := Kernel{Release: rel}
	nums := []*int{&k.Major, &k.Minor, &k.Patch}
	rest := rel
	for i, p := range nums {
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j == 0 || j > 6 {
			if i < 2 {
				return Kernel{}, &facts.ParseError{Fact: FactKernel.String(), Text: cut(rel), Msg: "want <major>.<minor>"}
			}
			break
		}
		*p, _ = strconv.Atoi(rest[:j]) // at most 6 digits: cannot fail
		rest = rest[j:]
		if !strings.HasPrefix(rest, ".") {
			if i < 1 {
				return Kernel{}, &facts.ParseError{Fact: FactKernel.String(), Text: cut(rel), Msg: "want <major>.<minor>"}
			}
			break
		}
		rest = rest[1:]
	}
	return k, nil
}

// cut shortens remote text for an error message.
func cut(s string) string {
	const maxText = 120
	if len(s) > maxText {
		return s[:maxText] + "..."
	}
	return s
}
