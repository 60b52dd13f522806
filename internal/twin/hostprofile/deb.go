package hostprofile

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
)

// debPackage is a binary package the twin builds: its control fields and
// files. Packages have no maintainer scripts.
type debPackage struct {
	name, version, arch string
	section             string
	summary             string
	depends             []string
	files               []debFile
}

// debEpoch is the modification time of every archive member, so builds are
// reproducible.
var debEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

const debMaintainer = "Host Twin <twin@localhost>"

// control returns the DEBIAN/control file.
func (p debPackage) control() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Package: %s\nVersion: %s\nArchitecture: %s\nMaintainer: %s\nInstalled-Size: %d\n",
		p.name, p.version, p.arch, debMaintainer, p.installedSize())
	if len(p.depends) > 0 {
		fmt.Fprintf(&b, "Depends: %s\n", strings.Join(p.depends, ", "))
	}
	fmt.Fprintf(&b, "Section: %s\nPriority: optional\nDescription: %s\n Stand-in package built by the host twin; it ships no drivers.\n",
		p.section, p.summary)
	return b.String()
}

// installedSize is the files' size in KiB, rounded up per file as dpkg-gencontrol does.
func (p debPackage) installedSize() int {
	n := 0
	for _, f := range p.files {
		n += (len(f.content) + 1023) / 1024
	}
	return max(n, 1)
}

// fileName is the pool file name, "<name>_<version>_<arch>.deb".
func (p debPackage) fileName() string {
	return p.name + "_" + p.version + "_" + p.arch + ".deb"
}

// dirs returns every directory the package's files need, parents first,
// without "/".
func (p debPackage) dirs() []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range p.files {
		var chain []string
		for d := path.Dir(f.path); d != "/"; d = path.Dir(d) {
			chain = append(chain, d)
		}
		for i := len(chain) - 1; i >= 0; i-- {
			if !seen[chain[i]] {
				seen[chain[i]] = true
				out = append(out, chain[i])
			}
		}
	}
	slices.Sort(out)
	return out
}

// listing returns /var/lib/dpkg/info/<name>.list as dpkg writes it.
func (p debPackage) listing() string {
	var b strings.Builder
	b.WriteString("/.\n")
	for _, d := range p.dirs() {
		b.WriteString(d + "\n")
	}
	for _, f := range p.files {
		b.WriteString(f.path + "\n")
	}
	return b.String()
}

// md5sums returns DEBIAN/md5sums.
func (p debPackage) md5sums() string {
	var b strings.Builder
	for _, f := range p.files {
		sum := md5.Sum([]byte(f.content))
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), strings.TrimPrefix(f.path, "/"))
	}
	return b.String()
}

// build returns the .deb: an ar archive of debian-binary, control.tar.gz
// and data.tar.gz.
func (p debPackage) build() ([]byte, error) {
	control, err := tarGz([]tarEntry{
		{name: "./", dir: true},
		{name: "./control", content: p.control(), mode: 0o644},
		{name: "./md5sums", content: p.md5sums(), mode: 0o644},
	})
	if err != nil {
		return nil, fmt.Errorf("build %s control: %w", p.name, err)
	}
	entries := []tarEntry{{name: "./", dir: true}}
	for _, d := range p.dirs() {
		entries = append(entries, tarEntry{name: "." + d + "/", dir: true})
	}
	for _, f := range p.files {
		entries = append(entries, tarEntry{name: "." + f.path, content: f.content, mode: int64(f.mode.Perm())})
	}
	data, err := tarGz(entries)
	if err != nil {
		return nil, fmt.Errorf("build %s data: %w", p.name, err)
	}
	var b bytes.Buffer
	b.WriteString("!<arch>\n")
	arMember(&b, "debian-binary", []byte("2.0\n"))
	arMember(&b, "control.tar.gz", control)
	arMember(&b, "data.tar.gz", data)
	return b.Bytes(), nil
}

// arMember appends one member to a common-format ar archive: a 60-byte
// header of space-padded fields, the data, and a newline pad to an even
// offset.
func arMember(b *bytes.Buffer, name string, data []byte) {
	fmt.Fprintf(b, "%-16s%-12d%-6d%-6d%-8o%-10d`\n", name, debEpoch.Unix(), 0, 0, 0o100644, len(data))
	b.Write(data)
	if len(data)%2 == 1 {
		b.WriteByte('\n')
	}
}

type tarEntry struct {
	name    string
	content string
	mode    int64
	dir     bool
}

// tarGz writes entries owned by root into a gzip-compressed tar.
func tarGz(entries []tarEntry) ([]byte, error) {
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := &tar.Header{
			Name: e.name, Mode: e.mode, Size: int64(len(e.content)), ModTime: debEpoch,
			Typeflag: tar.TypeReg, Uname: "root", Gname: "root", Format: tar.FormatGNU,
		}
		if e.dir {
			h.Typeflag, h.Mode, h.Size = tar.TypeDir, 0o755, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write([]byte(e.content)); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
