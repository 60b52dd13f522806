package hostprofile

import (
	"bytes"
	"compress/gzip"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// writeRepo builds the packages of r and writes a flat apt repository into
// the tree: the .deb files, Packages, Packages.gz and an unsigned Release
// with their hashes (use it with [trusted=yes]).
func writeRepo(t *tree, r Repo) error {
	pkgs, err := ofedPackages(r.Flavor, r.Version)
	if err != nil {
		return err
	}
	dir := strings.TrimPrefix(r.Path(), "/")
	var index strings.Builder
	for _, p := range pkgs {
		deb, err := p.build()
		if err != nil {
			return err
		}
		t.file(dir+"/"+p.fileName(), string(deb), 0o644)
		md := md5.Sum(deb)
		s1 := sha1.Sum(deb)
		s256 := sha256.Sum256(deb)
		fmt.Fprintf(&index, "%sFilename: ./%s\nSize: %d\nMD5sum: %s\nSHA1: %s\nSHA256: %s\n\n",
			p.control(), p.fileName(), len(deb), hex.EncodeToString(md[:]), hex.EncodeToString(s1[:]),
			hex.EncodeToString(s256[:]))
	}
	packages := index.String()
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := zw.Write([]byte(packages)); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	t.file(dir+"/Packages", packages, 0o644)
	t.file(dir+"/Packages.gz", gz.String(), 0o644)
	t.file(dir+"/Release", release(r, map[string]string{"Packages": packages, "Packages.gz": gz.String()}), 0o644)
	return t.Err()
}

// release renders the Release file of a flat repository over the given
// index files.
func release(r Repo, files map[string]string) string {
	names := []string{"Packages", "Packages.gz"}
	var b strings.Builder
	fmt.Fprintf(&b, "Origin: host-twin\nLabel: host-twin %s\nSuite: stable\nCodename: twin\nVersion: %s\n", r.Flavor, r.Version)
	fmt.Fprintf(&b, "Date: %s\nArchitectures: %s all\n", debEpoch.Format("Mon, 02 Jan 2006 15:04:05 UTC"), debArch())
	fmt.Fprintf(&b, "Description: Host twin %s %s stand-in packages\n", r.Flavor, r.Version)
	for _, h := range []struct {
		field string
		sum   func(string) string
	}{
		{"MD5Sum", func(s string) string { x := md5.Sum([]byte(s)); return hex.EncodeToString(x[:]) }},
		{"SHA1", func(s string) string { x := sha1.Sum([]byte(s)); return hex.EncodeToString(x[:]) }},
		{"SHA256", func(s string) string { x := sha256.Sum256([]byte(s)); return hex.EncodeToString(x[:]) }},
	} {
		b.WriteString(h.field + ":\n")
		for _, n := range names {
			fmt.Fprintf(&b, " %s %d %s\n", h.sum(files[n]), len(files[n]), n)
		}
	}
	return b.String()
}
