package tasks

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// storageDCQCN is tunedDCQCN with a second lossless class on priority 4.
func storageDCQCN() DCQCN {
	d := tunedDCQCN()
	d.Lossless = []int{4, 3}
	return d
}

// Every lossless priority gets its notification and reaction point, each once, the data
// priority first; a task without further priorities sets what it always set.
func TestDCQCNPriorities(t *testing.T) {
	for _, tc := range []struct {
		lossless []int
		want     []int
	}{{nil, []int{3}}, {[]int{3}, []int{3}}, {[]int{4, 3, 4}, []int{3, 4}}, {[]int{5, 0}, []int{3, 0, 5}}} {
		d := tunedDCQCN()
		d.Lossless = tc.lossless
		want, err := d.settings()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range want {
			if s.prio >= 0 {
				got = append(got, s.sysfsFile())
			}
		}
		var wantFiles []string
		for _, p := range tc.want {
			wantFiles = append(wantFiles, "roce_np/enable/"+string(rune('0'+p)), "roce_rp/enable/"+string(rune('0'+p)))
		}
		if d := cmp.Diff(wantFiles, got); d != "" {
			t.Errorf("Lossless %v: enables (-want +got):\n%s", tc.lossless, d)
		}
	}
}

// A lossless priority whose points are off is switched on through OFED sysfs, and the
// second plan is empty.
func TestDCQCNSysfsEnablesEveryLosslessPriority(t *testing.T) {
	f := roceHost(t)
	st := f.ECN["ens1f0np0"]
	st.NPEnabled[4], st.RPEnabled[4] = false, false
	f.ECN["ens1f0np0"] = st
	task := storageDCQCN()
	task.Netdevs = []string{"ens1f0np0"}
	got, err := task.Plan(f)
	if err != nil {
		t.Fatal(err)
	}
	const ecn = "/sys/class/net/ens1f0np0/ecn/"
	want := []plannedChange{{
		Summary: "set DCQCN of ens1f0np0 through OFED sysfs: 3 of 23 values differ",
		Before:  "roce_np/enable/4=0, roce_rp/enable/4=0, roce_rp/rpg_ai_rate=5",
		After:   "roce_np/enable/4=1, roce_rp/enable/4=1, roce_rp/rpg_ai_rate=10",
		Lines: []string{
			"run: echo 1 >" + ecn + "roce_np/enable/4 (as root)",
			"run: echo 1 >" + ecn + "roce_rp/enable/4 (as root)",
			"run: echo 10 >" + ecn + "roce_rp/rpg_ai_rate (as root)",
		},
	}}
	if d := cmp.Diff(want, plannedOf(got)); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
	st.NPEnabled[4], st.RPEnabled[4] = true, true
	st.RP["rpg_ai_rate"] = 10
	f.ECN["ens1f0np0"] = st
	got, err = task.Plan(f)
	if err != nil {
		t.Fatal(err)
	}
	if a := actionable(got); len(a) != 0 {
		t.Errorf("second plan has changes: %+v", plannedOf(a))
	}
}

// The NV configuration's mask ORs every lossless priority's bit into the bits it has.
func TestDCQCNNVConfigMaskHasEveryLosslessPriority(t *testing.T) {
	f := inboxHost(t, facts.LockdownIntegrity)
	task := storageDCQCN()
	task.Netdevs = []string{"ens1f0np0"}
	nv := defaultNV(t, 1)
	nv[nvPrioMask(1)] = 0x09 // priorities 0 and 3: 4 is added, 0 kept
	nv["RPG_AI_RATE_P1"] = 10
	got, err := task.plan(rdmaState{f: f, nv: map[string]map[string]int64{"0000:17:00.0": nv}})
	if err != nil {
		t.Fatal(err)
	}
	a := actionable(got)
	if len(a) != 1 || a[0].Before != "ROCE_CC_PRIO_MASK_P1=9" || !strings.HasPrefix(a[0].After, "ROCE_CC_PRIO_MASK_P1=25 ") {
		t.Fatalf("plan %+v, want the mask 9 -> 25 (bits 0, 3 and 4)", plannedOf(got))
	}
	_, err = task.Plan(f)
	if err == nil || !strings.Contains(err.Error(), "(and ROCE_CC_PRIO_MASK_P1 with bits 3, 4 set") {
		t.Errorf("err = %v, want the hand-run fix to name bits 3 and 4", err)
	}
}

// debugfs has no per-priority enable: its note names every priority the mask must hold.
func TestDCQCNDebugfsNamesEveryLosslessPriority(t *testing.T) {
	f := inboxHost(t, facts.LockdownNone)
	task := storageDCQCN()
	task.Netdevs = []string{"ens1f0np0"}
	got, err := task.plan(rdmaState{f: f, cc: map[string]facts.CCParams{"0000:17:00.0": defaultCC(t)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || !strings.Contains(got[0].Summary, "(default all), priorities 3, 4 included unless that mask was changed") {
		t.Errorf("plan %+v, want a note naming priorities 3, 4", plannedOf(got))
	}
}

// The boot script re-applies what the live plan sets: every lossless priority's points.
func TestPersistenceScriptEnablesEveryLosslessPriority(t *testing.T) {
	p := persistGPU()
	d := storageDCQCN()
	p.DCQCN = &d
	got, err := p.Script(roceHost(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"DCQCN through OFED's ecn/ tree, priorities 3, 4 switched on.",
		"\tput \"/sys/class/net/$1/ecn/roce_np/enable/3\" 1\n\tput \"/sys/class/net/$1/ecn/roce_rp/enable/3\" 1\n" +
			"\tput \"/sys/class/net/$1/ecn/roce_np/enable/4\" 1\n\tput \"/sys/class/net/$1/ecn/roce_rp/enable/4\" 1\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("script lacks %q:\n%s", want, got)
		}
	}
	checkShellSyntax(t, got)
}
