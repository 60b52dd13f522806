package hostprofile

import (
	"os"
	"slices"
	"strings"
)

// machineDPKGStatus is the machine's dpkg database, the bottom layer of every
// twin; a variable so tests can point it elsewhere.
var machineDPKGStatus = "/var/lib/dpkg/status"

const (
	dpkgStatus = "var/lib/dpkg/status"
	dpkgInfo   = "var/lib/dpkg/info"
)

// renderStack installs the profile's RDMA stack the way dpkg would have: the
// packages' files, their info lists and md5sums, and a status file that is
// the machine's with the twin's packages replaced. An inbox host gets the
// distribution's rdma-core and ibverbs-utils entries instead. A profile with
// an NCCL version also has NVIDIA's libnccl2 package.
func renderStack(t *tree, p Profile) error {
	pkgs := inboxPackages()
	if p.OFED() {
		var err error
		if pkgs, err = ofedPackages(p.Stack, p.OFEDVersion); err != nil {
			return err
		}
	}
	if p.NCCLVersion != "" {
		pkgs = append(pkgs, ncclPackage(p.NCCLVersion))
	}
	for _, pk := range pkgs {
		if len(pk.files) == 0 {
			continue // the distribution's own entries (inbox) keep the machine's files
		}
		for _, f := range pk.files {
			t.file(strings.TrimPrefix(f.path, "/"), f.content, f.mode)
		}
		t.file(dpkgInfo+"/"+pk.name+".list", pk.listing(), 0o644)
		t.file(dpkgInfo+"/"+pk.name+".md5sums", pk.md5sums(), 0o644)
	}
	machine, err := os.ReadFile(machineDPKGStatus)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	t.file(dpkgStatus, mergeStatus(string(machine), pkgs), 0o644)
	return t.Err()
}

// mergeStatus returns the machine's dpkg status without any stanza of a twin
// package name, followed by "install ok installed" stanzas for pkgs.
func mergeStatus(machine string, pkgs []debPackage) string {
	var b strings.Builder
	for _, stanza := range strings.Split(machine, "\n\n") {
		stanza = strings.Trim(stanza, "\n")
		if stanza == "" || slices.Contains(twinPackageNames, stanzaPackage(stanza)) {
			continue
		}
		b.WriteString(stanza + "\n\n")
	}
	for _, p := range pkgs {
		c := p.control()
		name, rest, _ := strings.Cut(c, "\n")
		b.WriteString(name + "\nStatus: install ok installed\n" + rest + "\n")
	}
	return b.String()
}

// stanzaPackage returns the Package field of a dpkg status stanza.
func stanzaPackage(stanza string) string {
	first, _, _ := strings.Cut(stanza, "\n")
	name, ok := strings.CutPrefix(first, "Package: ")
	if !ok {
		for _, l := range strings.Split(stanza, "\n") {
			if n, ok := strings.CutPrefix(l, "Package: "); ok {
				return strings.TrimSpace(n)
			}
		}
	}
	return strings.TrimSpace(name)
}
