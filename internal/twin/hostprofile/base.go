package hostprofile

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The stand-in tools are partly POSIX sh scripts kept as files beside this
// one (scripts/sbin/* become /usr/local/sbin/*, scripts/lib/* become
// /usr/local/lib/twin/*), partly Go: the hot ones a gather runs (goStandIns,
// package internal/twin/standin: show_gids, ibv_devinfo, ibdev2netdev,
// nvidia-smi, lsmod, cma_roce_tos, mlnx_qos, ethtool and mlxconfig) are one
// multi-call binary, built from this module's source by standInBinary,
// installed as /usr/local/lib/twin/standin with a /usr/local/sbin symlink
// per tool.
//
//go:embed scripts
var scripts embed.FS

// goStandIns are the stand-ins that the Go binary implements, each
// /usr/local/sbin/<name> -> ../lib/twin/standin; the rest are scripts.
var goStandIns = []string{"cma_roce_tos", "ethtool", "ibdev2netdev", "ibv_devinfo", "lsmod", "mlnx_qos", "mlxconfig", "nvidia-smi", "show_gids"}

// Paths inside the twin that the base layer provides.
const (
	// StandInDir holds the stand-in tools; it must come first on PATH (it
	// does on Debian/Ubuntu for root, for sudo's secure_path and for
	// systemd units).
	StandInDir = "/usr/local/sbin"
	// LibDir holds what the stand-ins share.
	LibDir = "/usr/local/lib/twin"
	// BootScript is what systemd would do at boot: modules-load.d, then
	// every enabled unit. hosttwin runs it inside the twin after
	// ResetRuntime.
	BootScript = StandInDir + "/twin-boot"
	// baseStamp records the fingerprint of a built base layer.
	baseStamp = "usr/local/share/twin/base.stamp"
)

// baseFormat changes whenever the base layer's layout changes in a way the
// content fingerprint cannot see.
const baseFormat = "hostprofile-base-2"

type baseFile struct {
	rel     string // relative to the layer root
	content string
	mode    fs.FileMode
	link    string // when set, a symbolic link to this target instead
	// hash stands for content in the fingerprint when set (the binary:
	// hashing megabytes on every BuildBase would cost more than the check).
	hash string
}

// BuildBase fills dir with the layer every twin host shares, read-only: the
// stand-in tools in /usr/local/sbin, their library in /usr/local/lib/twin
// and the apt repository in /srv/twin-apt; with rhel also the dnf
// repositories in /srv/twin-dnf, which RHEL profiles need and which take
// rpmbuild and createrepo_c to build. It is idempotent and cheap when dir
// already holds the same build (a fingerprint is kept in
// /usr/local/share/twin/base.stamp); concurrent callers serialise on a lock
// of dir. A stale build is replaced.
//
// The Go stand-ins (goStandIns) come from "go build ./tools/twin-standin" in
// the module source this package was compiled from, once per process, so
// BuildBase needs that source tree and the go command; set
// ROCE_TWIN_STANDIN to the path of a prebuilt twin-standin binary to use it
// as is instead. The layer gets a copy: it must not point outside itself
// (the machine's /tmp is masked inside a twin).
func BuildBase(dir string, rhel bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("build base: %w", err)
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return fmt.Errorf("build base: %w", err)
	}
	defer unlock()
	files, err := baseFiles()
	if err != nil {
		return fmt.Errorf("build base: %w", err)
	}
	fp, err := baseFingerprint(files, rhel)
	if err != nil {
		return fmt.Errorf("build base: %w", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, baseStamp)); err == nil && string(b) == fp {
		return nil
	}
	t := newTree(dir)
	t.remove(baseStamp)
	for _, d := range []string{StandInDir, LibDir, RepoRoot, RHELRepoRoot} {
		t.remove(strings.TrimPrefix(d, "/"))
	}
	for _, f := range files {
		if f.link != "" {
			t.symlink(f.rel, f.link)
			continue
		}
		t.file(f.rel, f.content, f.mode)
	}
	for _, r := range Repos() {
		if err := writeRepo(t, r); err != nil {
			return fmt.Errorf("build base: repository %s %s: %w", r.Flavor, r.Version, err)
		}
	}
	if rhel {
		if err := writeRPMRepos(t); err != nil {
			return fmt.Errorf("build base: %w", err)
		}
	}
	t.file(baseStamp, fp, 0o644)
	if err := t.Err(); err != nil {
		return fmt.Errorf("build base in %s: %w", dir, err)
	}
	return nil
}

// baseFiles returns the scripts, the Go stand-in binary and its links, and
// the generated data of the base layer.
func baseFiles() ([]baseFile, error) {
	bin, err := standInBinary()
	if err != nil {
		return nil, err
	}
	lib := strings.TrimPrefix(LibDir, "/")
	files := []baseFile{{rel: lib + "/standin", content: bin.content, mode: 0o755, hash: bin.hash}}
	for _, name := range goStandIns {
		files = append(files, baseFile{rel: strings.TrimPrefix(StandInDir, "/") + "/" + name, mode: 0o777, link: "../lib/twin/standin"})
	}
	for _, sub := range []struct{ src, dst string }{{"scripts/sbin", StandInDir}, {"scripts/lib", LibDir}} {
		entries, err := scripts.ReadDir(sub.src)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			b, err := scripts.ReadFile(sub.src + "/" + e.Name())
			if err != nil {
				return nil, err
			}
			mode := fs.FileMode(0o644)
			if sub.dst == StandInDir {
				mode = 0o755
			}
			files = append(files, baseFile{rel: strings.TrimPrefix(path.Join(sub.dst, e.Name()), "/"), content: string(b), mode: mode})
		}
	}
	files = append(files, baseFile{rel: strings.TrimPrefix(LibDir, "/") + "/nvconfig.db", content: nvconfigDB(), mode: 0o644})
	return files, nil
}

// nvconfigDB renders the mlxconfig parameter table: "NAME DEFAULT
// [value=LABEL,...]" per line.
func nvconfigDB() string {
	var b strings.Builder
	b.WriteString("# nvconfig.db - mlxconfig parameters of the host twin: name, default, value labels\n")
	for _, p := range nvParams() {
		b.WriteString(p.name + " " + strconv.Itoa(p.def))
		if len(p.names) > 0 {
			keys := make([]int, 0, len(p.names))
			for k := range p.names {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			labels := make([]string, len(keys))
			for i, k := range keys {
				labels[i] = strconv.Itoa(k) + "=" + p.names[k]
			}
			b.WriteString(" " + strings.Join(labels, ","))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// baseFingerprint hashes everything the base layer is made of.
func baseFingerprint(files []baseFile, rhel bool) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%t\x00", baseFormat, debArch(), rhel)
	for _, f := range files {
		content := f.content
		if f.hash != "" {
			content = "sha256:" + f.hash
		}
		fmt.Fprintf(h, "%s\x00%o\x00%s\x00%s\x00", f.rel, f.mode, f.link, content)
	}
	for _, r := range Repos() {
		pkgs, err := ofedPackages(r.Flavor, r.Version)
		if err != nil {
			return "", err
		}
		for _, p := range pkgs {
			fmt.Fprintf(h, "%s\x00", p.control())
			for _, f := range p.files {
				fmt.Fprintf(h, "%s\x00%o\x00%s\x00", f.path, f.mode, f.content)
			}
		}
		if !rhel {
			continue
		}
		rpms, err := ofedRPMs(r.Flavor, r.Version)
		if err != nil {
			return "", err
		}
		for _, p := range rpms {
			fmt.Fprintf(h, "%s\x00", p.fingerprint())
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
