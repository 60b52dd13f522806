package host

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// rdmaStateFacts are the facts of the DCQCN and host QoS state.
var rdmaStateFacts = WantFacts(FactCCParams, FactTrafficClass, FactCMARoCETos, FactNVConfig)

// onGatherPath reports whether tool is on the PATH the gather script uses.
func onGatherPath(tool string) bool {
	if _, err := exec.LookPath(tool); err == nil {
		return true
	}
	for _, d := range []string{"/usr/local/sbin", "/usr/sbin", "/sbin"} {
		if _, err := os.Stat(filepath.Join(d, tool)); err == nil {
			return true
		}
	}
	return false
}

// On a machine without ConnectX NICs or their tools the RDMA state facts are
// read as empty or absent with a reason; the gather does not fail.
func TestGatherRDMAStateLocal(t *testing.T) {
	f, err := Gather(context.Background(), localRunner{}, rdmaStateFacts)
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	for _, fact := range rdmaStateFacts.IDs() {
		if !f.Has(fact) && f.Absent[fact.String()] == "" {
			t.Errorf("%s neither read nor absent with a reason", fact)
		}
	}
	if f.CCParams == nil || f.TrafficClass == nil || f.CMARoCETos == nil || f.NVConfig == nil {
		t.Errorf("gathered maps are nil: %+v", f)
	}
	if _, err := os.Stat("/sys/class/infiniband"); err != nil && (!f.Has(FactTrafficClass) || len(f.TrafficClass) != 0) {
		t.Errorf("traffic_class without RDMA devices: %v, absent %q", f.TrafficClass, f.Absent["traffic_class"])
	}
	if !onGatherPath("mlxconfig") {
		if got := f.Absent["mlxconfig"]; got != "exit status 127: mlxconfig: command not found" {
			t.Errorf("mlxconfig absent = %q", got)
		}
	}
	if !onGatherPath("cma_roce_tos") {
		if got := f.Absent["cma_roce_tos"]; got != "exit status 127: cma_roce_tos: command not found" {
			t.Errorf("cma_roce_tos absent = %q", got)
		}
	}
	if _, err := os.Stat("/sys/kernel/debug/mlx5"); err != nil && os.Geteuid() == 0 {
		if got := f.Absent["cc_params"]; !strings.Contains(got, "/sys/kernel/debug/mlx5 does not exist") {
			t.Errorf("cc_params absent = %q", got)
		}
	}
}

// unprivilegedRunner runs the commands of localRunner as nobody.
type unprivilegedRunner struct{ localRunner }

func (u unprivilegedRunner) Run(ctx context.Context, cmd shell.Runnable, opts ssh.RunOptions) (ssh.Result, error) {
	line, err := cmd.Render()
	if err != nil {
		return ssh.Result{}, err
	}
	return u.localRunner.Run(ctx, shell.New("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sh", "-c", line), opts)
}

// Without root the debugfs cc_params are absent with the reason.
func TestGatherCCParamsNeedsRoot(t *testing.T) {
	if testing.Short() {
		t.Skip("needs root: left out of the fast tier (-short, make unit); make test runs it")
	}
	if os.Geteuid() != 0 {
		t.Fatal("needs root to drop privileges with setpriv: run the tests as root")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Fatal("needs setpriv (package util-linux)")
	}
	f, err := Gather(context.Background(), unprivilegedRunner{}, WantFacts(FactCCParams))
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	want := "exit status 1: debugfs cc_params can be read by root only: gather as root or with sudo"
	if got := f.Absent["cc_params"]; got != want || f.Has(FactCCParams) || f.CCParams == nil {
		t.Errorf("cc_params absent = %q (map %v), want %q", got, f.CCParams, want)
	}
}
