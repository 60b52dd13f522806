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

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
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

// TestSwitchQoSCreateTimeout gives the first apply a timeouts.create shorter than a switch
// that holds the SetRequest: the create stops at the deadline as on Ctrl-C, says which
// timeout it reached, and is saved tainted; destroy then restores the original config.
func TestSwitchQoSCreateTimeout(t *testing.T) {
	f := newSwitchFixture(t, switchtwin.Options{})
	before := f.twin.Snapshot()
	config := f.config(leafConfig, f.addr, 102400, 256000)
	const head = `resource "roce_switch_qos" "leaf1" {`
	if !strings.Contains(config, head) {
		t.Fatalf("no %s in the fixture's config:\n%s", head, config)
	}
	config = strings.Replace(config, head, head+"\n  timeouts {\n    create = \"2s\"\n  }", 1)
	cli := newTerraformCLI(t, map[string]string{
		"main.tf": "terraform {\n  required_providers {\n    roce = { source = \"clusterbid/roce\" }\n  }\n}\n" + config,
	})
	release := f.twin.HoldSets()
	out, code := cli.run("apply", "-auto-approve", "-input=false")
	release()
	if code == 0 || !strings.Contains(out, "Operation Timed Out") || !strings.Contains(out, "timeouts.create") || !strings.Contains(out, "tainted") {
		t.Fatalf("apply past timeouts.create: exit %d, want the timeout named and the resource saved tainted:\n%s", code, out)
	}
	if out, _ := cli.run("show"); !strings.Contains(out, "roce_switch_qos.leaf1: (tainted)") {
		t.Fatalf("the timed-out create is not in state as tainted:\n%s", out)
	}
	if out, code := cli.run("destroy", "-auto-approve", "-input=false"); code != 0 {
		t.Fatalf("destroy failed:\n%s", out)
	}
	if diff := cmp.Diff(before, f.twin.Snapshot()); diff != "" {
		t.Errorf("destroy did not restore the switch's original config (-before +after):\n%s", diff)
	}
}

// TestSwitchQoSChangedSincePlan changes the switch behind a plan. A saved plan applied after
// the change fails in Terraform's final plan, which reads the switch again, with nothing sent.
// A change after that final read, as a second writer racing the apply makes, is refused by
// the apply itself, naming what the switch now needs, again with nothing sent; a new plan
// and apply then converge, and destroy restores the original config.
func TestSwitchQoSChangedSincePlan(t *testing.T) {
	f := newSwitchFixture(t, switchtwin.Options{})
	before := f.twin.Snapshot()
	tf := func(pause int) map[string]string {
		return map[string]string{"main.tf": "terraform {\n  required_providers {\n    roce = { source = \"clusterbid/roce\" }\n  }\n}\n" +
			f.config(leafConfig, f.addr, 102400, pause)}
	}
	cli := newTerraformCLI(t, tf(256000))
	must := func(args ...string) {
		t.Helper()
		if out, code := cli.run(args...); code != 0 {
			t.Fatalf("terraform %v:\n%s", args, out)
		}
	}
	must("apply", "-auto-approve", "-input=false")
	// Another writer moves a threshold the policy owns.
	otherWriter := func() sonic.Entry {
		wred := f.entry("WRED_PROFILE", "AZURE_LOSSLESS")
		wred["green_min_threshold"] = "51200"
		return wred
	}

	cli.write(tf(262144))
	must("plan", "-out=tfplan", "-input=false")
	f.twin.SetEntry("WRED_PROFILE", "AZURE_LOSSLESS", otherWriter())
	changed := f.twin.Snapshot()
	out, code := cli.run("apply", "-input=false", "tfplan")
	if code == 0 || !strings.Contains(out, "planned_operations") {
		t.Fatalf("apply of a stale saved plan: exit %d, want Terraform's final plan to refuse it:\n%s", code, out)
	}
	if diff := cmp.Diff(changed, f.twin.Snapshot()); diff != "" {
		t.Fatalf("the refused apply changed the switch (-before +after):\n%s", diff)
	}
	must("apply", "-auto-approve", "-input=false")

	// An apply reads the switch as a plan does (refresh and plan), then once more for the
	// final plan, then for the change itself: the other writer comes just before that.
	cli.write(tf(278528))
	f.twin.ResetStats()
	must("plan", "-input=false")
	gets := f.twin.Stats().RPCs["Get"]
	if gets < 2 {
		t.Fatalf("a plan made %d Gets, want the refresh's and the plan's", gets)
	}
	raced := f.twin.Snapshot()
	raced.SetEntry("WRED_PROFILE", "AZURE_LOSSLESS", otherWriter())
	f.twin.EditAfterGets(gets+1, "WRED_PROFILE", "AZURE_LOSSLESS", otherWriter())
	out, code = cli.run("apply", "-auto-approve", "-input=false")
	if code == 0 || !strings.Contains(out, "Switch Changed Since the Plan") || !strings.Contains(out, "green_min_threshold = 102400") {
		t.Fatalf("apply raced by another writer: exit %d, want the refusal naming the operation the switch now needs:\n%s", code, out)
	}
	if diff := cmp.Diff(raced, f.twin.Snapshot()); diff != "" {
		t.Fatalf("the refused apply changed the switch (-want +got):\n%s", diff)
	}
	must("apply", "-auto-approve", "-input=false")
	if got := f.entry("WRED_PROFILE", "AZURE_LOSSLESS")["green_min_threshold"]; got != "102400" {
		t.Errorf("after the new apply green_min_threshold = %q, want 102400", got)
	}
	must("destroy", "-auto-approve", "-input=false")
	if diff := cmp.Diff(before, f.twin.Snapshot()); diff != "" {
		t.Errorf("destroy did not restore the switch's original config (-before +after):\n%s", diff)
	}
}
