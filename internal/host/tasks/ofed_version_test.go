package tasks

import (
	"testing"
)

func TestOFEDConstraint(t *testing.T) {
	tests := []struct {
		constraint, version string
		want                bool
	}{
		{"~> 25.10.0", "25.10-1.7.1", true},
		{"~> 25.10.0", "25.10-2.0.0", true},
		{"~> 25.10.0", "25.07-0.9.7", false},
		{"~> 25.10.0", "26.01-0.1.0", false},
		{"~> 25.10", "26.01-0.1.0", false}, // go-version: >= 25.10, < 26
		{"~> 25.10", "25.11-0.1.0", true},
		{">= 24.10-3.2.5.0", "24.10-3.2.5.0", true},
		{">= 24.10-3.2.5.0", "24.10-2.1.8.0", false},
		{">= 24.10-3.2.5.0, < 25.0", "24.10-4.1.4.0", true},
		{"= 25.10-1.7.1", "25.10-1.7.1", true},
		{"25.10-1.7.1", "25.10-1.7.10", false},
		{"!= 25.07-0.9.7", "25.07-0.9.7", false},
		// Read as go-version would without the rewrite, 25.10-1.7.1 is a
		// pre-release of 25.10 and fails ">= 25.10".
		{">= 25.10", "25.10-1.7.1", true},
	}
	for _, tt := range tests {
		cs, err := parseOFEDConstraint(tt.constraint)
		if err != nil {
			t.Errorf("parse %q: %v", tt.constraint, err)
			continue
		}
		v, err := parseOFEDVersion(tt.version)
		if err != nil {
			t.Errorf("parse %q: %v", tt.version, err)
			continue
		}
		if got := cs.Check(v); got != tt.want {
			t.Errorf("%q satisfies %q = %v, want %v", tt.version, tt.constraint, got, tt.want)
		}
	}
	for _, bad := range []string{"", ">=", "~> x", ">= 1.0,"} {
		if _, err := parseOFEDConstraint(bad); err == nil {
			t.Errorf("constraint %q parsed", bad)
		}
	}
	for _, bad := range []string{"25.10", "v25.10-1.7.1", "25.10-1.7.1:", "OFED-internal-25.10-1.7.1"} {
		if _, err := parseOFEDVersion(bad); err == nil {
			t.Errorf("version %q parsed", bad)
		}
	}
}

func TestVersionDirection(t *testing.T) {
	tests := []struct{ from, to, want string }{
		{"25.10-1.7.1", "25.07-0.9.7", "downgrade"},
		{"25.07-0.9.7", "25.10-1.7.1", "upgrade"},
		{"24.10-2.1.8.0", "24.10-3.2.5.0", "upgrade"},
		{"25.10-1.7.1", "25.10-1.7.10", "upgrade"},
		{"25.10.OFED.25.10.1.7.1.1", "25.07-0.9.7", "change"},
	}
	for _, tt := range tests {
		if got := versionDirection(tt.from, tt.to); got != tt.want {
			t.Errorf("versionDirection(%q, %q) = %q, want %q", tt.from, tt.to, got, tt.want)
		}
	}
}
