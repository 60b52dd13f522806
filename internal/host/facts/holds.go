package facts

import (
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// Hold is a package kept from upgrades by a dnf version lock. (An apt hold is
// a dpkg selection, which [Package.Held] reads from dpkg-query's status.)
type Hold struct {
	// Name is the package name (a dnf lock may carry a glob).
	Name string
	// Version is the locked version ("[epoch:]version-release"); empty for
	// a glob lock without one.
	Version string
	// Exclude reports a dnf "versionlock exclude" entry: this version is
	// excluded rather than locked.
	Exclude bool
}

// DnfExitOnLock are the dnf arguments that make dnf 4 exit at once, with
// status 200 and "<lock> already locked by <pid>" on standard error, when
// another process holds one of its locks, instead of waiting for it without
// end: exit_on_lock defaults to False (rpm-software-management/dnf 4.14.0,
// dnf/lock.py and dnf/cli/main.py).
var DnfExitOnLock = []string{"--setopt=exit_on_lock=True"}

// DnfVersionlockCommand lists dnf version locks; it needs the versionlock
// plugin (python3-dnf-plugin-versionlock on dnf 4, built in on dnf 5). It
// never waits for dnf's locks ([DnfExitOnLock]), and reads no repository:
// the plugin's list loads every enabled one although it prints only the lock
// file (dnf-plugins-core 4.3.1, plugins/versionlock.py, configure sets
// available_repos), so one that cannot be fetched, such as a repository
// whose password changed, would fail the read and every plan and destroy.
var DnfVersionlockCommand = shell.New("dnf").Arg(DnfExitOnLock...).Arg("-q", "--disablerepo=*", "versionlock", "list")

// ParseDnfVersionlock reads the output of [DnfVersionlockCommand] in both
// formats: dnf 4 prints lock entries such as "kernel-0:5.14.0-427.el9.*"
// ("!" in front for excludes); dnf 5 prints "Package name: kernel" followed by
// "evr = 5.14.0-427.el9" (or "evr != ..." for excludes). Lines with spaces
// that are neither (metadata notices) are skipped.
func ParseDnfVersionlock(out string) ([]Hold, error) {
	const fact = "dnf versionlock"
	var res []Hold
	var cur *Hold
	for i, line := range lines(out) {
		t := strings.TrimSpace(line)
		switch {
		case t == "" || strings.HasPrefix(t, "#"):
		case strings.HasPrefix(t, "Package name:"):
			name := strings.TrimSpace(strings.TrimPrefix(t, "Package name:"))
			if name == "" {
				return nil, lineError(fact, i+1, line, "empty package name")
			}
			res = append(res, Hold{Name: name})
			cur = &res[len(res)-1]
		case strings.HasPrefix(t, "evr "):
			if cur == nil {
				return nil, lineError(fact, i+1, line, "evr before \"Package name:\"")
			}
			op, v, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(t, "evr ")), " ")
			cur.Version = strings.TrimSpace(v)
			cur.Exclude = op == "!="
		case strings.ContainsAny(t, " \t"):
			cur = nil // a notice such as "Last metadata expiration check: ..."
		default:
			h := dnf4Lock(t)
			if h.Name == "" {
				return nil, lineError(fact, i+1, line, "lock entry without a package name")
			}
			res = append(res, h)
			cur = nil
		}
	}
	return res, nil
}

// dnf4Lock splits a dnf 4 lock entry "[!]name-[epoch:]version-release[.*]".
func dnf4Lock(s string) Hold {
	h := Hold{}
	s, h.Exclude = strings.CutPrefix(s, "!")
	rel := strings.LastIndexByte(s, '-')
	if rel <= 0 {
		h.Name = s
		return h
	}
	ver := strings.LastIndexByte(s[:rel], '-')
	if ver <= 0 {
		h.Name = s
		return h
	}
	h.Name = s[:ver]
	h.Version = strings.TrimPrefix(strings.TrimSuffix(s[ver+1:], ".*"), "0:")
	return h
}

// DnfVersionlockProbe is the dnf version lock probe.
var DnfVersionlockProbe = Probe[[]Hold]{Name: "dnf versionlock", Command: DnfVersionlockCommand, Parse: ParseDnfVersionlock}
