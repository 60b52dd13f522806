package fabric

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/go-version"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// NCCLSetting is one NCCL variable and its value.
type NCCLSetting struct {
	Name, Value string
}

var (
	ncclKeyRE = regexp.MustCompile(`^NCCL_[A-Z0-9_]+$`)
	// ncclCommentsSince is the first NCCL that skips '#' lines in nccl.conf;
	// older versions define a junk variable named "#...".
	ncclCommentsSince = version.Must(version.NewVersion("2.26"))
)

// RenderNCCLConf renders settings as /etc/nccl.conf exactly as NCCL parses
// it: one "KEY=value" line per setting in the given order, no quotes, no
// export, no spaces. header becomes "# " comment lines only when
// ncclVersion (the installed NCCL, e.g. "2.26.2-1+cuda12.8") is 2.26 or
// later; an empty ncclVersion means unknown and omits it. Values are not
// checked against NCCLVars; use ValidateNCCLValue for that.
func RenderNCCLConf(settings []NCCLSetting, ncclVersion string, header string) (string, error) {
	if err := checkSettings(settings); err != nil {
		return "", err
	}
	comments, err := ncclSupportsComments(ncclVersion)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if comments && header != "" {
		if err := writeHeader(&b, header); err != nil {
			return "", err
		}
	}
	for _, s := range settings {
		b.WriteString(s.Name + "=" + s.Value + "\n")
	}
	return b.String(), nil
}

// ValidateNCCLVersion checks an installed NCCL version as RenderNCCLConf reads it
// ("2.26.2", "2.26.2-1+cuda12.8"); an empty version (unknown) is valid.
func ValidateNCCLVersion(ncclVersion string) error {
	_, err := ncclSupportsComments(ncclVersion)
	return err
}

// ValidateNCCLName checks a variable name as RenderNCCLConf does: NCCL_ followed by
// upper-case letters, digits and underscores, at most 1023 bytes.
func ValidateNCCLName(name string) error {
	if !ncclKeyRE.MatchString(name) {
		return fmt.Errorf("variable name %q is invalid: use NCCL_ followed by upper-case letters, digits and underscores", name)
	}
	if len(name) > ncclMaxLen {
		return fmt.Errorf("variable name %.40q... is %d bytes long: NCCL keeps at most %d", name, len(name), ncclMaxLen)
	}
	return nil
}

// ncclSupportsComments reports whether the NCCL version's core (pre-release
// and build suffixes dropped) is at least 2.26.
func ncclSupportsComments(ncclVersion string) (bool, error) {
	if ncclVersion == "" {
		return false, nil
	}
	v, err := version.NewVersion(ncclVersion)
	if err != nil {
		return false, fmt.Errorf("nccl version %q is not a version: use a form such as 2.26.2", ncclVersion)
	}
	return v.Core().GreaterThanOrEqual(ncclCommentsSince), nil
}

func writeHeader(b *strings.Builder, header string) error {
	if strings.ContainsAny(header, "\r\x00") {
		return fmt.Errorf("header %q contains a carriage return or NUL: remove it", header)
	}
	for _, line := range strings.Split(strings.TrimSuffix(header, "\n"), "\n") {
		b.WriteString(strings.TrimRight("# "+line, " ") + "\n")
	}
	return nil
}

// checkSettings enforces what both renderings need: NCCL_[A-Z0-9_]+ names
// of at most 1023 bytes, each once, and values that fit on one line.
func checkSettings(settings []NCCLSetting) error {
	seen := map[string]bool{}
	for _, s := range settings {
		if err := ValidateNCCLName(s.Name); err != nil {
			return err
		}
		if seen[s.Name] {
			return fmt.Errorf("variable %s is set twice: keep one setting", s.Name)
		}
		seen[s.Name] = true
		if err := checkLineValue(s.Value); err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	return nil
}

// RenderNCCLProfileScript renders settings as an /etc/profile.d script of
// "export KEY=value" lines quoted by internal/shell, for shells
// that need the variables. It applies the same name and value rules as
// RenderNCCLConf so both files always agree.
func RenderNCCLProfileScript(settings []NCCLSetting) (string, error) {
	if err := checkSettings(settings); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, s := range settings {
		b.WriteString("export " + s.Name + "=" + shell.Quote(s.Value) + "\n")
	}
	return b.String(), nil
}
