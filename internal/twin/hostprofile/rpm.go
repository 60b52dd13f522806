package hostprofile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// rpmPackage is a binary RPM the twin builds with the machine's rpmbuild
// (Debian's rpm package): its header fields and files. Packages have no
// scriptlets, and rpmbuild's automatic dependencies are off, so what a
// package requires is exactly requires.
type rpmPackage struct {
	name, version, release string
	summary                string
	requires, provides     []string
	files                  []debFile
}

// evr is "version-release", what rpm -q --qf '%{VERSION}-%{RELEASE}' prints.
func (p rpmPackage) evr() string { return p.version + "-" + p.release }

// fileName is the name rpmbuild gives the package, "<name>-<version>-<release>.<arch>.rpm".
func (p rpmPackage) fileName() string {
	return p.name + "-" + p.evr() + "." + rpmArch() + ".rpm"
}

// spec renders the package's spec file; the files are copied from
// %{_sourcedir}/root, which build fills.
func (p rpmPackage) spec() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Name: %s\nVersion: %s\nRelease: %s\nSummary: %s\nLicense: Proprietary\nAutoReqProv: no\n",
		p.name, p.version, p.release, p.summary)
	for _, r := range p.requires {
		fmt.Fprintf(&b, "Requires: %s\n", r)
	}
	for _, r := range p.provides {
		fmt.Fprintf(&b, "Provides: %s\n", r)
	}
	b.WriteString("%description\nStand-in package built by the host twin; it ships no drivers.\n")
	b.WriteString("%install\nmkdir -p %{buildroot} %{_sourcedir}/root\ncp -a %{_sourcedir}/root/. %{buildroot}/\n%files\n")
	for _, f := range p.files {
		fmt.Fprintf(&b, "%%attr(%04o,root,root) %s\n", f.mode.Perm(), f.path)
	}
	return b.String()
}

// fingerprint identifies what the package is built from.
func (p rpmPackage) fingerprint() string {
	h := sha256.New()
	fmt.Fprintf(h, "rpm-1\x00%s\x00", p.spec())
	for _, f := range p.files {
		fmt.Fprintf(h, "%s\x00%o\x00%s\x00", f.path, f.mode, f.content)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// rpmCacheDir is where built packages are kept by fingerprint, so that each
// is built once per machine: the user's cache directory (root's for the
// twins), not a shared temporary directory whose packages another user could
// plant.
func rpmCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "roce-twin", "rpms"), nil
}

// rpmBuildMu serialises builds within the process.
var rpmBuildMu sync.Mutex

// built returns the path of the package file, building it first when the
// cache does not have it. A build is published by one rename, so concurrent
// processes at worst build a package twice.
func (p rpmPackage) built() (string, error) {
	cache, err := rpmCacheDir()
	if err != nil {
		return "", fmt.Errorf("build %s: %w", p.name, err)
	}
	dst := filepath.Join(cache, p.fingerprint(), p.fileName())
	rpmBuildMu.Lock()
	defer rpmBuildMu.Unlock()
	if _, err := os.Stat(dst); err == nil {
		return dst, nil
	}
	if _, err := exec.LookPath("rpmbuild"); err != nil {
		return "", fmt.Errorf("build %s: rpmbuild not found (the RHEL twins need the rpm package: make rpmtools installs it)", p.name)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", fmt.Errorf("build %s: %w", p.name, err)
	}
	top, err := os.MkdirTemp(filepath.Dir(dst), ".build-")
	if err != nil {
		return "", fmt.Errorf("build %s: %w", p.name, err)
	}
	defer os.RemoveAll(top)
	t := newTree(top)
	for _, f := range p.files {
		t.file("SOURCES/root"+f.path, f.content, f.mode)
	}
	t.dir("SOURCES/root")
	t.file("SPECS/"+p.name+".spec", p.spec(), 0o644)
	if err := t.Err(); err != nil {
		return "", fmt.Errorf("build %s: %w", p.name, err)
	}
	cmd := exec.Command("rpmbuild", "-bb", "--quiet",
		"--define", "_topdir "+top,
		"--define", "_build_id_links none",
		"--define", "debug_package %{nil}",
		"--define", "__os_install_post %{nil}",
		"--define", "_binary_payload w2.xzdio",
		filepath.Join(top, "SPECS", p.name+".spec"))
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("rpmbuild %s: %w: %s", p.name, err, lastLines(string(out), 5))
	}
	if err := os.Rename(filepath.Join(top, "RPMS", rpmArch(), p.fileName()), dst); err != nil {
		return "", fmt.Errorf("build %s: %w", p.name, err)
	}
	return dst, nil
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

// rpmArch is rpm's name of the machine's architecture.
func rpmArch() string {
	switch runtime.GOARCH {
	case "arm64":
		return "aarch64"
	case "ppc64le":
		return "ppc64le"
	}
	return "x86_64"
}
