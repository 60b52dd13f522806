package facts

import (
	"fmt"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// The package families a host can belong to.
const (
	// FamilyDebian is Debian and Ubuntu: apt, dpkg, apt-mark.
	FamilyDebian = "debian"
	// FamilyRHEL is RHEL and its rebuilds (Rocky, Alma, Oracle, CentOS
	// Stream) and Fedora: dnf and rpm.
	FamilyRHEL = "rhel"
)

// familyOf maps os-release ID and ID_LIKE words to a package family. The IDs
// are the distributions' own: "debian", "ubuntu"; "rhel", "rocky",
// "almalinux", "ol" (Oracle Linux), "centos" (CentOS Stream), "fedora"; every
// RHEL rebuild also names "rhel" or "fedora" in ID_LIKE.
var familyOf = map[string]string{
	"debian": FamilyDebian, "ubuntu": FamilyDebian,
	"rhel": FamilyRHEL, "rocky": FamilyRHEL, "almalinux": FamilyRHEL, "ol": FamilyRHEL,
	"centos": FamilyRHEL, "fedora": FamilyRHEL,
}

// OSRelease is what /etc/os-release says of the operating system
// (os-release(5)).
type OSRelease struct {
	// ID is the distribution's lower-case identifier, e.g. "rocky".
	ID string
	// IDLike are the related distributions, closest first, e.g. "rhel",
	// "centos", "fedora".
	IDLike []string
	// VersionID is e.g. "9.6" or "24.04"; empty on rolling releases.
	VersionID string
	// PrettyName is e.g. "Rocky Linux 9.6 (Blue Onyx)".
	PrettyName string
}

// Family returns the package family of the distribution: that of ID, else of
// the first ID_LIKE word that has one; ok is false for a distribution of
// neither family.
func (o OSRelease) Family() (family string, ok bool) {
	for _, id := range append([]string{o.ID}, o.IDLike...) {
		if f, ok := familyOf[id]; ok {
			return f, true
		}
	}
	return "", false
}

// String names the distribution for messages: PRETTY_NAME, else ID and
// VERSION_ID.
func (o OSRelease) String() string {
	if o.PrettyName != "" {
		return o.PrettyName
	}
	return strings.TrimSpace(o.ID + " " + o.VersionID)
}

// OSReleaseCommand prints /etc/os-release, or /usr/lib/os-release where the
// former does not exist, as os-release(5) says to read them.
var OSReleaseCommand = shell.Or(shell.New("cat", "/etc/os-release"), shell.New("cat", "/usr/lib/os-release"))

// ParseOSRelease reads an os-release file: KEY=VALUE lines, values bare or
// in single or double quotes (double-quoted ones with backslash escapes of
// $ " \ and `), "#" comments and blank lines. A file without ID is an error:
// os-release(5) defaults it to "linux", which says nothing of the packages.
func ParseOSRelease(out string) (OSRelease, error) {
	const fact = "os-release"
	var o OSRelease
	for i, line := range lines(out) {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		key, raw, ok := strings.Cut(t, "=")
		if !ok || key == "" || strings.ContainsAny(key, " \t") {
			return OSRelease{}, lineError(fact, i+1, line, "want KEY=VALUE")
		}
		val, err := unquoteOSRelease(raw)
		if err != nil {
			return OSRelease{}, lineError(fact, i+1, line, "%v", err)
		}
		switch key {
		case "ID":
			o.ID = val
		case "ID_LIKE":
			o.IDLike = strings.Fields(val)
		case "VERSION_ID":
			o.VersionID = val
		case "PRETTY_NAME":
			o.PrettyName = val
		}
	}
	if o.ID == "" {
		return OSRelease{}, fmt.Errorf("%s: no ID line", fact)
	}
	return o, nil
}

// unquoteOSRelease returns the value of an os-release assignment.
func unquoteOSRelease(raw string) (string, error) {
	if raw == "" {
		return "", nil
	}
	switch q := raw[0]; q {
	case '\'':
		v, ok := strings.CutSuffix(raw[1:], "'")
		if !ok || strings.Contains(v, "'") {
			return "", fmt.Errorf("unterminated single quote")
		}
		return v, nil
	case '"':
		var b strings.Builder
		s := raw[1:]
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\\' && i+1 < len(s) && strings.IndexByte("$\"\\`", s[i+1]) >= 0:
				b.WriteByte(s[i+1])
				i++
			case c == '"':
				if i != len(s)-1 {
					return "", fmt.Errorf("text after the closing quote")
				}
				return b.String(), nil
			default:
				b.WriteByte(c)
			}
		}
		return "", fmt.Errorf("unterminated double quote")
	}
	if strings.ContainsAny(raw, " \t\"'`$\\") {
		return "", fmt.Errorf("an unquoted value with blanks or shell characters")
	}
	return raw, nil
}

// OSReleaseProbe is the operating system probe.
var OSReleaseProbe = Probe[OSRelease]{Name: "os-release", Command: OSReleaseCommand, Parse: ParseOSRelease}
