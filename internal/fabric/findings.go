package fabric

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Severity says whether a Finding blocks a plan or only advises.
type Severity int

const (
	// SeverityError marks a violation that makes the configuration unusable.
	SeverityError Severity = iota
	// SeverityWarning marks a configuration that works but is probably not what the user wants.
	SeverityWarning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == SeverityWarning {
		return "warning"
	}
	return "error"
}

// Finding is one rule violation. Path names the attribute it concerns in the
// provider's schema: dot-separated attribute names with [i] for list
// elements, e.g. "ecn.min_threshold_bytes", "rdma.dscp[1]", "cnp.priority".
// Summary is a short Title Case phrase; Detail states the numbers and the fix.
type Finding struct {
	Severity Severity
	Path     string
	Summary  string
	Detail   string
}

// String renders the finding on one line as "severity: path: summary: detail".
func (f Finding) String() string {
	s := f.Severity.String() + ": " + f.Path + ": " + f.Summary
	if f.Detail != "" {
		s += ": " + f.Detail
	}
	return s
}

// Findings is the result of a rule check, in the order the rules ran.
type Findings []Finding

// HasErrors reports whether any finding is an error.
func (fs Findings) HasErrors() bool {
	for _, f := range fs {
		if f.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Errors returns the error findings, or nil when there are none.
func (fs Findings) Errors() Findings {
	return fs.filter(SeverityError)
}

// Warnings returns the warning findings, or nil when there are none.
func (fs Findings) Warnings() Findings {
	return fs.filter(SeverityWarning)
}

func (fs Findings) filter(s Severity) Findings {
	var out Findings
	for _, f := range fs {
		if f.Severity == s {
			out = append(out, f)
		}
	}
	return out
}

// Prefix returns a copy of the findings with p + "." prepended to every Path,
// for nesting a block's findings under its parent attribute. An empty p
// leaves the paths unchanged; an empty Path becomes p.
func (fs Findings) Prefix(p string) Findings {
	if fs == nil {
		return nil
	}
	out := make(Findings, len(fs))
	for i, f := range fs {
		switch {
		case p == "":
		case f.Path == "":
			f.Path = p
		default:
			f.Path = p + "." + f.Path
		}
		out[i] = f
	}
	return out
}

// Rename returns a copy of the findings with attribute names replaced, for a
// caller whose schema names a rule's attributes differently (a resource with
// a scalar "rdma_dscp" instead of the list "rdma.dscp"). names maps a name
// this package uses to the caller's. A Path is renamed when it is a name or
// starts with one followed by "[" or "."; in a Detail every whole name is
// replaced (not a part of a longer name), so the text names the same
// attribute as the Path. Longer names win over their prefixes.
func (fs Findings) Rename(names map[string]string) Findings {
	if fs == nil || len(names) == 0 {
		return fs
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	out := make(Findings, len(fs))
	for i, f := range fs {
		f.Path = renamePath(f.Path, keys, names)
		f.Detail = renameText(f.Detail, keys, names)
		out[i] = f
	}
	return out
}

func renamePath(p string, keys []string, names map[string]string) string {
	for _, k := range keys {
		if rest, ok := strings.CutPrefix(p, k); ok && (rest == "" || rest[0] == '[' || rest[0] == '.') {
			return names[k] + rest
		}
	}
	return p
}

// renameText replaces the whole names in s in one pass, so a replacement is never renamed again.
func renameText(s string, keys []string, names map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if i == 0 || !isNameByte(s[i-1]) {
			if k, ok := nameAt(s[i:], keys); ok {
				b.WriteString(names[k])
				i += len(k)
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

func nameAt(s string, keys []string) (string, bool) {
	for _, k := range keys {
		if strings.HasPrefix(s, k) && (len(s) == len(k) || !isNameByte(s[len(k)])) {
			return k, true
		}
	}
	return "", false
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Err returns nil when there are no error findings, otherwise one error
// joining the detail of each error finding (warnings are left out). Every
// detail in this package names its attribute, so the text stands alone.
func (fs Findings) Err() error {
	var errs []error
	for _, f := range fs.Errors() {
		errs = append(errs, errors.New(f.Detail))
	}
	return errors.Join(errs...)
}

func errorf(path, summary, format string, args ...any) Finding {
	return Finding{Severity: SeverityError, Path: path, Summary: summary, Detail: fmt.Sprintf(format, args...)}
}

func warnf(path, summary, format string, args ...any) Finding {
	return Finding{Severity: SeverityWarning, Path: path, Summary: summary, Detail: fmt.Sprintf(format, args...)}
}

// checkRange returns an error finding when v is outside lo..hi.
func checkRange(path, what string, v, lo, hi int64) Findings {
	if v >= lo && v <= hi {
		return nil
	}
	return Findings{errorf(path, "Value Out of Range",
		"%s is %d; %s must be %d..%d: set a value in that range", path, v, what, lo, hi)}
}
