package provider

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi/gnmitest"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// TestScaleOutOnePodPerState applies examples/scale-out as two pods, each a workspace with a
// state of its own and a SONiC leaf of its own, at the same time through the real CLI: each
// state holds its own pod only, both leaves get the one fabric policy, and a change of
// policy.tf is planned in each pod's state and reaches a pod's switch only when that pod is
// applied (read on the switches, not in the states).
func TestScaleOutOnePodPerState(t *testing.T) {
	pki, files := gnmitest.PKIFiles(t)
	pods := []string{"pod-a", "pod-b"}
	leaves := map[string]*switchFixture{}
	for _, pod := range pods {
		leaves[pod] = newSwitchFixtureWithPKI(t, switchtwin.Options{Ports: 8}, pki, files)
	}
	examples := copyExamples(t, "scale-out", filepath.Join("modules", "rail-optimized-pod"))
	root := filepath.Join(examples, "scale-out")
	cli := newTerraformCLIIn(t, root)
	if out, code := cli.run("get"); code != 0 {
		t.Fatalf("terraform get failed:\n%s", out)
	}
	for _, pod := range pods {
		writeJSON(t, filepath.Join(root, "pods", pod+".tfvars.json"), map[string]any{
			"switches": []map[string]any{{
				"name": pod + "-leaf1", "address": leaves[pod].addr, "sonic_release": "202411",
				"ports": []string{"Ethernet0", "Ethernet4"},
			}},
			"gnmi": map[string]any{"username": twinUser, "password": twinPassword, "ca_file": files.CA},
		})
		if out, code := cli.run("workspace", "new", pod); code != 0 {
			t.Fatalf("terraform workspace new %s failed:\n%s", pod, out)
		}
	}
	podCLI := func(t *testing.T, pod string) *terraformCLI {
		return &terraformCLI{t: t, dir: root, env: append(slices.Clone(cli.env), "TF_WORKSPACE="+pod)}
	}
	varFile := func(pod string) string { return "-var-file=" + filepath.Join("pods", pod+".tfvars.json") }

	// Each pod is its own CI job: both apply at once.
	t.Run("apply", func(t *testing.T) {
		for _, pod := range pods {
			t.Run(pod, func(t *testing.T) {
				t.Parallel()
				c := podCLI(t, pod)
				if out, code := c.run("apply", "-auto-approve", "-input=false", varFile(pod)); code != 0 {
					t.Fatalf("apply failed:\n%s", out)
				}
				if out, code := c.run("plan", "-detailed-exitcode", "-input=false", varFile(pod)); code != 0 {
					t.Fatalf("second plan is not empty (exit %d):\n%s", code, out)
				}
			})
		}
	})
	if t.Failed() {
		return
	}
	for _, pod := range pods {
		out, code := podCLI(t, pod).run("state", "list")
		if code != 0 {
			t.Fatalf("state list of %s failed:\n%s", pod, out)
		}
		want := `module.pod.roce_switch_qos.leaf["` + pod + `-leaf1"]`
		if got := strings.Fields(out); !slices.Equal(got, []string{want}) {
			t.Errorf("state of %s holds %q, want its own leaf only (%s)", pod, got, want)
		}
		if got := switchECNMin(t, leaves[pod], "Ethernet0"); got != "102400" {
			t.Errorf("%s's leaf marks ECN from %s bytes, want the fabric policy's 102400", pod, got)
		}
	}

	// The policy changes in one place; pod-a takes it first, pod-b keeps the old one until its
	// own apply.
	policy := filepath.Join(root, "policy.tf")
	src, err := os.ReadFile(policy)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(src), "min_threshold_bytes = 102400", "min_threshold_bytes = 112640", 1)
	if changed == string(src) {
		t.Fatal("policy.tf has no min_threshold_bytes = 102400 to change")
	}
	if err := os.WriteFile(policy, []byte(changed), 0o600); err != nil {
		t.Fatal(err)
	}
	a, b := podCLI(t, "pod-a"), podCLI(t, "pod-b")
	out, code := a.run("plan", "-detailed-exitcode", "-input=false", varFile("pod-a"))
	if code != 2 || !strings.Contains(out, `roce_switch_qos.leaf["pod-a-leaf1"] will be updated in-place`) || strings.Contains(out, "pod-b") {
		t.Fatalf("pod-a's plan of the new policy (exit %d) should update pod-a-leaf1 and name nothing of pod-b:\n%s", code, out)
	}
	if out, code := a.run("apply", "-auto-approve", "-input=false", varFile("pod-a")); code != 0 {
		t.Fatalf("pod-a apply of the new policy failed:\n%s", out)
	}
	if got := switchECNMin(t, leaves["pod-a"], "Ethernet0"); got != "112640" {
		t.Errorf("pod-a's leaf marks ECN from %s bytes after its apply, want 112640", got)
	}
	if got := switchECNMin(t, leaves["pod-b"], "Ethernet0"); got != "102400" {
		t.Errorf("pod-b's leaf changed to %s bytes with pod-a's apply; it should wait for its own", got)
	}
	if out, code := b.run("plan", "-detailed-exitcode", "-input=false", varFile("pod-b")); code != 2 {
		t.Fatalf("pod-b's plan should still show the new policy to apply (exit %d):\n%s", code, out)
	}
	if out, code := b.run("apply", "-auto-approve", "-input=false", varFile("pod-b")); code != 0 {
		t.Fatalf("pod-b apply of the new policy failed:\n%s", out)
	}
	if got := switchECNMin(t, leaves["pod-b"], "Ethernet0"); got != "112640" {
		t.Errorf("pod-b's leaf marks ECN from %s bytes after its apply, want 112640", got)
	}
}
