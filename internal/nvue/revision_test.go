package nvue

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDecodeStatusOfPublishedAnswers reads the revision answers of NVIDIA's API guide, in both
// shapes it prints them (testdata/SOURCES.md).
func TestDecodeStatusOfPublishedAnswers(t *testing.T) {
	for file, want := range map[string]struct{ state, progress, issue string }{
		"revision_applied.json":  {"applied", "", ""},
		"revision_invalid.json":  {"invalid", "Invalid config", "Config invalid at router.bgp.enable"},
		"revision_ays_fail.json": {"ays_fail", "Aborted apply after warnings", "Timeout while waiting for client response"},
	} {
		raw, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		st, err := decodeStatus(raw)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		issues := st.issues()
		if st.State != want.state || st.Transition.Progress != want.progress ||
			(want.issue == "") != (len(issues) == 0) || (len(issues) > 0 && !strings.Contains(issues[0].Message, want.issue)) {
			t.Errorf("%s: state %q progress %q issues %+v", file, st.State, st.Transition.Progress, issues)
		}
	}
}

func FuzzDecodeStatus(f *testing.F) {
	for _, name := range []string{"revision_applied.json", "revision_invalid.json", "revision_ays_fail.json"} {
		raw, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		st, err := decodeStatus(raw)
		if err == nil {
			_ = st.issues()
		}
	})
}
