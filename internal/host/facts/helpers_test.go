package facts

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// fixture returns the content of testdata/name.
func fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// addSeeds adds the named fixtures and a few generic troublemakers to a fuzz
// corpus.
func addSeeds(f *testing.F, names ...string) {
	f.Helper()
	for _, n := range names {
		f.Add(fixture(f, n))
	}
	for _, s := range []string{"", "\n", "\x1b[", "\x1b]", ":", "\t\t\t", "\x00", "\xff\xfe", "a:b:c\n\td:e"} {
		f.Add(s)
	}
}

// wantParseError fails the test unless err is a *ParseError naming fact.
func wantParseError(t *testing.T, err error, fact string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error = %v (%T), want *ParseError", err, err)
	}
	if pe.Fact != fact {
		t.Errorf("ParseError.Fact = %q, want %q", pe.Fact, fact)
	}
	if pe.Error() == "" {
		t.Error("empty error text")
	}
}
