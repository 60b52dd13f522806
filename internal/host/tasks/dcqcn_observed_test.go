package tasks

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// observedWant is the task Observed should return from a host whose first
// netdev holds tunedDCQCN with hyper increase 100 Mb/s, gain 9/1024 and CNPs
// on DSCP 46 / priority 5: the values of the task read back, the priority
// and netdevs of the task asked.
func observedWant() DCQCN {
	want := tunedDCQCN()
	want.Params.HyperIncreaseMbps = 100
	want.Params.Gain = 9.0 / 1024
	want.CNPDSCP, want.CNPPriority = 46, 5
	return want
}

// TestDCQCNObserved reads the values of the first netdev back through each
// path; planning the result against the same facts changes nothing on that
// netdev.
func TestDCQCNObserved(t *testing.T) {
	asked := DCQCN{Netdevs: []string{"ens1f0np0"}, Priority: 3, Params: fabric.DefaultDCQCN(),
		CNPDSCP: fabric.DefaultCNPDSCP, CNPPriority: fabric.DefaultCNPPriority}
	tuned := map[string]int64{"rpg_ai_rate": 10, "rpg_hai_rate": 100, "dce_tcp_g": 1015, "cnp_dscp": 46, "cnp_802p_prio": 5}
	cases := map[string]func(t *testing.T) host.Facts{
		"sysfs": func(t *testing.T) host.Facts {
			f := roceHost(t)
			st := f.ECN["ens1f0np0"]
			for name, v := range tuned {
				if _, ok := st.RP[name]; ok {
					st.RP[name] = v
				} else {
					st.NP[name] = v
				}
			}
			return f
		},
		"debugfs": func(t *testing.T) host.Facts {
			f := inboxHost(t, facts.LockdownNone)
			cc := defaultCC(t)
			for name, v := range tuned {
				d, _ := fabric.DebugfsName(name)
				cc[d] = v
			}
			f.CCParams = map[string]facts.CCParams{"0000:17:00.0": cc}
			return f
		},
		"nv config": func(t *testing.T) host.Facts {
			f := inboxHost(t, facts.LockdownIntegrity)
			nv := defaultNV(t, 1)
			for name, v := range tuned {
				nv[dcqcnSetting{name: name, prio: -1}.nvName(1)] = v
			}
			f.NVConfig = map[string]facts.NVConfig{"0000:17:00.0": nvConfigOf(nv)}
			return f
		},
	}
	for name, hostOf := range cases {
		t.Run(name, func(t *testing.T) {
			f := hostOf(t)
			f.Gathered = f.Gathered.Union(asked.Needs())
			got, err := asked.Observed(f)
			if err != nil {
				t.Fatal(err)
			}
			want := observedWant()
			want.Netdevs = asked.Netdevs
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("Observed (-want +got):\n%s", d)
			}
			cs, err := got.Plan(f)
			if err != nil {
				t.Fatal(err)
			}
			if a := actionable(cs); len(a) != 0 {
				t.Errorf("the values read back plan changes: %+v", plannedOf(a))
			}
		})
	}
}

func TestDCQCNObservedErrors(t *testing.T) {
	asked := tunedDCQCN()
	f := roceHost(t)
	f.Gathered = f.Gathered.Union(asked.Needs())
	st := f.ECN["ens1f0np0"]
	delete(st.RP, "rpg_gd")
	if _, err := asked.Observed(f); err == nil || !strings.Contains(err.Error(), "ecn/roce_rp/rpg_gd is missing") {
		t.Errorf("missing knob: err = %v", err)
	}
	st.RP["rpg_gd"] = 99
	if _, err := asked.Observed(f); err == nil || !strings.Contains(err.Error(), "rpg_gd is 99: the firmware range is 10..11") {
		t.Errorf("knob out of range: err = %v", err)
	}
	f = inboxHost(t, facts.LockdownNone)
	f.Gathered = f.Gathered.Union(asked.Needs())
	f.CCParams = map[string]facts.CCParams{}
	if _, err := asked.Observed(f); err == nil || !strings.Contains(err.Error(), "cc_params/rp_clamp_tgt_rate was not read") {
		t.Errorf("unread debugfs: err = %v", err)
	}
	f.Netdevs, f.IBDevices = nil, nil
	if _, err := asked.Observed(f); err == nil {
		t.Error("no netdev: no error")
	}
}
