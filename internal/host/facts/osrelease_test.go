package facts

import (
	"slices"
	"strings"
	"testing"
)

func TestParseOSReleaseFixtures(t *testing.T) {
	for _, c := range []struct {
		file, id, like, version, pretty, family string
	}{
		{"os_release_rocky96.txt", "rocky", "rhel centos fedora", "9.6", "Rocky Linux 9.6 (Blue Onyx)", FamilyRHEL},
		{"os_release_ubuntu2404.txt", "ubuntu", "debian", "24.04", "Ubuntu 24.04.1 LTS", FamilyDebian},
		{"os_release_debian12.txt", "debian", "", "12", "Debian GNU/Linux 12 (bookworm)", FamilyDebian},
	} {
		o, err := ParseOSRelease(fixture(t, c.file))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if o.ID != c.id || strings.Join(o.IDLike, " ") != c.like || o.VersionID != c.version || o.PrettyName != c.pretty {
			t.Errorf("%s: %+v", c.file, o)
		}
		if f, ok := o.Family(); !ok || f != c.family {
			t.Errorf("%s: family %q, %v; want %q", c.file, f, ok, c.family)
		}
	}
}

// The EL distributions as their os-release files name themselves (RHEL 9.3,
// AlmaLinux 9.4, Oracle Linux 9.4, CentOS Stream 9: ID and ID_LIKE of real
// files), and two that belong to neither family.
func TestOSReleaseFamily(t *testing.T) {
	for _, c := range []struct {
		text, family string
	}{
		{`ID="rhel"` + "\n" + `ID_LIKE="fedora"`, FamilyRHEL},
		{`ID="almalinux"` + "\n" + `ID_LIKE="rhel centos fedora"`, FamilyRHEL},
		{`ID="ol"` + "\n" + `ID_LIKE="fedora"`, FamilyRHEL},
		{`ID="centos"` + "\n" + `ID_LIKE="rhel fedora"`, FamilyRHEL},
		{`ID=pop` + "\n" + `ID_LIKE="ubuntu debian"`, FamilyDebian},
		{`ID="amzn"` + "\n" + `ID_LIKE="fedora"`, FamilyRHEL},
		{`ID="opensuse-leap"` + "\n" + `ID_LIKE="suse opensuse"`, ""},
		{"ID=arch", ""},
	} {
		o, err := ParseOSRelease(c.text)
		if err != nil {
			t.Fatalf("%q: %v", c.text, err)
		}
		if f, ok := o.Family(); f != c.family || ok != (c.family != "") {
			t.Errorf("%q: family %q, %v; want %q", c.text, f, ok, c.family)
		}
	}
}

func TestParseOSReleaseQuoting(t *testing.T) {
	o, err := ParseOSRelease("# comment\n\nID='my-os'\nPRETTY_NAME=\"My \\\"OS\\\" \\$1 \\\\ x\"\nID_LIKE=\n")
	if err != nil {
		t.Fatal(err)
	}
	if o.ID != "my-os" || o.PrettyName != `My "OS" $1 \ x` || len(o.IDLike) != 0 {
		t.Errorf("%+v", o)
	}
	for _, bad := range []string{
		"ID=rocky\nNAME=\"Rocky", // unterminated
		"ID=rocky\nNAME=Rocky Linux",
		"ID=rocky\nNAME=\"a\"b",
		"ID=rocky\njust words",
		"NAME=\"Rocky Linux\"", // no ID
	} {
		if _, err := ParseOSRelease(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestOSReleaseString(t *testing.T) {
	if s := (OSRelease{ID: "rocky", VersionID: "9.6"}).String(); s != "rocky 9.6" {
		t.Errorf("String = %q", s)
	}
	if got := OSReleaseCommand.String(); got != "cat /etc/os-release || cat /usr/lib/os-release" {
		t.Errorf("command %q", got)
	}
}

func FuzzOSRelease(f *testing.F) {
	for _, name := range []string{"os_release_rocky96.txt", "os_release_ubuntu2404.txt"} {
		f.Add(fixture(f, name))
	}
	f.Fuzz(func(t *testing.T, in string) {
		o, err := ParseOSRelease(in)
		if err != nil {
			return
		}
		if o.ID == "" || slices.Contains(o.IDLike, "") {
			t.Errorf("accepted %q as %+v", in, o)
		}
		o.Family()
	})
}
