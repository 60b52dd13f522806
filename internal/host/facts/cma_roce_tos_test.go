package facts

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCMARoCETos(t *testing.T) {
	got, err := ParseCMARoCETos("mlx5_0 106\nmlx5_1 0\n\n")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]int{"mlx5_0": 106, "mlx5_1": 0}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, bad := range []string{"mlx5_0\n", "mlx5_0 x\n", "mlx5_0 256\n", "mlx5_0 -1\n", "mlx5_0 1 2\n", "mlx5_0 1\nmlx5_0 2\n"} {
		_, err := ParseCMARoCETos(bad)
		wantParseError(t, err, "cma_roce_tos")
	}
}

// cmaTosRun runs the cma_roce_tos script against a fake device tree with
// tool as cma_roce_tos on the PATH (none when empty).
func cmaTosRun(t *testing.T, devs []string, tool string) (stdout, stderr string, status int) {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "infiniband")
	for _, d := range devs {
		writeFile(t, filepath.Join(root, d, "ports", "1", "state"), "4: ACTIVE\n")
	}
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if tool != "" {
		if err := os.WriteFile(filepath.Join(bin, "cma_roce_tos"), []byte("#!/bin/sh\n"+tool), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := strings.ReplaceAll(CMARoCETosScript().String(), "/sys/class/infiniband", root)
	cmd := exec.Command("/bin/sh", "-c", script)
	// tail, printf and sh come from /usr/bin and /bin; cma_roce_tos only
	// from bin.
	cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin"}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		status = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return o.String(), e.String(), status
}

func TestCMARoCETosScript(t *testing.T) {
	// The runs' PATH is the stand-in's directory, /usr/bin and /bin; mlnx-tools installs the
	// real tool in /usr/sbin (Mellanox/mlnx-tools, its package file list), which the runs do
	// not see.
	for _, dir := range []string{"/usr/bin", "/bin"} {
		if _, err := os.Stat(filepath.Join(dir, "cma_roce_tos")); err == nil {
			t.Fatalf("%s/cma_roce_tos exists: the test's PATH (its stand-in, /usr/bin, /bin) would find it where the stand-in is meant to be missing", dir)
		}
	}
	devs := []string{"mlx5_0", "mlx5_1"}
	// The tool as mlnx-tools ships it: no -t prints the value.
	const reads = `while getopts d:t:p: a; do case $a in d) d=$OPTARG;; esac; done
case $d in mlx5_0) echo 106;; *) echo 0;; esac
`
	out, errOut, st := cmaTosRun(t, devs, reads)
	if out != "mlx5_0 106\nmlx5_1 0\n" || st != 0 || errOut != "" {
		t.Errorf("reads: %q %q %d", out, errOut, st)
	}
	if got, err := CMARoCETosProbe.Parse(out); err != nil || got["mlx5_0"] != 106 {
		t.Errorf("parse: %v, %v", got, err)
	}

	out, errOut, st = cmaTosRun(t, devs, "")
	if out != "" || st != 127 || errOut != "cma_roce_tos: command not found\n" {
		t.Errorf("missing tool: %q %q %d", out, errOut, st)
	}
	// The host twin's stand-in without OFED, like a wrapper whose tool is gone.
	out, errOut, st = cmaTosRun(t, devs, "echo 'cma_roce_tos: command not found' >&2; exit 127\n")
	if out != "" || st != 127 || errOut != "cma_roce_tos: command not found\n" {
		t.Errorf("tool says not found: %q %q %d", out, errOut, st)
	}
	// Not root: mlnx-tools prints its refusal on stdout and exits 1.
	out, errOut, st = cmaTosRun(t, devs, "echo 'You must be root to run this'; exit 1\n")
	if out != "" || st != 1 || !strings.HasSuffix(errOut, "cma_roce_tos -d mlx5_1: You must be root to run this\n") {
		t.Errorf("not root: %q %q %d", out, errOut, st)
	}
	// One device failing leaves it out; the fact is still read.
	out, errOut, st = cmaTosRun(t, devs, `[ "$2" = mlx5_1 ] && { echo "Device $2 port 1 does not exist"; exit 1; }; echo 96`+"\n")
	if out != "mlx5_0 96\n" || st != 0 || errOut != "cma_roce_tos -d mlx5_1: Device mlx5_1 port 1 does not exist\n" {
		t.Errorf("one failing: %q %q %d", out, errOut, st)
	}
	out, _, st = cmaTosRun(t, nil, reads)
	if out != "" || st != 0 {
		t.Errorf("no devices: %q %d", out, st)
	}
}
