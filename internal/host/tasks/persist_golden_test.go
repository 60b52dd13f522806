package tasks

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

const goldenUnit = `# roce-gpu.service: re-applies the RoCE host settings "gpu" at boot.
# Rendered by terraform-provider-roce; local edits are overwritten by the next apply.
[Unit]
Description=RoCE host settings gpu (DCQCN, host QoS)
After=openibd.service network-online.target
Wants=network-online.target

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/local/sbin/roce-gpu-apply

[Install]
WantedBy=multi-user.target
`

const goldenRule = `# 90-roce-gpu.rules: re-applies the RoCE host settings "gpu" when a ConnectX netdev appears
# (driver reload, openibd restart). Rendered by terraform-provider-roce; local edits are overwritten by the next apply.
ACTION=="add", SUBSYSTEM=="net", DRIVERS=="mlx5_core", RUN+="/usr/local/sbin/roce-gpu-apply $name"
`

const goldenScriptHead = `#!/bin/sh
# roce-gpu-apply: re-applies the RoCE host settings "gpu" (DCQCN, host QoS) that the
# provider applied live. Run at boot by roce-gpu.service and for each new ConnectX netdev by
# 90-roce-gpu.rules. Rendered by terraform-provider-roce; local edits are overwritten by the next apply.
# Usage: roce-gpu-apply [NETDEV]  (with NETDEV, only that netdev: what the udev rule does)
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
only=${1-}
rc=0

# put FILE VALUE writes VALUE into a sysfs or debugfs FILE.
put() {
	echo "$2" >"$1" || { echo "roce-gpu-apply: cannot write $2 to $1" >&2; rc=1; }
}

# run TOOL ARGS... runs a tool, keeping its report out of the journal.
run() {
	"$@" >/dev/null || { echo "roce-gpu-apply: failed: $*" >&2; rc=1; }
}

# want NETDEV succeeds when NETDEV is to be set up now and exists.
want() {
	[ -z "$only" ] || [ "$only" = "$1" ] || return 1
	[ -e "/sys/class/net/$1" ] && return 0
	[ -n "$only" ] || { echo "roce-gpu-apply: netdev $1 not found" >&2; rc=1; }
	return 1
}

# ibdev NETDEV prints the RDMA device of NETDEV.
ibdev() {
	for d in "/sys/class/net/$1/device/infiniband/"*; do
		[ -e "$d" ] && { echo "${d##*/}"; return 0; }
	done
	echo "roce-gpu-apply: netdev $1 has no RDMA device" >&2
	return 1
}
`

const goldenSysfsFunc = `
# dcqcn_sysfs NETDEV: DCQCN through OFED's ecn/ tree, priority 3 switched on.
dcqcn_sysfs() {
	put "/sys/class/net/$1/ecn/roce_np/enable/3" 1
	put "/sys/class/net/$1/ecn/roce_rp/enable/3" 1
	put "/sys/class/net/$1/ecn/roce_rp/clamp_tgt_rate" 0
	put "/sys/class/net/$1/ecn/roce_rp/clamp_tgt_rate_after_time_inc" 1
	put "/sys/class/net/$1/ecn/roce_rp/rpg_time_reset" 300
	put "/sys/class/net/$1/ecn/roce_rp/rpg_byte_reset" 32767
	put "/sys/class/net/$1/ecn/roce_rp/rpg_threshold" 1
	put "/sys/class/net/$1/ecn/roce_rp/rpg_max_rate" 0
	put "/sys/class/net/$1/ecn/roce_rp/rpg_ai_rate" 10
	put "/sys/class/net/$1/ecn/roce_rp/rpg_hai_rate" 50
	put "/sys/class/net/$1/ecn/roce_rp/rpg_gd" 11
	put "/sys/class/net/$1/ecn/roce_rp/rpg_min_dec_fac" 50
	put "/sys/class/net/$1/ecn/roce_rp/rpg_min_rate" 1
	put "/sys/class/net/$1/ecn/roce_rp/rate_to_set_on_first_cnp" 0
	put "/sys/class/net/$1/ecn/roce_rp/dce_tcp_g" 1019
	put "/sys/class/net/$1/ecn/roce_rp/dce_tcp_rtt" 1
	put "/sys/class/net/$1/ecn/roce_rp/rate_reduce_monitor_period" 4
	put "/sys/class/net/$1/ecn/roce_rp/initial_alpha_value" 1023
	put "/sys/class/net/$1/ecn/roce_np/min_time_between_cnps" 4
	put "/sys/class/net/$1/ecn/roce_np/cnp_dscp" 48
	put "/sys/class/net/$1/ecn/roce_np/cnp_802p_prio" 6
}
`

const goldenDebugfsFunc = `
# dcqcn_debugfs BDF: DCQCN through debugfs cc_params (no per-priority enable there).
dcqcn_debugfs() {
	put "/sys/kernel/debug/mlx5/$1/cc_params/rp_clamp_tgt_rate" 0
	put "/sys/kernel/debug/mlx5/$1/cc_params/rp_clamp_tgt_rate_ati" 1
	put "/sys/kernel/debug/mlx5/$1/cc_params/rp_time_reset" 300
	put "/sys/kernel/debug/mlx5/$1/cc_params/rp_byte_reset" 32767
	put "/sys/kernel/debug/mlx5/$1/cc_params/rp_threshold" 1
	put "/sys/kernel/debug/mlx5/$1/cc_params/rp_max_rate" 0
	put "/sys/kernel/debug/mlx5/$1/cc_params/rp_ai_rate" 10
	put "/sys/kernel/debug/mlx5/$1/cc_params/rp_hai_rate" 50
	put "/sys/kernel/debug/mlx5/$1/cc_params/rp_gd" 11
	put "/sys/kernel/debug/mlx5/$1/cc_params/rp_min_dec_fac" 50
	put "/sys/kernel/debug/mlx5/$1/cc_params/rp_min_rate" 1
	put "/sys/kernel/debug/mlx5/$1/cc_params/rp_rate_to_set_on_first_cnp" 0
	put "/sys/kernel/debug/mlx5/$1/cc_params/rp_dce_tcp_g" 1019
	put "/sys/kernel/debug/mlx5/$1/cc_params/rp_dce_tcp_rtt" 1
	put "/sys/kernel/debug/mlx5/$1/cc_params/rp_rate_reduce_monitor_period" 4
	put "/sys/kernel/debug/mlx5/$1/cc_params/rp_initial_alpha_value" 1023
	put "/sys/kernel/debug/mlx5/$1/cc_params/np_min_time_between_cnps" 4
	put "/sys/kernel/debug/mlx5/$1/cc_params/np_cnp_dscp" 48
	put "/sys/kernel/debug/mlx5/$1/cc_params/np_cnp_prio" 6
}
`

func TestPersistenceUnitGolden(t *testing.T) {
	if d := cmp.Diff(goldenUnit, persistGPU().UnitFile()); d != "" {
		t.Errorf("unit (-want +got):\n%s", d)
	}
}

func TestPersistenceUdevRuleGolden(t *testing.T) {
	if d := cmp.Diff(goldenRule, persistGPU().UdevRule()); d != "" {
		t.Errorf("rule (-want +got):\n%s", d)
	}
}

func TestPersistenceScriptGoldenOFED(t *testing.T) {
	p := persistGPU()
	p.QoS.TrafficClass, p.QoS.CMARoCETos = 106, 106
	want := goldenScriptHead + goldenSysfsFunc + `
# qos NETDEV: trust and PFC (mlnx_qos), RoCE traffic class and RDMA-CM ToS.
qos() {
	run mlnx_qos -i "$1" --trust dscp --pfc 0,0,0,1,0,0,0,0
	if dev=$(ibdev "$1"); then
		put "/sys/class/infiniband/$dev/tc/1/traffic_class" 106
		run cma_roce_tos -d "$dev" -t 106
	else
		rc=1
	fi
}

want ens1f0np0 && dcqcn_sysfs ens1f0np0
want ens2f0np0 && dcqcn_sysfs ens2f0np0
want ens1f0np0 && qos ens1f0np0
want ens2f0np0 && qos ens2f0np0
exit $rc
`
	got, err := p.Script(roceHost(t))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("script (-want +got):\n%s", d)
	}
	checkShellSyntax(t, got)
}

// On the inbox stack DCQCN goes to debugfs, or with lockdown to NV config,
// which needs nothing at boot. An odd but valid netdev name is quoted.
func TestPersistenceScriptGoldenInbox(t *testing.T) {
	d := tunedDCQCN()
	p := Persistence{ID: "gpu", DCQCN: &d}
	f := inboxHost(t, facts.LockdownNone)
	odd := "ens'$(x)"
	f.Netdevs = append(f.Netdevs, host.Netdev{Name: odd, PCIAddr: "0000:3a:00.0", RDMADevice: "mlx5_2"})
	f.IBDevices = append(f.IBDevices, facts.IBDevice{Name: "mlx5_2", Ports: []facts.IBPort{{Num: 1, LinkLayer: "Ethernet"}}})
	want := goldenScriptHead + goldenDebugfsFunc + `
want ens1f0np0 && dcqcn_debugfs 0000:17:00.0
want ens2f0np0 && dcqcn_debugfs 0000:29:00.0
want 'ens'\''$(x)' && dcqcn_debugfs 0000:3a:00.0
exit $rc
`
	got, err := p.Script(f)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("script (-want +got):\n%s", d)
	}
	checkShellSyntax(t, got)

	f.Lockdown = facts.LockdownIntegrity
	got, err = p.Script(f)
	if err != nil {
		t.Fatal(err)
	}
	tail := `
# ens1f0np0: DCQCN is in the NIC's NV configuration (mlxconfig); firmware applies it at boot
# ens2f0np0: DCQCN is in the NIC's NV configuration (mlxconfig); firmware applies it at boot
# 'ens'\''$(x)': DCQCN is in the NIC's NV configuration (mlxconfig); firmware applies it at boot
exit $rc
`
	if d := cmp.Diff(goldenScriptHead+tail, got); d != "" {
		t.Errorf("NV config script (-want +got):\n%s", d)
	}
	checkShellSyntax(t, got)
}

// checkShellSyntax runs sh -n on a rendered script.
func checkShellSyntax(t *testing.T, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-n")
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("sh -n: %v: %s", err, out)
	}
}

// The script and the live plans render from one source: on a host where
// every value differs, the live writes are exactly the script's, with the
// netdev, PCI address and RDMA device filled in.
func TestPersistenceScriptMatchesLivePlan(t *testing.T) {
	p := persistGPU()
	p.QoS.TrafficClass, p.QoS.CMARoCETos = 106, 105
	f := roceHost(t)
	for name, st := range f.ECN {
		var off facts.ECNState
		off.RP, off.NP = map[string]int64{}, map[string]int64{}
		for k, v := range st.RP {
			off.RP[k] = v + 1
		}
		for k, v := range st.NP {
			off.NP[k] = v + 1
		}
		f.ECN[name] = off
	}
	script, err := p.Script(f)
	if err != nil {
		t.Fatal(err)
	}
	state := rdmaState{f: f, tc: map[string]int{"mlx5_0": -1, "mlx5_1": -1}, tos: map[string]int{"mlx5_0": 0, "mlx5_1": 0}}
	dc, err := p.DCQCN.plan(state)
	if err != nil {
		t.Fatal(err)
	}
	qc, err := p.QoS.plan(state)
	if err != nil {
		t.Fatal(err)
	}
	var live []string
	for _, c := range actionable(append(dc, qc...)) {
		for _, l := range c.Apply.Lines() {
			live = append(live, strings.TrimSuffix(strings.TrimPrefix(l, "run: "), " (as root)"))
		}
	}
	fromScript := expandScript(t, script, map[string]string{"ens1f0np0": "mlx5_0", "ens2f0np0": "mlx5_1"})
	slices.Sort(live)
	slices.Sort(fromScript)
	if d := cmp.Diff(live, fromScript); d != "" {
		t.Errorf("live writes vs script (-live +script):\n%s", d)
	}
	if len(live) != 2*(21+3) {
		t.Errorf("%d live commands, want %d", len(live), 2*(21+3))
	}
}

// expandScript turns the function calls at the end of a rendered script
// into the commands they run, in the live plans' notation.
func expandScript(t *testing.T, script string, devs map[string]string) []string {
	t.Helper()
	funcs := map[string][]string{}
	var cur string
	for _, l := range strings.Split(script, "\n") {
		switch {
		case strings.HasSuffix(l, "() {"):
			cur = strings.TrimSuffix(l, "() {")
		case l == "}":
			cur = ""
		case cur != "" && !slices.Contains([]string{"put", "run", "want", "ibdev"}, cur):
			funcs[cur] = append(funcs[cur], strings.TrimSpace(l))
		}
	}
	put := regexp.MustCompile(`^put "([^"]+)" (\d+)$`)
	var out []string
	for _, l := range strings.Split(script, "\n") {
		nd, fn, ok := scriptCall(l)
		if !ok {
			continue
		}
		dev := devs[nd]
		for _, body := range funcs[fn] {
			body = strings.NewReplacer(`"$1"`, nd, "$1", nd, `"$dev"`, dev, "$dev", dev).Replace(body)
			if m := put.FindStringSubmatch(body); m != nil {
				out = append(out, "echo "+m[2]+" >"+m[1])
			} else if rest, ok := strings.CutPrefix(body, "run "); ok {
				out = append(out, rest)
			}
		}
	}
	return out
}

// scriptCall reads a "want NETDEV && FUNC ARG" line whose ARG is NETDEV.
func scriptCall(line string) (netdev, fn string, ok bool) {
	f := strings.Fields(line)
	if len(f) != 5 || f[0] != "want" || f[2] != "&&" || f[1] != f[4] {
		return "", "", false
	}
	return f[1], f[3], true
}
