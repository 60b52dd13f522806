package tasks

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
)

// persistGPU is the Persistence most tests plan: tuned DCQCN and lossless
// QoS on every PF.
func persistGPU() Persistence {
	d, q := tunedDCQCN(), losslessQoS()
	return Persistence{ID: "gpu", DCQCN: &d, QoS: &q}
}

// rootFile is a root-owned regular file as the file fact reads it.
func rootFile(content string, mode os.FileMode) host.FileInfo {
	return host.FileInfo{
		Exists: true, Type: host.FileRegular, Mode: mode, Owner: "root", Group: "root",
		Size: int64(len(content)), SHA256: sha256Hex([]byte(content)), Content: []byte(content),
	}
}

// persistHost is roceHost with the files of p: installed or absent.
func persistHost(t *testing.T, p Persistence, installed bool) host.Facts {
	t.Helper()
	f := roceHost(t)
	for _, path := range []string{p.ScriptPath(), p.UnitPath(), p.RulePath()} {
		f.Files[path] = host.FileInfo{Path: path}
	}
	if !installed {
		return f
	}
	script, err := p.Script(f)
	if err != nil {
		t.Fatal(err)
	}
	f.Files[p.ScriptPath()] = rootFile(script, 0o755)
	f.Files[p.UnitPath()] = rootFile(p.UnitFile(), 0o644)
	f.Files[p.RulePath()] = rootFile(p.UdevRule(), 0o644)
	return f
}

func TestPersistenceFreshHost(t *testing.T) {
	p := persistGPU()
	f := persistHost(t, p, false)
	got, err := p.Plan(f)
	if err != nil {
		t.Fatal(err)
	}
	script, _ := p.Script(f)
	var lines [][]string
	var summaries []string
	for _, c := range actionable(got) {
		summaries = append(summaries, c.Summary)
		lines = append(lines, c.Apply.Lines())
	}
	wantSummaries := []string{
		"create /usr/local/sbin/roce-gpu-apply (" + strconv.Itoa(len(script)) + " bytes)",
		"create /etc/systemd/system/roce-gpu.service (" + strconv.Itoa(len(p.UnitFile())) + " bytes)",
		"create /etc/udev/rules.d/90-roce-gpu.rules (" + strconv.Itoa(len(p.UdevRule())) + " bytes)",
		"reload systemd and enable roce-gpu.service at boot (not started now: the live tasks applied the values)",
		"reload the udev rules so /etc/udev/rules.d/90-roce-gpu.rules acts on the next driver reload",
	}
	if d := cmp.Diff(wantSummaries, summaries); d != "" {
		t.Errorf("summaries (-want +got):\n%s", d)
	}
	wantLines := [][]string{
		{"write: /usr/local/sbin/roce-gpu-apply (" + strconv.Itoa(len(script)) + " bytes, mode 0755, owner root:root) (as root)"},
		{"write: /etc/systemd/system/roce-gpu.service (" + strconv.Itoa(len(p.UnitFile())) + " bytes, mode 0644, owner root:root) (as root)"},
		{"write: /etc/udev/rules.d/90-roce-gpu.rules (" + strconv.Itoa(len(p.UdevRule())) + " bytes, mode 0644, owner root:root) (as root)"},
		{"run: systemctl daemon-reload (as root)", "run: systemctl enable roce-gpu.service (as root)"},
		{"run: udevadm control --reload (as root)"},
	}
	if d := cmp.Diff(wantLines, lines); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
}

func TestPersistenceInstalledIsUnchanged(t *testing.T) {
	p := persistGPU()
	got, err := p.Plan(persistHost(t, p, true))
	if err != nil {
		t.Fatal(err)
	}
	if a := actionable(got); len(a) != 0 {
		t.Errorf("plan of an installed host has changes: %+v", plannedOf(a))
	}
	if last := got[len(got)-1].Summary; last != "/etc/systemd/system/roce-gpu.service is in place; it was enabled when written" {
		t.Errorf("last note = %q", last)
	}
}

func TestPersistencePartialChanges(t *testing.T) {
	p := persistGPU()
	t.Run("unit edited", func(t *testing.T) {
		f := persistHost(t, p, true)
		f.Files[p.UnitPath()] = rootFile(strings.Replace(p.UnitFile(), "oneshot", "simple", 1), 0o644)
		got := actionable(planOrFail(t, p, f))
		want := []plannedChange{
			{
				Summary: "update /etc/systemd/system/roce-gpu.service: content +1 -1 lines",
				Before:  "sha256 " + shortHash(f.Files[p.UnitPath()].SHA256) + " (" + strconv.Itoa(len(p.UnitFile())-1) + " bytes), mode 0644, owner root:root",
				After:   "sha256 " + shortHash(sha256Hex([]byte(p.UnitFile()))) + " (" + strconv.Itoa(len(p.UnitFile())) + " bytes), mode 0644, owner root:root",
				Lines:   []string{"write: /etc/systemd/system/roce-gpu.service (" + strconv.Itoa(len(p.UnitFile())) + " bytes, mode 0644, owner root:root) (as root)"},
			},
			{
				Summary: "reload systemd and enable roce-gpu.service at boot (not started now: the live tasks applied the values)",
				Before:  "unit not known to systemd or changed", After: "enabled, runs /usr/local/sbin/roce-gpu-apply at boot",
				Lines: []string{"run: systemctl daemon-reload (as root)", "run: systemctl enable roce-gpu.service (as root)"},
			},
		}
		if d := cmp.Diff(want, plannedOf(got)); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})
	t.Run("rule deleted", func(t *testing.T) {
		f := persistHost(t, p, true)
		f.Files[p.RulePath()] = host.FileInfo{Path: p.RulePath()}
		got := actionable(planOrFail(t, p, f))
		want := []string{
			"create /etc/udev/rules.d/90-roce-gpu.rules (" + strconv.Itoa(len(p.UdevRule())) + " bytes)",
			"reload the udev rules so /etc/udev/rules.d/90-roce-gpu.rules acts on the next driver reload"}
		if d := cmp.Diff(want, changeSummaries(got)); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})
	t.Run("settings changed: only the script", func(t *testing.T) {
		f := persistHost(t, p, true)
		q := losslessQoS()
		q.PFCPriorities = []int{3, 4}
		p2 := p
		p2.QoS = &q
		got := actionable(planOrFail(t, p2, f))
		if len(got) != 1 || !strings.HasPrefix(got[0].Summary, "update /usr/local/sbin/roce-gpu-apply: content +1 -1 lines") {
			t.Errorf("plan = %+v", plannedOf(got))
		}
	})
}

func TestPersistenceErrors(t *testing.T) {
	d, q := tunedDCQCN(), losslessQoS()
	vf := tunedDCQCN()
	vf.Netdevs = []string{"ens1f0np0"}
	tests := []struct {
		name string
		p    Persistence
		want string
	}{
		{"empty id", Persistence{DCQCN: &d}, `persistence ID "": want lowercase letters`},
		{"hostile id", Persistence{ID: "gpu;reboot", DCQCN: &d}, `persistence ID "gpu;reboot"`},
		{"path id", Persistence{ID: "../x", QoS: &q}, `persistence ID "../x"`},
		{"nothing", Persistence{ID: "gpu"}, "persistence gpu: nothing to persist"},
		{"vf", Persistence{ID: "gpu", DCQCN: &vf}, "netdev ens1f0np0 (0000:17:00.0) is an SR-IOV virtual function"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := persistHost(t, persistGPU(), false)
			f.Netdevs[0].IsVF = true
			_, err := tc.p.Plan(f)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestPersistenceNeeds(t *testing.T) {
	got := persistGPU().Needs().String()
	want := "lockdown,ibv_devinfo,netdevs,ecn,mlnx_qos,cc_params,mlxconfig," +
		"file /etc/systemd/system/roce-gpu.service,file /etc/udev/rules.d/90-roce-gpu.rules,file /usr/local/sbin/roce-gpu-apply"
	if got != want {
		t.Errorf("Needs =\n%s\nwant\n%s", got, want)
	}
}

func planOrFail(t *testing.T, task host.Task, f host.Facts) []host.Change {
	t.Helper()
	cs, err := task.Plan(f)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func changeSummaries(cs []host.Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Summary
	}
	return out
}
