package tasks

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

func TestDCQCNSysfsWritesOnlyDifferences(t *testing.T) {
	f := roceHost(t)
	st := f.ECN["ens1f0np0"]
	st.NPEnabled[3] = false
	st.RPEnabled[0] = false // another priority: left as it is
	f.ECN["ens1f0np0"] = st
	got, err := tunedDCQCN().Plan(f)
	if err != nil {
		t.Fatal(err)
	}
	const ecn1, ecn2 = "/sys/class/net/ens1f0np0/ecn/", "/sys/class/net/ens2f0np0/ecn/"
	want := []plannedChange{
		{
			Summary: "set DCQCN of ens1f0np0 through OFED sysfs: 2 of 21 values differ",
			Before:  "roce_np/enable/3=0, roce_rp/rpg_ai_rate=5",
			After:   "roce_np/enable/3=1, roce_rp/rpg_ai_rate=10",
			Lines: []string{
				"run: echo 1 >" + ecn1 + "roce_np/enable/3 (as root)",
				"run: echo 10 >" + ecn1 + "roce_rp/rpg_ai_rate (as root)",
			},
		},
		{
			Summary: "set DCQCN of ens2f0np0 through OFED sysfs: 1 of 21 values differ",
			Before:  "roce_rp/rpg_ai_rate=5",
			After:   "roce_rp/rpg_ai_rate=10",
			Lines:   []string{"run: echo 10 >" + ecn2 + "roce_rp/rpg_ai_rate (as root)"},
		},
	}
	if d := cmp.Diff(want, plannedOf(got)); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
}

func TestDCQCNSysfsUnchanged(t *testing.T) {
	f := roceHost(t)
	task := tunedDCQCN()
	task.Params = fabric.DefaultDCQCN()
	got, err := task.Plan(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []plannedChange{
		{Summary: "ens1f0np0 has its DCQCN values (OFED sysfs, 21 checked)"},
		{Summary: "ens2f0np0 has its DCQCN values (OFED sysfs, 21 checked)"},
	}
	if d := cmp.Diff(want, plannedOf(got)); d != "" {
		t.Errorf("plan (-want +got):\n%s", d)
	}
	if task.RebootRequired(f) {
		t.Error("RebootRequired on an OFED host = true, want false")
	}
}

// Every setting is compared: changing any of them yields exactly one write.
func TestDCQCNSysfsEveryKnobCompared(t *testing.T) {
	task := tunedDCQCN()
	task.Netdevs = []string{"ens1f0np0"}
	want, err := task.settings()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range want {
		f := roceHost(t)
		st := f.ECN["ens1f0np0"]
		fresh := facts.ECNState{RPEnabled: st.RPEnabled, NPEnabled: st.NPEnabled, RP: map[string]int64{}, NP: map[string]int64{}}
		for k, v := range st.RP {
			fresh.RP[k] = v
		}
		for k, v := range st.NP {
			fresh.NP[k] = v
		}
		fresh.RP["rpg_ai_rate"] = 10
		switch {
		case s.prio >= 0 && s.side == "np":
			fresh.NPEnabled[s.prio] = false
		case s.prio >= 0:
			fresh.RPEnabled[s.prio] = false
		case s.side == "np":
			fresh.NP[s.name] = s.value + 1
		default:
			fresh.RP[s.name] = s.value + 1
		}
		f.ECN["ens1f0np0"] = fresh
		cs, err := task.Plan(f)
		if err != nil {
			t.Fatal(err)
		}
		got := actionable(cs)
		if len(got) != 1 || len(got[0].Apply.Lines()) != 1 || !strings.Contains(got[0].Apply.Lines()[0], "/ecn/"+s.sysfsFile()+" ") {
			t.Errorf("%s changed: plan %+v, want one write of it", s.sysfsFile(), plannedOf(got))
		}
	}
}

func TestDCQCNSysfsMissingKnob(t *testing.T) {
	f := roceHost(t)
	delete(f.ECN["ens2f0np0"].RP, "rpg_max_rate")
	_, err := tunedDCQCN().Plan(f)
	if err == nil || !strings.Contains(err.Error(), "netdev ens2f0np0: /sys/class/net/ens2f0np0/ecn/roce_rp/rpg_max_rate is missing") {
		t.Errorf("err = %v, want the missing file named", err)
	}
}

func TestDCQCNInvalid(t *testing.T) {
	tests := []struct {
		name string
		edit func(*DCQCN)
		want string
	}{
		{"priority", func(d *DCQCN) { d.Priority = 8 }, "priority 8: want 0..7"},
		{"negative priority", func(d *DCQCN) { d.Priority = -1 }, "priority -1: want 0..7"},
		{"cnp dscp", func(d *DCQCN) { d.CNPDSCP = 64 }, "CNP DSCP 64: want 0..63"},
		{"cnp priority", func(d *DCQCN) { d.CNPPriority = 9 }, "CNP priority 9: want 0..7"},
		{"shared priority", func(d *DCQCN) { d.CNPPriority = 3 }, "CNP priority 3 is the RoCE data priority"},
		{"lossless range", func(d *DCQCN) { d.Lossless = []int{4, 8} }, "lossless priority 8: want 0..7"},
		{"lossless cnp", func(d *DCQCN) { d.Lossless = []int{4, 6} }, "lossless priority 6 is the CNP priority"},
		{"params", func(d *DCQCN) { d.Params = fabric.DCQCN{} }, "DCQCN.Gain is 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			task := tunedDCQCN()
			tc.edit(&task)
			_, err := task.Plan(roceHost(t))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestDCQCNHostileNetdevNames(t *testing.T) {
	for _, name := range []string{"", "a/b", "../../etc", "..", "x y", "eth0:1", "a\x00b", "sixteen-bytes-xx", "ens1\n"} {
		task := tunedDCQCN()
		task.Netdevs = []string{name}
		_, err := task.Plan(roceHost(t))
		if err == nil || !strings.Contains(err.Error(), "not a valid interface name") {
			t.Errorf("netdev %q: err = %v, want it rejected as an interface name", name, err)
		}
	}
	// A name the kernel accepts is quoted wherever it goes.
	f := roceHost(t)
	odd := "ens'$(id)"
	f.Netdevs = append(f.Netdevs, host.Netdev{Name: odd, PCIAddr: "0000:3a:00.0", RDMADevice: "mlx5_2"})
	st := defaultECN(t)
	st.RP["rpg_ai_rate"] = 5
	f.ECN[odd] = st
	task := tunedDCQCN()
	task.Netdevs = []string{odd}
	cs, err := task.Plan(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`run: echo 10 >'/sys/class/net/ens'\''$(id)/ecn/roce_rp/rpg_ai_rate' (as root)`}
	if d := cmp.Diff(want, actionable(cs)[0].Apply.Lines()); d != "" {
		t.Errorf("quoting (-want +got):\n%s", d)
	}
}

func TestDCQCNSelection(t *testing.T) {
	t.Run("named netdev not on host", func(t *testing.T) {
		task := tunedDCQCN()
		task.Netdevs = []string{"eth9"}
		_, err := task.Plan(roceHost(t))
		if err == nil || !strings.Contains(err.Error(), "netdev eth9 is not a ConnectX (mlx5) netdev of this host (it has: ens1f0np0, ens2f0np0)") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("listed twice", func(t *testing.T) {
		task := tunedDCQCN()
		task.Netdevs = []string{"ens1f0np0", "ens1f0np0"}
		_, err := task.Plan(roceHost(t))
		if err == nil || !strings.Contains(err.Error(), "listed twice") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("VF refused", func(t *testing.T) {
		f := roceHost(t)
		f.Netdevs[0].IsVF = true
		task := tunedDCQCN()
		task.Netdevs = []string{"ens1f0np0"}
		_, err := task.Plan(f)
		want := "netdev ens1f0np0 (0000:17:00.0) is an SR-IOV virtual function: its ecn/ files are read-only (0444) " +
			"and firmware takes DCQCN from the physical function; configure its physical function's netdev instead"
		if err == nil || err.Error() != want {
			t.Errorf("err = %v\nwant %s", err, want)
		}
	})
	t.Run("automatic selection leaves VFs and InfiniBand out", func(t *testing.T) {
		f := roceHost(t)
		f.Netdevs[0].IsVF = true
		f.IBDevices[1].Ports[0].LinkLayer = "InfiniBand"
		f.Netdevs = append(f.Netdevs, host.Netdev{Name: "ens3f0np0", PCIAddr: "0000:3a:00.0", RDMADevice: "mlx5_2"})
		f.IBDevices = append(f.IBDevices, facts.IBDevice{Name: "mlx5_2", Ports: []facts.IBPort{{Num: 1, LinkLayer: "Ethernet"}}})
		f.ECN["ens3f0np0"] = defaultECN(t)
		cs, err := tunedDCQCN().Plan(f)
		if err != nil {
			t.Fatal(err)
		}
		if cs[0].Summary != "left out ens1f0np0 (virtual function), ens2f0np0 (link layer InfiniBand)" {
			t.Errorf("note = %q", cs[0].Summary)
		}
		if got := actionable(cs); len(got) != 1 || !strings.Contains(got[0].Summary, "ens3f0np0") {
			t.Errorf("changes = %+v, want one for ens3f0np0", plannedOf(got))
		}
	})
	t.Run("nothing to configure", func(t *testing.T) {
		f := roceHost(t)
		for i := range f.Netdevs {
			f.Netdevs[i].IsVF = true
		}
		_, err := tunedDCQCN().Plan(f)
		if err == nil || !strings.Contains(err.Error(), "found no ConnectX physical function with an Ethernet (RoCE) link layer (left out: ens1f0np0 (virtual function)") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("netdevs not gathered", func(t *testing.T) {
		f := roceHost(t)
		f.Absent["netdevs"] = "exit status 1: boom"
		_, err := tunedDCQCN().Plan(f)
		if err == nil || err.Error() != "cannot list the ConnectX netdevs: exit status 1: boom" {
			t.Errorf("err = %v", err)
		}
	})
}

func TestDCQCNNeeds(t *testing.T) {
	got := tunedDCQCN().Needs().String()
	if want := "lockdown,ibv_devinfo,netdevs,ecn,cc_params,mlxconfig"; got != want {
		t.Errorf("Needs = %s, want %s", got, want)
	}
}

func TestDCQCNPathChoice(t *testing.T) {
	tests := []struct {
		name     string
		f        func(*testing.T) host.Facts
		want     string // the error's start, naming the path
		rebootRq bool
	}{
		{"inbox without lockdown: debugfs", func(t *testing.T) host.Facts { return inboxHost(t, facts.LockdownNone) },
			"cannot read the debugfs cc_params of netdev ens1f0np0 (/sys/kernel/debug/mlx5/0000:17:00.0/cc_params)", false},
		{"inbox with lockdown: NV config", func(t *testing.T) host.Facts { return inboxHost(t, facts.LockdownIntegrity) },
			"cannot read the mlxconfig NV configuration of netdev ens1f0np0 (0000:17:00.0)", true},
		{"OFED with lockdown: sysfs", func(t *testing.T) host.Facts {
			f := roceHost(t)
			f.Lockdown = facts.LockdownConfidentiality
			return f
		}, "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.f(t)
			task := tunedDCQCN()
			_, err := task.Plan(f)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("err = %v", err)
			case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
				t.Errorf("err = %v\nwant it to start with %s", err, tc.want)
			}
			var uf *unreadFactError
			if tc.want != "" && !errors.As(err, &uf) {
				t.Errorf("err is %T, want *unreadFactError", err)
			}
			if got := task.RebootRequired(f); got != tc.rebootRq {
				t.Errorf("RebootRequired = %v, want %v", got, tc.rebootRq)
			}
		})
	}
}
