package fabric

import (
	"errors"
	"fmt"
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
