package facts

import (
	"regexp"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// NCCLInstall is the NCCL library installed on a host: what its package
// manager holds and what its dynamic linker would load. Jobs that bring
// their own NCCL (a container image, a Python wheel) may run another
// version; this is the host's.
type NCCLInstall struct {
	// Version is the NCCL version, e.g. "2.19.3"; empty when the host has
	// no NCCL the package managers or the linker cache know. A package
	// wins over a library file.
	Version string
	// Source says where Version was read, e.g. "package libnccl2
	// 2.19.3-1+cuda12.2" or "library /usr/lib/x86_64-linux-gnu/libnccl.so.2.19.3".
	Source string
	// Others are further installs with another version, as Source reads;
	// the linker loads one of them, which one depends on the job's
	// environment (LD_LIBRARY_PATH).
	Others []string
}

// ncclInstallScript prints, as tab-separated lines:
//
//	lib <path in the ldconfig cache> <that path with every link resolved>
//	pkg <name> <version> <status>
//
// for every libnccl.so* the linker cache lists, for the Debian/Ubuntu
// package libnccl2 and for the RHEL-family package libnccl (the names of
// NVIDIA's CUDA repositories, NCCL install guide). ldconfig is found on
// PATH or in /sbin (unprivileged PATHs often lack /sbin). It always exits 0.
// It is a trusted constant.
const ncclInstallScript = `l_=$(command -v ldconfig 2>/dev/null || echo /sbin/ldconfig); ` +
	`if [ -x "$l_" ]; then "$l_" -p 2>/dev/null | while read -r n_ r_; do case $n_ in libnccl.so*) ` +
	`p_=${r_##*=> }; printf 'lib\t%s\t%s\n' "$p_" "$(readlink -f -- "$p_" 2>/dev/null)";; esac; done; fi; ` +
	`if command -v dpkg-query >/dev/null 2>&1; then ` +
	`dpkg-query -W -f='pkg\t${Package}\t${Version}\t${Status}\n' libnccl2 2>/dev/null; fi; ` +
	`if command -v rpm >/dev/null 2>&1; then ` +
	`rpm -q --qf 'pkg\t%{NAME}\t%{VERSION}-%{RELEASE}\tinstalled\n' libnccl 2>/dev/null; fi; true`

// NCCLInstallScript returns the command that prints what [ParseNCCLInstall]
// reads. It needs no privileges.
func NCCLInstallScript() shell.Script { return shell.Raw(ncclInstallScript) }

// NCCLInstallProbe is the installed NCCL probe.
var NCCLInstallProbe = Probe[NCCLInstall]{Name: "nccl", Command: NCCLInstallScript(), Parse: ParseNCCLInstall}

var (
	// ncclLibFile is the real file behind libnccl.so.2: NCCL's makefile
	// names it libnccl.so.<major>.<minor>.<patch>.
	ncclLibFile = regexp.MustCompile(`/libnccl\.so\.(\d{1,3}\.\d{1,3}\.\d{1,3})$`)
	// ncclPkgVersion is the upstream part of a package version:
	// "2.19.3-1+cuda12.2" -> "2.19.3".
	ncclPkgVersion = regexp.MustCompile(`^(?:\d+:)?(\d{1,3}\.\d{1,3}\.\d{1,3})(?:[-+~.].*)?$`)
)

// ParseNCCLInstall reads the output of [NCCLInstallScript]. Lines of other
// shapes (rpm's "package libnccl is not installed") are skipped; a package
// that is not installed (dpkg status other than "... installed") and a
// library whose file name carries no version count as nothing.
func ParseNCCLInstall(out string) (NCCLInstall, error) {
	var pkgs, libs [][2]string // version, source
	for _, line := range lines(out) {
		f := strings.Split(line, "\t")
		switch {
		case len(f) == 4 && f[0] == "pkg" && strings.HasSuffix(f[3], "installed") && !strings.Contains(f[3], "not-installed"):
			if m := ncclPkgVersion.FindStringSubmatch(f[2]); m != nil {
				pkgs = append(pkgs, [2]string{m[1], "package " + f[1] + " " + f[2]})
			}
		case len(f) == 3 && f[0] == "lib":
			if m := ncclLibFile.FindStringSubmatch(f[2]); m != nil {
				libs = append(libs, [2]string{m[1], "library " + f[2]})
			}
		}
	}
	var in NCCLInstall
	seen := map[string]bool{}
	for _, c := range append(pkgs, libs...) {
		switch {
		case seen[c[0]]:
		case in.Version == "":
			in.Version, in.Source = c[0], c[1]
		default:
			in.Others = append(in.Others, c[1])
		}
		seen[c[0]] = true
	}
	return in, nil
}
