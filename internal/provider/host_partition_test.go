package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin/hosttwintest"
)

// TestPartitionMidApply: the host's network goes away while the apply runs a command on it
// (the twin's modprobe is held). With a short ssh.keepalive_interval the apply fails within
// seconds naming the host, and once the link is back the next apply converges.
func TestPartitionMidApply(t *testing.T) {
	f := hosttwintest.Start(t, hosttwin.Options{Hosts: []hosttwin.HostSpec{{Name: "cutoff", Profile: "cx7"}}, Network: true})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	addr := twinAddress(t, f, "cutoff")
	cli := newTerraformCLI(t, map[string]string{
		"main.tf": fmt.Sprintf(`
terraform {
  required_providers {
    roce = { source = "clusterbid/roce" }
  }
}

provider "roce" {
  ssh = {
    user               = "root"
    private_key_file   = %q
    known_hosts_file   = %q
    keepalive_interval = "300ms"
  }
}

resource "roce_host_bootstrap" "gpu" {
  host      = %q
  gpudirect = "peermem"
}
`, f.UserKeyFile(), f.KnownHostsFile(), addr),
	})
	if err := f.HoldTool("cutoff", "modprobe"); err != nil {
		t.Fatal(err)
	}
	type result struct {
		out  string
		code int
	}
	done := make(chan result, 1)
	go func() {
		out, code := cli.run("apply", "-auto-approve")
		done <- result{out, code}
	}()
	if err := f.WaitHeld(ctx, "cutoff", "modprobe"); err != nil {
		t.Fatal(err)
	}
	if err := f.LinkDown(ctx, "cutoff"); err != nil {
		t.Fatal(err)
	}
	cut := time.Now()
	if err := f.ReleaseTool("cutoff", "modprobe"); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		t.Fatal("the apply did not notice the partition")
	}
	took := time.Since(cut)
	t.Logf("apply failed %v after the cut (exit %d)", took.Round(time.Millisecond), r.code)
	if r.code == 0 || !strings.Contains(r.out, addr) {
		t.Fatalf("apply across a partition (exit %d) should fail naming %s:\n%s", r.code, addr, r.out)
	}
	// Three keepalive intervals, and Terraform's own exit; generous for a loaded machine.
	if took > 30*time.Second {
		t.Errorf("the apply failed %v after the link went down", took)
	}
	if err := f.LinkUp(ctx, "cutoff"); err != nil {
		t.Fatal(err)
	}
	if out, code := cli.run("apply", "-auto-approve"); code != 0 {
		t.Fatalf("apply after the link came back:\n%s", out)
	}
	if out, code := cli.run("plan", "-detailed-exitcode"); code != 0 {
		t.Fatalf("plan after recovery is not empty (exit %d):\n%s", code, out)
	}
}
