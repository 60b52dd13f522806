package host

import (
	"slices"
	"strings"
)

// Want is what a task needs read of a host: facts (by [FactID]) plus the
// files whose content, mode and owner it compares. The zero value wants
// nothing. A Want is a value; its methods return new ones.
type Want struct {
	bits  uint32
	files []string // sorted, unique
}

// WantFacts returns the Want of the given facts.
func WantFacts(ids ...FactID) Want {
	var s Want
	for _, f := range ids {
		if f < numFactIDs {
			s.bits |= 1 << f
		}
	}
	return s
}

// AllFacts returns the Want of every fact (no files): what roce_host_facts reads.
func AllFacts() Want { return Want{bits: 1<<numFactIDs - 1} }

// Has reports whether s wants f.
func (s Want) Has(f FactID) bool { return f < numFactIDs && s.bits&(1<<f) != 0 }

// IDs returns the facts of s in their declaration order.
func (s Want) IDs() []FactID {
	var out []FactID
	for f := range numFactIDs {
		if s.Has(f) {
			out = append(out, f)
		}
	}
	return out
}

// WithFiles returns s plus the files at paths (absolute).
func (s Want) WithFiles(paths ...string) Want {
	return s.Union(Want{files: sortedUnique(paths)})
}

// Files returns the files of s, sorted.
func (s Want) Files() []string { return slices.Clone(s.files) }

// Union returns the facts and files of s and o.
func (s Want) Union(o Want) Want {
	return Want{bits: s.bits | o.bits, files: sortedUnique(append(slices.Clone(s.files), o.files...))}
}

// Empty reports whether s asks for nothing.
func (s Want) Empty() bool { return s.bits == 0 && len(s.files) == 0 }

// String lists the facts and files of s, e.g. "lsmod,file /etc/nccl.conf".
func (s Want) String() string {
	var parts []string
	for _, f := range s.IDs() {
		parts = append(parts, f.String())
	}
	for _, p := range s.files {
		parts = append(parts, fileLabel(p))
	}
	return strings.Join(parts, ",")
}

// withDependencies adds the facts that reading s needs: the mlnx_qos loop
// skips VFs, which the netdev fact lists with the reason.
func (s Want) withDependencies() Want {
	if s.Has(FactQoS) {
		s.bits |= 1 << FactNetdevs
	}
	return s
}

func sortedUnique(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	out := slices.Clone(ss)
	slices.Sort(out)
	return slices.Compact(out)
}

// fileLabel names the fact of one file in errors and in [Facts.Absent].
func fileLabel(path string) string { return "file " + path }
