package host

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

// hostilePath is a file path that a shell would expand in many ways.
const hostilePath = `/etc/roce test/it's "$(touch pwned)" ` + "`id`" + ` ; $HOME & *.conf`

// The gather script is pinned byte for byte, quoting included.
// renderGather returns the gather script of steps as a line.
func renderGather(steps []step) (string, error) { return gatherCommand(steps).Render() }

func TestGatherScriptGolden(t *testing.T) {
	steps, err := gatherSteps(AllFacts().WithFiles(hostilePath, "/etc/nccl.conf").withDependencies())
	if err != nil {
		t.Fatal(err)
	}
	script, err := renderGather(steps)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "gather_all.sh.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(script+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), script+"\n"); diff != "" {
		t.Errorf("gather script (-%s +got):\n%s", golden, diff)
	}
	// It is valid POSIX sh, and valid for the login shells of the hosts.
	for _, sh := range []string{"/bin/sh", "/bin/dash", "/bin/bash", "/bin/busybox"} {
		if _, err := os.Stat(sh); err != nil {
			continue
		}
		args := []string{"-n", "-c", script}
		if filepath.Base(sh) == "busybox" {
			args = append([]string{"sh"}, args...)
		}
		if out, err := exec.Command(sh, args...).CombinedOutput(); err != nil {
			t.Errorf("%s -n: %v: %s", sh, err, out)
		}
	}
}

// Each fact in the order of the FactID constants, files after them.
func TestGatherStepsOrder(t *testing.T) {
	steps, err := gatherSteps(WantFacts(FactPackages, FactOFED).WithFiles("/b", "/a"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range steps {
		got = append(got, s.label)
	}
	want := []string{"ofed_info", "dpkg-query", "file /a", "file /b"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
}
