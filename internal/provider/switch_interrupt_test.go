package provider

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// TestSwitchQoSInterruptedCreate presses Ctrl-C while the first apply's SetRequest is in
// flight on a switch that applies it only after the client has given up, as SONiC's GCU does.
// The resource must be saved tainted with the switch's original values, the next apply must
// replace it (its destroy restores them, and the plan made before that destroy stays valid),
// and destroy must leave CONFIG_DB exactly as it was: the stock AZURE maps on the ports.
func TestSwitchQoSInterruptedCreate(t *testing.T) {
	f := newSwitchFixture(t, switchtwin.Options{})
	before := f.twin.Snapshot()
	cli := newTerraformCLI(t, map[string]string{
		"main.tf": "terraform {\n  required_providers {\n    roce = { source = \"clusterbid/roce\" }\n  }\n}\n" +
			f.config(leafConfig, f.addr, 102400, 256000),
	})

	release := f.twin.HoldSets()
	out, code := cli.interrupt(func() bool { return f.twin.SlowSetsWaiting() == 1 }, "apply", "-auto-approve", "-input=false")
	if code == 0 || !strings.Contains(out, "Unable to Apply Switch QoS") || !strings.Contains(out, "tainted") {
		t.Fatalf("interrupted apply: exit %d, want a failure saying the resource is saved tainted:\n%s", code, out)
	}
	release() // the switch now applies the Set its client gave up on
	if got := f.entry("PORT_QOS_MAP", "Ethernet0")["dscp_to_tc_map"]; got != "ROCE" {
		t.Fatalf("the held Set did not apply: PORT_QOS_MAP|Ethernet0 dscp_to_tc_map = %q", got)
	}
	if out, _ := cli.run("show"); !strings.Contains(out, "roce_switch_qos.leaf1: (tainted)") {
		t.Fatalf("the interrupted create is not in state as tainted:\n%s", out)
	}

	out, code = cli.run("apply", "-auto-approve", "-input=false")
	if code != 0 || !strings.Contains(out, "must be replaced") {
		t.Fatalf("apply after the interrupt: exit %d, want the tainted resource replaced:\n%s", code, out)
	}
	if err := f.checkLeafApplied(nil); err != nil {
		t.Fatal(err)
	}
	if out, code := cli.run("plan", "-detailed-exitcode", "-input=false"); code != 0 {
		t.Fatalf("plan after the replacement is not empty (exit %d):\n%s", code, out)
	}
	if out, code := cli.run("destroy", "-auto-approve", "-input=false"); code != 0 {
		t.Fatalf("destroy failed:\n%s", out)
	}
	if diff := cmp.Diff(before, f.twin.Snapshot()); diff != "" {
		t.Errorf("destroy did not restore the switch's original config (-before +after):\n%s", diff)
	}
}

// interrupt runs terraform with args, sends it SIGINT (Ctrl-C) once ready reports true, and
// returns its output and exit code. ready is polled, since the twin has nothing to wait on;
// the run fails the test if terraform has not exited two minutes after the start.
func (c *terraformCLI) interrupt(ready func() bool, args ...string) (string, int) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Getenv("TF_ACC_TERRAFORM_PATH"), append(args, "-no-color")...)
	cmd.Dir, cmd.Env = c.dir, c.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !ready() {
		select {
		case err := <-done:
			c.t.Fatalf("terraform %v ended before it could be interrupted (%v):\n%s", args, err, out.String())
		case <-ctx.Done():
			c.t.Fatalf("terraform %v: not ready to interrupt after 2 minutes:\n%s", args, out.String())
		case <-tick.C:
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		c.t.Fatal(err)
	}
	err := <-done
	if ctx.Err() != nil {
		c.t.Fatalf("terraform %v did not exit within 2 minutes of the start:\n%s", args, out.String())
	}
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		c.t.Fatal(err)
	}
	return out.String(), code
}
