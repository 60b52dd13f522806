package hostprofile

import (
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"strings"
)

// repoVersions are the OFED versions the twin apt repository carries per
// flavor: two each, so tests can install, upgrade and pin.
var repoVersions = map[string][]string{
	StackDOCA: {"25.07-0.9.7", "25.10-1.7.1"},
	StackMLNX: {"24.10-2.1.8.0", "24.10-3.2.5.0"},
}

// RepoRoot is where the base layer keeps the twin apt repository.
const RepoRoot = "/srv/twin-apt"

// Repo is one version directory of the twin apt repository: a flat
// repository (Packages, Packages.gz, Release) of empty OFED packages.
type Repo struct {
	// Flavor is StackDOCA or StackMLNX.
	Flavor string
	// Version is the OFED version, e.g. "25.10-1.7.1".
	Version string
}

// Path is the repository directory inside the twin,
// "/srv/twin-apt/<flavor>/<version>".
func (r Repo) Path() string { return RepoRoot + "/" + r.Flavor + "/" + r.Version }

// SourceLine is the sources.list line for the repository; it needs no key.
func (r Repo) SourceLine() string { return "deb [trusted=yes] file:" + r.Path() + " ./" }

// Repos lists the repository's version directories, flavors and versions in
// sorted order.
func Repos() []Repo {
	var rs []Repo
	for _, f := range []string{StackDOCA, StackMLNX} {
		for _, v := range repoVersions[f] {
			rs = append(rs, Repo{Flavor: f, Version: v})
		}
	}
	return rs
}

// Package is a package of the twin repository and the version it has in one
// repository directory.
type Package struct {
	// Name is the Debian package name, e.g. "mlnx-ofed-kernel-dkms".
	Name string
	// Version is its full Debian version, e.g. "25.10.OFED.25.10.1.7.1.1".
	Version string
}

// Packages returns the packages of the repository directory for an OFED
// flavor and version, the metapackage first: "doca-ofed" (doca) or
// "mlnx-ofed-all" (mlnx), which depends on exact versions of
// mlnx-ofed-kernel-dkms, mlnx-tools, rdma-core and ibverbs-utils and ships
// /usr/bin/ofed_info.
func Packages(flavor, version string) ([]Package, error) {
	pkgs, err := ofedPackages(flavor, version)
	if err != nil {
		return nil, err
	}
	out := make([]Package, len(pkgs))
	for i, p := range pkgs {
		out[i] = Package{Name: p.name, Version: p.version}
	}
	return out, nil
}

// MetaPackage returns the name of the flavor's metapackage.
func MetaPackage(flavor string) string {
	if flavor == StackMLNX {
		return "mlnx-ofed-all"
	}
	return "doca-ofed"
}

// twinPackageNames are every package name the twin repository uses; a host's
// dpkg status never keeps the machine's entries for them.
var twinPackageNames = []string{"doca-ofed", "mlnx-ofed-all", "mlnx-ofed-kernel-dkms", "mlnx-tools", "rdma-core", "ibverbs-utils", "libnccl2"}

// ofedPackages builds the package set of one repository directory.
func ofedPackages(flavor, version string) ([]debPackage, error) {
	if !slices.Contains(repoVersions[flavor], version) {
		return nil, fmt.Errorf("no %s %s in the twin repository", flavor, version)
	}
	mm, rest, _ := strings.Cut(version, "-")
	kernelVer := mm + ".OFED." + mm + "." + rest + ".1"
	// The userspace versions sort above the distribution's (rdma-core
	// 44.0-2), as the real "2510mlnx58-1.2510069" ones do.
	digits := strings.NewReplacer(".", "", "-", "")
	rdmaVer := digits.Replace(mm) + "mlnx1-1." + digits.Replace(version)
	arch := debArch()
	meta := MetaPackage(flavor)
	doc := func(name string) debFile {
		return debFile{path: "/usr/share/doc/" + name + "/README.twin", mode: 0o644,
			content: "Empty stand-in package of the host twin; the tools are emulated in /usr/local/sbin.\n"}
	}
	pkgs := []debPackage{
		{
			name: meta, version: version, arch: arch, section: "net",
			summary: "OFED " + flavor + " metapackage (host twin)",
			depends: []string{
				"mlnx-ofed-kernel-dkms (= " + kernelVer + ")",
				"mlnx-tools (= " + version + ")",
				"rdma-core (= " + rdmaVer + ")",
				"ibverbs-utils (= " + rdmaVer + ")",
			},
			files: []debFile{{path: "/usr/bin/ofed_info", mode: 0o755, content: ofedInfoScript(flavor, version)}, doc(meta)},
		},
		{
			name: "mlnx-ofed-kernel-dkms", version: kernelVer, arch: "all", section: "kernel",
			summary: "DKMS support for mlnx-ofed kernel modules (host twin)",
			files: []debFile{
				{path: "/usr/src/mlnx-ofed-kernel-" + kernelVer + "/dkms.conf", mode: 0o644,
					content: "PACKAGE_NAME=\"mlnx-ofed-kernel\"\nPACKAGE_VERSION=\"" + kernelVer + "\"\nAUTOINSTALL=yes\n"},
				doc("mlnx-ofed-kernel-dkms"),
			},
		},
		{
			name: "mlnx-tools", version: version, arch: arch, section: "net",
			summary: "Userspace tools to configure Mellanox devices (host twin)",
			files:   []debFile{doc("mlnx-tools")},
		},
		{
			name: "rdma-core", version: rdmaVer, arch: arch, section: "net",
			summary: "RDMA core userspace infrastructure and documentation (host twin)",
			files:   []debFile{doc("rdma-core")},
		},
		{
			name: "ibverbs-utils", version: rdmaVer, arch: arch, section: "net",
			summary: "Examples for the libibverbs library (host twin)",
			depends: []string{"rdma-core (= " + rdmaVer + ")"},
			files:   []debFile{doc("ibverbs-utils")},
		},
	}
	return pkgs, nil
}

// inboxPackages are the distribution's RDMA userspace packages an inbox host
// has installed (Debian 12 versions), with no files of their own.
func inboxPackages() []debPackage {
	arch := debArch()
	return []debPackage{
		{name: "rdma-core", version: "44.0-2", arch: arch, section: "net",
			summary: "RDMA core userspace infrastructure and documentation"},
		{name: "ibverbs-utils", version: "44.0-2", arch: arch, section: "net",
			summary: "Examples for the libibverbs library"},
	}
}

// ncclPackage is NVIDIA's libnccl2 package at version (the CUDA
// repositories' form, "2.21.5-1+cuda12.4"): the library under the file name
// NCCL's makefile gives it, libnccl.so.<major.minor.patch>, as an empty
// stand-in (the real package's libnccl.so.2 link is left out: the tree
// writes plain files, and the host's fact reads the package first).
func ncclPackage(version string) debPackage {
	upstream, _, _ := strings.Cut(version, "-")
	dir := "/usr/lib/" + multiarchTriplet()
	return debPackage{
		name: "libnccl2", version: version, arch: debArch(), section: "libs",
		summary: "NVIDIA Collective Communication Library (NCCL) Runtime (host twin)",
		files: []debFile{
			{path: dir + "/libnccl.so." + upstream, mode: 0o644, content: "host twin stand-in for NCCL " + upstream + "\n"},
		},
	}
}

// multiarchTriplet is Debian's library directory name for the machine's
// architecture.
func multiarchTriplet() string {
	switch runtime.GOARCH {
	case "arm64":
		return "aarch64-linux-gnu"
	case "ppc64le":
		return "powerpc64le-linux-gnu"
	}
	return "x86_64-linux-gnu"
}

// debArch is the machine's dpkg architecture name.
func debArch() string {
	switch runtime.GOARCH {
	case "386":
		return "i386"
	case "arm":
		return "armhf"
	case "ppc64le":
		return "ppc64el"
	}
	return runtime.GOARCH
}

// ofedInfoScript renders /usr/bin/ofed_info for a flavor and version in the
// format of ofed-scripts' generated script: -s "<NAME>-<ver>:", -n the bare
// version, no option the long listing.
func ofedInfoScript(flavor, version string) string {
	short := "OFED-internal-" + version + ":"
	long := short
	if flavor == StackMLNX {
		short = "MLNX_OFED_LINUX-" + version + ":"
		base := version
		if i := strings.LastIndexByte(version, '.'); i > strings.IndexByte(version, '-') {
			base = version[:i]
		}
		long = "MLNX_OFED_LINUX-" + version + " (OFED-" + base + "):"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n# ofed_info - %s %s (host twin, generated like ofed-scripts' ofed_info)\n", flavor, version)
	b.WriteString("usage() {\n\techo \"Usage: $0 [-s|-n|-l]\"\n\techo \"\t-s   : Show package name and version number.\"\n" +
		"\techo \"\t-n   : Show numerical version number only.\"\n\techo \"\t-l   : List installed packages details (Default option).\"\n}\n")
	b.WriteString("case \"$1\" in\n")
	fmt.Fprintf(&b, "-s) echo '%s' ;;\n-n) echo '%s' ;;\n", short, version)
	fmt.Fprintf(&b, "-l | '')\n\techo '%s'\n\techo\n", long)
	for _, p := range []string{MetaPackage(flavor), "mlnx-ofed-kernel", "mlnx-tools", "rdma-core"} {
		fmt.Fprintf(&b, "\techo '%s:'\n\techo '%s/%s-%s.src.tar.gz'\n\techo\n", p, flavor, p, version)
	}
	b.WriteString("\t;;\n-h | --help) usage ;;\n*) usage; exit 1 ;;\nesac\n")
	return b.String()
}

// debFile is one file a package ships.
type debFile struct {
	path    string // absolute path in the twin, "/usr/bin/ofed_info"
	content string
	mode    fs.FileMode
}
