package hostprofile

import (
	"fmt"
	"slices"
	"strings"
)

// The RPM names follow NVIDIA's RHEL 9 repositories (a public "dnf install"
// transcript of DOCA 3.1.0 on RHEL 9.6, NVIDIA's DOCA 3.2 EL package lists,
// ofed-scripts.spec):
//
//   - the kernel package is mlnx-ofa_kernel with its release
//     "OFED.<ofed version>.1.<dist>", plus kmod-mlnx-ofa_kernel (a kABI
//     module package prebuilt for the RHEL minor release, dist "rhel9u6")
//     up to DOCA 3.1 / OFED 25.07 and for MLNX_OFED 24.10, or
//     mlnx-ofa_kernel-dkms (dist "el9", built on the host) from DOCA 3.2 /
//     OFED 25.10 on;
//   - /usr/bin/ofed_info comes from ofed-scripts, release "OFED.<ver>";
//   - rdma-core and libibverbs-utils replace RHEL's (57.0-2.el9) with
//     versions that sort above it: "2507mlnx58-1.2507097" up to 25.07,
//     "2510.0.11-1.el9" from 25.10.
//
// The metapackages (doca-ofed, mlnx-ofed-all) carry the OFED version as
// version-release ("25.10-1.7.1"), as on the Debian twin; NVIDIA's doca-ofed
// RPM is versioned after the DOCA release instead ("3.1.0-091000"), which a
// user sets as package_version.

// RHELRepoRoot is where the base layer keeps the twin dnf repositories.
const RHELRepoRoot = "/srv/twin-dnf"

// RHELRepoPath is the dnf repository directory of a flavor and version
// inside the twin, "/srv/twin-dnf/<flavor>/<version>", for a baseurl of
// "file://" + RHELRepoPath(...).
func RHELRepoPath(flavor, version string) string { return RHELRepoRoot + "/" + flavor + "/" + version }

// RPMPackages returns the packages of the dnf repository directory for an
// OFED flavor and version, the metapackage first, as name and
// version-release.
func RPMPackages(flavor, version string) ([]Package, error) {
	pkgs, err := ofedRPMs(flavor, version)
	if err != nil {
		return nil, err
	}
	out := make([]Package, len(pkgs))
	for i, p := range pkgs {
		out[i] = Package{Name: p.name, Version: p.evr()}
	}
	return out, nil
}

// ofedRPMs builds the package set of one dnf repository directory.
func ofedRPMs(flavor, version string) ([]rpmPackage, error) {
	if !slices.Contains(repoVersions[flavor], version) {
		return nil, fmt.Errorf("no %s %s in the twin repository", flavor, version)
	}
	mm, rest, _ := strings.Cut(version, "-") // "25.10", "1.7.1"
	digits := strings.NewReplacer(".", "", "-", "")
	dkms := flavor == StackDOCA && mm >= "25.10"
	kernelRel := "OFED." + mm + "." + rest + ".1.rhel9u6"
	rdmaVer, rdmaRel := digits.Replace(mm)+"mlnx58", "1."+digits.Replace(version)
	toolsVer, toolsRel := mm, "0."+digits.Replace(version)
	if dkms {
		kernelRel = "OFED." + mm + "." + rest + ".1.el9"
		rdmaVer, rdmaRel = digits.Replace(mm)+".0.11", "1.el9"
		toolsVer, toolsRel = digits.Replace(mm)+".0.16", "1"
	}
	doc := func(name string) debFile {
		return debFile{path: "/usr/share/doc/" + name + "/README.twin", mode: 0o644,
			content: "Empty stand-in package of the host twin; the tools are emulated in /usr/local/sbin.\n"}
	}
	kernel := rpmPackage{name: "mlnx-ofa_kernel", version: mm, release: kernelRel,
		summary: "Infiniband HCA Driver (host twin)", files: []debFile{doc("mlnx-ofa_kernel")}}
	modules := rpmPackage{name: "kmod-mlnx-ofa_kernel", version: mm, release: kernelRel,
		summary: "mlnx-ofa_kernel kernel module(s) (host twin)",
		files: []debFile{{path: "/usr/share/doc/kmod-mlnx-ofa_kernel/README.twin", mode: 0o644,
			content: "Prebuilt kABI modules stand-in; the twin's modules are in /usr/local/lib/twin/modules.db.\n"}}}
	if dkms {
		modules = rpmPackage{name: "mlnx-ofa_kernel-dkms", version: mm, release: kernelRel,
			summary: "DKMS support for mlnx-ofa_kernel kernel modules (host twin)",
			files: []debFile{{path: "/usr/src/mlnx-ofa_kernel-" + mm + "/dkms.conf", mode: 0o644,
				content: "PACKAGE_NAME=\"mlnx-ofa_kernel\"\nPACKAGE_VERSION=\"" + mm + "\"\nAUTOINSTALL=yes\n"}}}
	}
	scripts := rpmPackage{name: "ofed-scripts", version: mm, release: "OFED." + mm + "." + rest,
		summary: "OFED scripts (host twin)",
		files:   []debFile{{path: "/usr/bin/ofed_info", mode: 0o755, content: ofedInfoScript(flavor, version)}}}
	tools := rpmPackage{name: "mlnx-tools", version: toolsVer, release: toolsRel,
		summary: "Mellanox userland tools and scripts (host twin)", files: []debFile{doc("mlnx-tools")}}
	rdma := rpmPackage{name: "rdma-core", version: rdmaVer, release: rdmaRel,
		summary: "RDMA core userspace libraries and daemons (host twin)", files: []debFile{doc("rdma-core")}}
	utils := rpmPackage{name: "libibverbs-utils", version: rdmaVer, release: rdmaRel,
		summary: "Examples for the libibverbs library (host twin)", requires: []string{"rdma-core = " + rdma.evr()},
		files: []debFile{doc("libibverbs-utils")}}
	meta := rpmPackage{name: MetaPackage(flavor), version: mm, release: rest,
		summary: "OFED " + flavor + " metapackage (host twin)", files: []debFile{doc(MetaPackage(flavor))}}
	for _, p := range []rpmPackage{kernel, modules, scripts, tools, rdma, utils} {
		meta.requires = append(meta.requires, p.name+" = "+p.evr())
	}
	return []rpmPackage{meta, kernel, modules, scripts, tools, rdma, utils}, nil
}

// rockyRelease is the rocky-release package of Rocky Linux 9.6: the
// os-release files and the provides dnf reads $releasever from
// ("system-release(releasever) = 9", as the rocky-release spec has it).
func rockyRelease() rpmPackage {
	osRelease := `NAME="Rocky Linux"
VERSION="9.6 (Blue Onyx)"
ID="rocky"
ID_LIKE="rhel centos fedora"
VERSION_ID="9.6"
PLATFORM_ID="platform:el9"
PRETTY_NAME="Rocky Linux 9.6 (Blue Onyx)"
ANSI_COLOR="0;32"
LOGO="fedora-logo-icon"
CPE_NAME="cpe:/o:rocky:rocky:9::baseos"
HOME_URL="https://rockylinux.org/"
VENDOR_NAME="RESF"
VENDOR_URL="https://resf.org/"
BUG_REPORT_URL="https://bugs.rockylinux.org/"
SUPPORT_END="2032-05-31"
ROCKY_SUPPORT_PRODUCT="Rocky-Linux-9"
ROCKY_SUPPORT_PRODUCT_VERSION="9.6"
REDHAT_SUPPORT_PRODUCT="Rocky Linux"
REDHAT_SUPPORT_PRODUCT_VERSION="9.6"
`
	release := "Rocky Linux release 9.6 (Blue Onyx)\n"
	return rpmPackage{
		name: "rocky-release", version: "9.6", release: "1.2.el9", summary: "Rocky Linux release files (host twin)",
		provides: []string{"system-release = 9.6-1.2.el9", "system-release(releasever) = 9", "redhat-release = 9.6-1.2.el9",
			"centos-release = 9.6-1.2.el9", "base-module(platform:el9)"},
		files: []debFile{
			{path: "/usr/lib/os-release", mode: 0o644, content: osRelease},
			{path: "/etc/os-release", mode: 0o644, content: osRelease},
			{path: "/etc/rocky-release", mode: 0o644, content: release},
			{path: "/etc/redhat-release", mode: 0o644, content: release},
			{path: "/etc/system-release", mode: 0o644, content: release},
		},
	}
}

// inboxRPMs are Rocky 9.6's own RDMA userspace packages an inbox host has
// installed, with no files of their own.
func inboxRPMs() []rpmPackage {
	return []rpmPackage{
		{name: "rdma-core", version: "57.0", release: "2.el9", summary: "RDMA core userspace libraries and daemons"},
		{name: "libibverbs-utils", version: "57.0", release: "2.el9", summary: "Examples for the libibverbs library",
			requires: []string{"rdma-core = 57.0-2.el9"}},
	}
}

// ncclRPM is NVIDIA's libnccl package of the CUDA RHEL repositories at
// version ("2.21.5-1+cuda12.4"), the library in /usr/lib64 under the file
// name NCCL's makefile gives it.
func ncclRPM(version string) rpmPackage {
	upstream, rel, _ := strings.Cut(version, "-")
	return rpmPackage{name: "libnccl", version: upstream, release: rel,
		summary: "NVIDIA Collective Communication Library (NCCL) Runtime (host twin)",
		files: []debFile{{path: "/usr/lib64/libnccl.so." + upstream, mode: 0o644,
			content: "host twin stand-in for NCCL " + upstream + "\n"}}}
}
